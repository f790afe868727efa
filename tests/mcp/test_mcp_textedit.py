"""edit_file's diff is written from the edited spans, not by diffing two texts: it must still
be a correct unified diff (applying it to the old text gives the new one, hunk headers count
right), for any sequence of edits hypothesis finds, and stay bounded on huge edits."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from msd_install.msdcore.callguard import CallGuard
from msd_install.msdcore.textedit import MAX_DIFF_BYTES, apply_edits, unified_diff


def apply_patch(old: str, diff: str) -> str:
    """A strict applier: context and removed lines must match, header counts must agree."""
    lines = old.splitlines(keepends=True)
    out: list[str] = []
    pos = 0
    body = diff.splitlines(keepends=True)[2:]
    i = 0
    while i < len(body):
        head = body[i].split()
        assert head[0] == "@@" and head[3] == "@@", body[i]
        a_start, _, a_len = head[1][1:].partition(",")
        b_len = int(head[2].partition(",")[2] or 1)
        start = int(a_start) - (1 if int(a_len or 1) else 0)
        out.extend(lines[pos:start])
        pos = start
        seen_a = seen_b = 0
        i += 1
        while i < len(body) and not body[i].startswith("@@"):
            mark, text = body[i][0], body[i][1:]
            no_eol = i + 1 < len(body) and body[i + 1].startswith("\\ No newline")
            if no_eol:
                text = text[:-1]
            if mark in " -":
                assert lines[pos] == text
                pos += 1
                seen_a += 1
            if mark in " +":
                out.append(text)
                seen_b += 1
            i += 2 if no_eol else 1
        assert (seen_a, seen_b) == (int(a_len or 1), b_len)
    return "".join(out + lines[pos:])


@st.composite
def edited(draw: st.DrawFn) -> tuple[str, list[dict[str, str]], str]:
    text = draw(st.text("ab\nc", max_size=80))
    current, edits = text, []
    for _ in range(draw(st.integers(1, 6))):
        if not current:
            break
        s = draw(st.integers(0, len(current) - 1))
        e = min(len(current), s + draw(st.integers(1, 8)))
        old = current[s:e]
        if current.find(old, current.find(old) + 1) >= 0:
            continue
        new = draw(st.text("ab\nXY", max_size=8))
        edits.append({"old_text": old, "new_text": new})
        current = current[:s] + new + current[e:]
    return text, edits, current


@settings(max_examples=1500, deadline=None)
@given(edited())
def test_the_diff_turns_the_old_text_into_the_new(
    case: tuple[str, list[dict[str, str]], str],
) -> None:
    text, edits, expected = case
    after, spans = apply_edits(text, edits, "f", CallGuard())
    assert after == expected
    diff, cut = unified_diff(text, after, spans, "f", CallGuard())
    assert not cut
    assert (apply_patch(text, diff) if diff else text) == after


def test_a_thousand_edits_make_a_bounded_diff_quickly() -> None:
    text = "".join(f"line \u00a7{i}\u00a7 some filler text, 55 characters\n" for i in range(30_000))
    edits = [
        {"old_text": f"line \u00a7{i * 30}\u00a7", "new_text": f"LINE \u00a7{i * 30}\u00a7"}
        for i in range(1000)
    ]
    after, spans = apply_edits(text, edits, "big.txt", CallGuard())
    started = time.monotonic()
    diff, cut = unified_diff(text, after, spans, "big.txt", CallGuard())
    assert time.monotonic() - started < 5  # difflib took minutes on the 7 MB version
    assert cut and len(diff.encode()) <= MAX_DIFF_BYTES
    assert apply_patch(text, diff).count("LINE ") == diff.count("\n+LINE ")
