"""Glob matching in linear time, for patterns that come from a client.

Why not ``fnmatch``/``re``: they translate ``*`` to a backtracking ``.*``, and a pattern such as
``*a*a*a*a*a*a*a*a*a*a*b`` against a long name of ``a``s takes exponential time inside the
regex engine, which also holds the GIL, so the whole server stalls. Here:

* A **name pattern** (``*``, ``?``, ``[abc]``, ``[!a-z]``, literals) is cut at its ``*`` into
  fixed-width segments. The first segment must match at the start, the last at the end, and
  each middle one is searched leftmost-first after the previous match. Taking the leftmost
  match is always right because a ``*`` absorbs whatever lies between segments, so there is
  never a reason to go back. Each search runs a bit-parallel (shift-and) automaton over the
  name: one step per character, whatever the segment's length. Total work is linear in the
  length of the name (times a word-sized bit operation).
* A **path pattern** (one with ``/``) is cut into components, each a name pattern, except
  ``**``, which matches any number of whole components (zero included). Groups of components
  between ``**`` are placed with the same leftmost-first rule, one component at a time.
  ``**`` inside a component (``a**b``) is an ordinary ``*``, as in ``.gitignore``.

An unclosed ``[`` is a literal ``[``; ``[]`` and ``[!]`` take a leading ``]`` as a member.
"""

from __future__ import annotations

from collections.abc import Callable

Atom = Callable[[str], bool]


def _parse_class(pattern: str, i: int) -> tuple[Atom, int] | None:
    """The character class starting at ``pattern[i] == '['`` and the index after it."""
    j = i + 1
    negate = j < len(pattern) and pattern[j] == "!"
    if negate:
        j += 1
    start = j
    if j < len(pattern) and pattern[j] == "]":
        j += 1  # a leading ']' is a member
    while j < len(pattern) and pattern[j] != "]":
        j += 1
    if j >= len(pattern):
        return None
    body = pattern[start:j]
    singles: set[str] = set()
    ranges: list[tuple[str, str]] = []
    k = 0
    while k < len(body):
        if k + 2 < len(body) and body[k + 1] == "-":
            ranges.append((body[k], body[k + 2]))
            k += 3
        else:
            singles.add(body[k])
            k += 1

    def member(ch: str) -> bool:
        hit = ch in singles or any(lo <= ch <= hi for lo, hi in ranges)
        return hit != negate and ch != "/"

    return member, j + 1


class NamePattern:
    """A compiled one-component glob; ``match(name)`` is linear in ``len(name)``."""

    def __init__(self, pattern: str) -> None:
        self.segments: list[list[str | Atom | None]] = [[]]  # None = '?'
        i = 0
        while i < len(pattern):
            ch = pattern[i]
            if ch == "*":
                while i < len(pattern) and pattern[i] == "*":
                    i += 1
                self.segments.append([])
                continue
            if ch == "[":
                parsed = _parse_class(pattern, i)
                if parsed is not None:
                    self.segments[-1].append(parsed[0])
                    i = parsed[1]
                    continue
            self.segments[-1].append(None if ch == "?" else ch)
            i += 1
        self._masks = [_Masks(seg) for seg in self.segments]

    def match(self, name: str) -> bool:
        first, last = self._masks[0], self._masks[-1]
        if len(self._masks) == 1:
            return len(name) == first.width and first.fits(name, 0)
        if not first.fits(name, 0):
            return False
        pos = first.width
        for masks in self._masks[1:-1]:
            found = masks.search(name, pos)
            if found < 0:
                return False
            pos = found + masks.width
        end = len(name) - last.width
        return end >= pos and last.fits(name, end)


class _Masks:
    """Shift-and tables of one fixed-width segment (bit k set: position k accepts the char)."""

    def __init__(self, segment: list[str | Atom | None]) -> None:
        self.width = len(segment)
        self.segment = segment
        self.any_mask = 0
        self.literal: dict[str, int] = {}
        self.classes: list[tuple[Atom, int]] = []
        for k, atom in enumerate(segment):
            bit = 1 << k
            if atom is None:
                self.any_mask |= bit
            elif isinstance(atom, str):
                self.literal[atom] = self.literal.get(atom, 0) | bit
            else:
                self.classes.append((atom, bit))
        self._cache: dict[str, int] = {}

    def mask(self, ch: str) -> int:
        got = self._cache.get(ch)
        if got is None:
            got = self.literal.get(ch, 0) | (self.any_mask if ch != "/" else 0)
            for test, bit in self.classes:
                if test(ch):
                    got |= bit
            if len(self._cache) < 4096:
                self._cache[ch] = got
        return got

    def fits(self, text: str, at: int) -> bool:
        """Does the segment match ``text[at : at + width]`` exactly?"""
        if at + self.width > len(text):
            return False
        return all(self.mask(text[at + k]) >> k & 1 for k in range(self.width))

    def search(self, text: str, start: int) -> int:
        """The leftmost index >= ``start`` where the segment matches, or -1."""
        if self.width == 0:
            return start if start <= len(text) else -1
        done = 1 << (self.width - 1)
        state = 0
        for i in range(start, len(text)):
            state = ((state << 1) | 1) & self.mask(text[i])
            if state & done:
                return i - self.width + 1
        return -1


class PathPattern:
    """A compiled glob over ``/``-separated paths (see the module docstring)."""

    def __init__(self, pattern: str) -> None:
        comps = [c for c in pattern.split("/") if c != ""]
        # 'a/**' names what is inside a, not a itself
        self.trailing = bool(comps) and comps[-1] == "**"
        self.groups: list[list[NamePattern]] = [[]]
        for comp in comps:
            if comp == "**":
                if self.groups[-1] or len(self.groups) == 1:
                    self.groups.append([])
            else:
                self.groups[-1].append(NamePattern(comp))

    @staticmethod
    def _fits(group: list[NamePattern], names: list[str], at: int) -> bool:
        if at + len(group) > len(names):
            return False
        return all(p.match(names[at + k]) for k, p in enumerate(group))

    def match(self, path: str) -> bool:
        names = [c for c in path.split("/") if c != ""]
        first, last = self.groups[0], self.groups[-1]
        if len(self.groups) == 1:
            return len(names) == len(first) and self._fits(first, names, 0)
        if not self._fits(first, names, 0):
            return False
        pos = len(first)
        for group in self.groups[1:-1]:
            while pos + len(group) <= len(names) and not self._fits(group, names, pos):
                pos += 1
            if pos + len(group) > len(names):
                return False
            pos += len(group)
        end = len(names) - len(last)
        if self.trailing and end <= pos:
            return False
        return end >= pos and self._fits(last, names, end)


def compile_glob(pattern: str) -> Callable[[str], bool]:
    """A matcher for ``pattern``: a name pattern when it has no ``/``, else a path pattern."""
    if "/" in pattern:
        return PathPattern(pattern).match
    return NamePattern(pattern).match
