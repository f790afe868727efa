"""The three-way merge of ``--reapply`` (installer/merge.py): a line you added is never lost."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from msd_install.installer.merge import END, MIDDLE, START, Merged, merge

# few distinct lines, so that edits collide, repeat and move often
LINES = st.lists(st.sampled_from([b"a", b"b", b"c", b"d", b"e", b"x"]), max_size=12)
MARKERS = (START, MIDDLE, END)


def text(lines: list[bytes], final_newline: bool = True) -> bytes:
    body = b"\n".join(lines)
    return body + b"\n" if lines and final_newline else body


def lines_of(data: bytes) -> Counter[bytes]:
    return Counter(line for line in data.splitlines() if not line.startswith(MARKERS))


@settings(max_examples=400, deadline=None)
@given(base=LINES, yours=LINES, new=LINES, final=st.booleans())
def test_no_line_you_added_is_ever_dropped(
    base: list[bytes], yours: list[bytes], new: list[bytes], final: bool
) -> None:
    merged = merge(text(base), text(yours, final), text(new))
    got, added = lines_of(merged.content), Counter(yours) - Counter(base)
    for line, count in added.items():
        assert got[line] >= count, (line, merged.content)


@settings(max_examples=200, deadline=None)
@given(base=LINES, yours=LINES, new=LINES)
def test_one_side_unchanged_gives_the_other_side_exactly(
    base: list[bytes], yours: list[bytes], new: list[bytes]
) -> None:
    assert merge(text(base), text(yours), text(base)) == Merged(text(yours), 0)
    assert merge(text(base), text(base), text(new)) == Merged(text(new), 0)


@settings(max_examples=200, deadline=None)
@given(base=LINES, yours=LINES, new=LINES)
def test_a_clean_merge_has_no_markers_and_a_conflict_has_them(
    base: list[bytes], yours: list[bytes], new: list[bytes]
) -> None:
    merged = merge(text(base), text(yours), text(new))
    marked = any(line.startswith(START) for line in merged.content.splitlines())
    assert marked == (merged.conflicts > 0)


def test_edits_in_different_places_merge_cleanly() -> None:
    base = b"# Title\n\nstep one\nstep two\nstep three\n"
    yours = b"# Title\n\nstep one\nmy project rule\nstep two\nstep three\n"
    new = b"# Title\n\nstep one\nstep two\nstep three, now checked\n"
    merged = merge(base, yours, new)
    assert merged.conflicts == 0
    assert (
        merged.content
        == b"# Title\n\nstep one\nmy project rule\nstep two\nstep three, now checked\n"
    )


def test_both_changing_one_line_is_a_conflict_with_both_sides() -> None:
    merged = merge(b"a\nold\nz\n", b"a\nmine\nz\n", b"a\ntheirs\nz\n", label="claude 0.2.0")
    assert merged.conflicts == 1
    assert merged.content == (
        b"a\n<<<<<<< yours\nmine\n=======\ntheirs\n>>>>>>> msd claude 0.2.0\nz\n"
    )


def test_crlf_files_keep_their_line_endings_and_a_missing_last_newline_glues_nothing() -> None:
    merged = merge(b"a\r\nb\r\n", b"a\r\nb\r\nmine", b"new\r\na\r\nb\r\n")
    assert merged == Merged(b"new\r\na\r\nb\r\nmine", 0)
    conflict = merge(b"a", b"mine", b"theirs")
    assert conflict.content == b"<<<<<<< yours\nmine\n=======\ntheirs\n>>>>>>> msd\n"
