"""``edit_file``'s exact-text replacements and the unified diff it returns, both bounded.

A general diff (``difflib``) of two 7 MB texts after 1,000 edits takes minutes. It is not
needed: the edits say exactly which characters changed. So while the edits are applied, the
changed regions are tracked as pairs of spans (before / after), merged when they touch. The
diff is then written from those spans alone: each span is widened to whole lines, lines that
are equal at either end of a span are trimmed, spans within two context widths share a hunk.
The work is linear in the text plus the number of edits (squared at worst, and edits are
capped); the diff text is capped too (``MAX_DIFF_BYTES``), with ``truncated`` set.

The hunks are correct (applying the diff to the old text gives the new one), though not
always minimal in the way a line-matching diff would be inside a heavily edited region.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from .callguard import CallGuard
from .toolerror import ToolError

MAX_DIFF_BYTES = 256 * 1024
CONTEXT = 3


@dataclass
class Span:
    """Changed region: ``[a0, a1)`` in the old text, ``[b0, b1)`` in the current one."""

    a0: int
    a1: int
    b0: int
    b1: int


def _record(spans: list[Span], s: int, e: int, length: int) -> None:
    """Note that current-text chars ``[s, e)`` were replaced by ``length`` chars."""
    delta = length - (e - s)
    shift = 0  # current minus old position, left of the spans touched
    i = 0
    while i < len(spans) and spans[i].b1 < s:
        shift += (spans[i].b1 - spans[i].b0) - (spans[i].a1 - spans[i].a0)
        i += 1
    j = i
    while j < len(spans) and spans[j].b0 <= e:
        j += 1
    touched = spans[i:j]
    b0 = min([s, *(t.b0 for t in touched)])
    b1 = max([e, *(t.b1 for t in touched)])
    a0 = touched[0].a0 if touched and touched[0].b0 <= s else s - shift
    if touched and touched[-1].b1 >= e:
        a1 = touched[-1].a1
    else:
        inner = sum((t.b1 - t.b0) - (t.a1 - t.a0) for t in touched)
        a1 = e - shift - inner
    for later in spans[j:]:
        later.b0 += delta
        later.b1 += delta
    spans[i:j] = [Span(a0, a1, b0, b1 + delta)]


def apply_edits(
    text: str, edits: list[dict[str, str]], rel: str, guard: CallGuard
) -> tuple[str, list[Span]]:
    """Apply exact-text replacements in order (each old text must occur exactly once)."""
    spans: list[Span] = []
    for i, edit in enumerate(edits):
        guard.check()
        old, new = edit["old_text"], edit["new_text"]
        first = text.find(old)
        if first < 0:
            raise ToolError("no_match", f"edits[{i}].old_text not found in '{rel}'")
        if text.find(old, first + 1) >= 0:
            raise ToolError(
                "ambiguous_match",
                f"edits[{i}].old_text occurs more than once in '{rel}'; add context",
            )
        text = text[:first] + new + text[first + len(old) :]
        _record(spans, first, first + len(old), len(new))
    return text, spans


def _line_starts(text: str) -> list[int]:
    starts = [0]
    at = text.find("\n")
    while at >= 0:
        starts.append(at + 1)
        at = text.find("\n", at + 1)
    return starts


class _Side:
    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = _line_starts(text)
        if self.starts[-1] == len(text) and len(self.starts) > 1:
            self.starts.pop()  # a final newline does not open another line
        if not text:
            self.starts = []

    def line_of(self, pos: int) -> int:
        """Index of the line holding position ``pos`` (a position after a final newline
        opens no line: it is the line count)."""
        if pos >= len(self.text) and (not self.text or self.text.endswith("\n")):
            return len(self.starts)
        return bisect_right(self.starts, pos) - 1

    def end_line(self, pos: int) -> int:
        """Exclusive line index for a change ending at line boundary ``pos``."""
        return len(self.starts) if pos >= len(self.text) else self.line_of(pos)

    def line(self, k: int) -> str:
        end = self.starts[k + 1] if k + 1 < len(self.starts) else len(self.text)
        return self.text[self.starts[k] : end]

    def at_line_start(self, pos: int) -> bool:
        return pos == 0 or pos >= len(self.text) or self.text[pos - 1] == "\n"


def _line_groups(old: _Side, new: _Side, spans: list[Span]) -> list[list[int]]:
    """Spans as line ranges ``[la0, la1, lb0, lb1]``, merged when they share a line."""
    groups: list[list[int]] = []
    for sp in spans:
        la0, lb0 = old.line_of(sp.a0), new.line_of(sp.b0)
        if old.at_line_start(sp.a1) and new.at_line_start(sp.b1):
            la1, lb1 = old.end_line(sp.a1), new.end_line(sp.b1)  # whole lines changed
        else:  # the line holding the end is part old, part new: it changed as a whole
            la1 = min(old.line_of(sp.a1) + 1, len(old.starts))
            lb1 = min(new.line_of(sp.b1) + 1, len(new.starts))
        if groups and la0 < groups[-1][1]:
            groups[-1][1], groups[-1][3] = max(groups[-1][1], la1), max(groups[-1][3], lb1)
        else:
            groups.append([la0, la1, lb0, lb1])
    for g in groups:  # trim equal lines at both ends
        while g[0] < g[1] and g[2] < g[3] and old.line(g[0]) == new.line(g[2]):
            g[0] += 1
            g[2] += 1
        while g[0] < g[1] and g[2] < g[3] and old.line(g[1] - 1) == new.line(g[3] - 1):
            g[1] -= 1
            g[3] -= 1
    return [g for g in groups if g[0] < g[1] or g[2] < g[3]]


def _range(start: int, length: int) -> str:
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


class _Out:
    """The diff text being written, refusing to grow past ``MAX_DIFF_BYTES``."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.left = MAX_DIFF_BYTES

    def add(self, text: str) -> bool:
        self.left -= len(text.encode("utf-8", "surrogatepass"))
        if self.left < 0:
            return False
        self.parts.append(text)
        return True

    def line(self, mark: str, line: str) -> bool:
        if line.endswith("\n"):
            return self.add(mark + line)
        return self.add(f"{mark}{line}\n\\ No newline at end of file\n")


def _hunks(groups: list[list[int]]) -> list[list[list[int]]]:
    hunks: list[list[list[int]]] = []
    for g in groups:
        if hunks and g[0] - hunks[-1][-1][1] <= 2 * CONTEXT:
            hunks[-1].append(g)
        else:
            hunks.append([g])
    return hunks


def _hunk(old: _Side, new: _Side, hunk: list[list[int]], out: _Out) -> bool:
    first, last = hunk[0], hunk[-1]
    a_start = max(0, first[0] - CONTEXT)
    b_start = first[2] - (first[0] - a_start)
    a_end = min(len(old.starts), last[1] + CONTEXT)
    b_end = last[3] + (a_end - last[1])
    ok = out.add(f"@@ -{_range(a_start, a_end - a_start)} +{_range(b_start, b_end - b_start)} @@\n")
    pos = a_start
    for g in hunk:
        ok = ok and all(out.line(" ", old.line(k)) for k in range(pos, g[0]))
        ok = ok and all(out.line("-", old.line(k)) for k in range(g[0], g[1]))
        ok = ok and all(out.line("+", new.line(k)) for k in range(g[2], g[3]))
        pos = g[1]
    return ok and all(out.line(" ", old.line(k)) for k in range(pos, a_end))


def unified_diff(
    old_text: str, new_text: str, spans: list[Span], rel: str, guard: CallGuard
) -> tuple[str, bool]:
    """The diff of the edits recorded in ``spans``; True when it was cut at MAX_DIFF_BYTES
    (it then ends after the last hunk that fitted whole)."""
    old, new = _Side(old_text), _Side(new_text)
    groups = _line_groups(old, new, spans)
    if not groups:
        return "", False
    out = _Out()
    out.add(f"--- a/{rel}\n+++ b/{rel}\n")
    for hunk in _hunks(groups):
        guard.check()
        kept = len(out.parts)
        if not _hunk(old, new, hunk, out):
            return "".join(out.parts[:kept]), True
    return "".join(out.parts), False
