"""A chain of literal replacements, applied in order, that skips the steps it can prove idle.

``Literals(pairs).run(text, first, last, known)`` is exactly ``text.replace(old, new)`` for the
pairs ``first`` to ``last`` one after the other (a later pair may match text an earlier one
produced; pairs may overlap). A dialect's conversion has up to ~25 pairs and each
``str.replace`` scans the whole text, though most texts hold none of the needles: that was
three quarters of a plan. Here a step is skipped only when its needle is known to be absent
from the text as it is at that step:

- Each needle is watched through its rarest character (``_rarity``), its gate. A gate missing
  from the text (one ``memchr``, ~10x faster than a substring search) proves every needle
  containing it absent. A gate that is rare in prose (``_COMMON`` holds the frequent ones) is
  followed to each occurrence, where ``startswith`` tells which needles of the gate's group
  start there: their presence is then known exactly. A frequent gate that is present proves
  nothing; the needle's next two rarest characters are looked for (a present character is
  found fast), and if both are there too the step replaces, a scan it would do anyway.
- ``known`` (needle -> absent?) describes the current text. When a step changes the text,
  only a needle that can overlap the inserted ``new`` (``may_create``: a suffix of it is a
  prefix of ``new``, or the reverse, or one holds the other) may have appeared: it is
  forgotten, everything else stays true. After any other change (a regex substitution) the
  caller clears ``known``: what a needle's absence is then is found again where needed
  (forgetting only what the substitutions inserted could make was measured no faster).

A text shorter than ``Literals.short`` takes the plain chain: on real prose most gates are
present, and the probes pay only on longer texts. ``tests/runtimes/test_convert_fast.py`` holds
the chain equal to plain ``str.replace`` calls on generated texts for every runtime's dialect.
"""

from __future__ import annotations

from collections.abc import Sequence

# Characters of Markdown prose from the most to the least frequent (counted on the payload's
# own texts). Only speed depends on it: which character of a needle is looked for.
_ORDER = (
    " etsanoirdh\nclpm-u.`fgwy/,kbv><:*|N\"#TEARxS()CM_IPOD;Uqj3FL[]1~W='G0Y2{}HV!BKJ4@X?Q5$%z\\"
    "+6789^&Z"
)
# at or above ~0.1% of prose characters: following each occurrence (~0.2 us of Python) would
# cost more than a search of the whole text (~0.3 ns a character)
_COMMON = frozenset(_ORDER[: _ORDER.index("L") + 1])


# characters a substring search scans (~0.3 ns each) in the time Python follows one occurrence
# of a gate (~0.3 us): a gate is followed through at most len(text) / _FOLLOW occurrences per
# needle of its group, no more than the group's own searches would cost, then the replaces
# are left to search
_FOLLOW = 1024


def _rarity(char: str) -> int:
    rank = _ORDER.find(char)
    return len(_ORDER) if rank < 0 else rank


def may_create(needle: str, new: str) -> bool:
    """Can inserting ``new`` anywhere make ``needle`` appear where it was not? Only if an
    occurrence overlaps ``new`` (or straddles the join, when ``new`` is empty)."""
    if not new or needle in new or new in needle:
        return True
    m = len(needle)
    for k in range(1, min(m, len(new) + 1)):
        if new.startswith(needle[m - k :]) or new.endswith(needle[:k]):
            return True
    return False


class Literals:
    """``pairs`` (old, new), compiled once: each needle's gate, and for each step the needles
    its ``new`` may create."""

    # below this length (in characters) the plain replaces: on real prose most gates are present,
    # and a probe (~0.3 us of Python) pays only for texts of a few KB (measured on the payload)
    short = 4096

    def __init__(self, pairs: Sequence[tuple[str, str]]) -> None:
        self.pairs = tuple(pairs)
        needles = {old for old, _ in self.pairs if old}
        # each needle's three rarest characters, the rarest (its gate) first
        self._rare = {n: sorted(set(n), key=_rarity, reverse=True)[:3] for n in needles}
        groups: dict[str, list[tuple[str, int]]] = {}
        for needle, rare in self._rare.items():
            groups.setdefault(rare[0], []).append((needle, needle.index(rare[0])))
        self._groups = {gate: tuple(group) for gate, group in groups.items()}
        self._created = tuple(
            tuple(n for n in needles if may_create(n, new)) for _, new in self.pairs
        )

    def __len__(self) -> int:
        return len(self.pairs)

    def run(self, text: str, first: int, last: int, known: dict[str, bool]) -> str:
        """``text`` after the pairs ``first`` to ``last - 1``; ``known`` is kept true of it."""
        if len(text) < self.short:
            for old, new in self.pairs[first:last]:
                text = text.replace(old, new)
            known.clear()
            return text
        for i in range(first, last):
            old, new = self.pairs[i]
            if old:
                absent = known.get(old)
                if absent is None:
                    absent = self._probe(text, old, known)
                if absent:
                    continue
            out = text.replace(old, new)
            if out is not text:  # str.replace returns the text itself when it finds nothing
                text = out
                if old:
                    for needle in self._created[i]:
                        known.pop(needle, None)
                else:
                    known.clear()
        return text

    def _probe(self, text: str, needle: str, known: dict[str, bool]) -> bool:
        """Is ``needle`` provably absent from ``text``? Records what it learns in ``known``
        (False: maybe present, the replace will look)."""
        rare = self._rare[needle]
        group = self._groups[rare[0]]
        at = text.find(rare[0])
        if at < 0:
            for other, _ in group:
                known[other] = True
            return True
        if rare[0] in _COMMON:
            # a frequent gate proves nothing; the needle's next rarest characters may
            absent = False
            for char in rare[1:]:
                if char not in text:
                    absent = True
                    break
            known[needle] = absent
            return absent
        present: set[str] = set()
        for _ in range(len(group) * len(text) // _FOLLOW + 1):
            for other, offset in group:
                if at >= offset and text.startswith(other, at - offset):
                    present.add(other)
            at = text.find(rare[0], at + 1)
            if at < 0 or len(present) == len(group):
                break
        else:  # a text full of this character: leave it to the replace
            for other, _ in group:
                known[other] = False
            return False
        for other, _ in group:
            known[other] = other not in present
        return needle not in present
