"""Our three-way merge regions (installer/diff3.py, written because the merge3 package is GPL)
are exactly merge3's, region for region, on generated texts: edits, insertions, deletions and
conflicts on either side, repeated and frequent lines included."""

from __future__ import annotations

from difflib import SequenceMatcher

import merge3
from hypothesis import given, settings
from hypothesis import strategies as st

from msd_install.installer.diff3 import merge_regions

LINE = st.sampled_from(["a\n", "b\n", "c\n", "}\n", "\n", "x = 1\n", "# note\n", "end"])
TEXT = st.lists(LINE, max_size=40)


def _theirs(base: list[str], a: list[str], b: list[str]) -> list[tuple[object, ...]]:
    def matcher(x: object, y: object, z: object) -> SequenceMatcher[str]:
        return SequenceMatcher(x, y, z, autojunk=False)  # type: ignore[arg-type]

    return list(merge3.Merge3(base, a, b, sequence_matcher=matcher).merge_regions())  # type: ignore[arg-type]


@st.composite
def _edited(draw: st.DrawFn, base: list[str]) -> list[str]:
    out = list(base)
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["insert", "delete", "change"]))
        at = draw(st.integers(0, len(out)))
        if kind == "insert":
            out[at:at] = draw(st.lists(LINE, min_size=1, max_size=3))
        elif out and at < len(out):
            if kind == "delete":
                del out[at]
            else:
                out[at] = draw(LINE)
    return out


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_regions_equal_merge3s(data: st.DataObject) -> None:
    base = data.draw(TEXT)
    a = data.draw(_edited(base))
    b = data.draw(_edited(base))
    assert list(merge_regions(base, a, b)) == _theirs(base, a, b)


@settings(max_examples=200, deadline=None)
@given(TEXT, TEXT, TEXT)
def test_regions_equal_merge3s_on_unrelated_texts(
    base: list[str], a: list[str], b: list[str]
) -> None:
    assert list(merge_regions(base, a, b)) == _theirs(base, a, b)


def test_changes_apart_merge_and_changes_side_by_side_conflict() -> None:
    base = ["a\n", "b\n", "c\n", "d\n", "e\n"]
    yours = ["a\n", "B\n", "c\n", "d\n", "E1\n"]
    new = ["a\n", "b\n", "c\n", "D\n", "E2\n"]
    assert list(merge_regions(base, yours, new)) == [
        ("unchanged", 0, 1),
        ("a", 1, 2),
        ("unchanged", 2, 3),
        ("conflict", 3, 5, 3, 5, 3, 5),
    ]
