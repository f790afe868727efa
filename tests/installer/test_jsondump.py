"""``jsondump.indented`` writes exactly what ``json.dumps(indent=2, ensure_ascii=False)`` does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import run_cli
from msd_install.installer.jsondump import indented

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
)
documents = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(), inner, max_size=5)
    ),
    max_leaves=40,
)


@settings(max_examples=800, deadline=None)
@given(documents)
def test_generated_documents(doc: Any) -> None:
    assert indented(doc) == json.dumps(doc, indent=2, ensure_ascii=False)


def test_what_it_hands_to_json() -> None:
    odd: list[Any] = [{1: "int key"}, {"x": {2.5: True}}, [{None: 1}], {"s": {1, 2}}]
    for doc in odd[:3]:
        assert indented(doc) == json.dumps(doc, indent=2, ensure_ascii=False)
    try:
        json.dumps(odd[3])
    except TypeError as exc:
        expected = str(exc)
    try:
        indented(odd[3])
    except TypeError as exc:
        assert str(exc) == expected
    else:
        raise AssertionError("a set is not JSON")


def test_real_manifests_are_written_as_json_dumps_would(tmp_path: Path) -> None:
    assert run_cli(["--claude", "--global", "--yes"], tmp_path).returncode == 0
    raw = (tmp_path / ".claude/msd-file-manifest.json").read_text(encoding="utf-8")
    doc = json.loads(raw)
    assert len(doc["files"]) > 100
    assert raw == json.dumps(doc, indent=2, ensure_ascii=False) + "\n" == indented(doc) + "\n"
