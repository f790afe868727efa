"""The journal's pre-formatted line for a new file is the JSON line ``_append`` would write."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from msd_install.installer.journal import absent_line, mkdir_line

TRAPS = [
    "a",
    "dir/file.md",
    "../.claude.json",
    'q"uote\\back',
    "é/ü/ß",
    "tab\there",
    "\x00\x1f\x7f",
]
TRAPS += ["\u2028\u2029", "\ud800", "emoji \U0001f600", " ", ""]


def _line(entry: dict[str, str]) -> bytes:
    return (json.dumps(entry, ensure_ascii=True, sort_keys=True) + "\n").encode()


def _expected(rel: str) -> bytes:
    return _line({"op": "file", "path": rel, "was": "absent"})


def test_traps() -> None:
    for rel in TRAPS:
        assert absent_line(rel) == _expected(rel)
        assert json.loads(absent_line(rel)) == {"op": "file", "path": rel, "was": "absent"}
        assert mkdir_line(rel) == _line({"op": "mkdir", "path": rel})


@settings(max_examples=500, deadline=None)
@given(st.text())
def test_any_path(rel: str) -> None:
    assert absent_line(rel) == _expected(rel)
    assert mkdir_line(rel) == _line({"op": "mkdir", "path": rel})
