"""The regions of a three-way merge (base, yours, new), as ``merge3.Merge3.merge_regions``
computes them, over the standard library's ``difflib``.

Why not the ``merge3`` package: it is GPL-2.0-or-later and msd-install is MIT, and the part we
need is this one classic algorithm (Bazaar's): the lines base shares with both sides cut the
three texts into stable regions; between two, a side equal to the base took the other's
change, and two different changes are a conflict. The tests prove it region for region equal
to ``merge3`` (a test-only dependency, not shipped) on generated texts.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from difflib import SequenceMatcher
from typing import TypeVar

T = TypeVar("T")
Region = tuple[str, int, int] | tuple[str, int, int, int, int, int, int]


def _matcher(x: Sequence[T], y: Sequence[T]) -> SequenceMatcher[T]:
    return SequenceMatcher(None, x, y, autojunk=False)  # frequent lines are lines too


def sync_regions(
    base: Sequence[T], a: Sequence[T], b: Sequence[T]
) -> list[tuple[int, int, int, int, int, int]]:
    """(base start, base end, a start, a end, b start, b end) of every run of lines that base
    shares with both sides, plus an empty one at the end."""
    amatches = _matcher(base, a).get_matching_blocks()
    bmatches = _matcher(base, b).get_matching_blocks()
    ia = ib = 0
    out: list[tuple[int, int, int, int, int, int]] = []
    while ia < len(amatches) and ib < len(bmatches):
        abase, amatch, alen = amatches[ia]
        bbase, bmatch, blen = bmatches[ib]
        lo, hi = max(abase, bbase), min(abase + alen, bbase + blen)
        if lo < hi:
            asub, bsub = amatch + (lo - abase), bmatch + (lo - bbase)
            out.append((lo, hi, asub, asub + hi - lo, bsub, bsub + hi - lo))
        if abase + alen < bbase + blen:
            ia += 1
        else:
            ib += 1
    out.append((len(base), len(base), len(a), len(a), len(b), len(b)))
    return out


def merge_regions(base: Sequence[T], a: Sequence[T], b: Sequence[T]) -> Iterator[Region]:
    """("unchanged", base lo, hi), ("same" | "a", a lo, hi), ("b", b lo, hi), or
    ("conflict", base lo, hi, a lo, hi, b lo, hi), in order."""
    iz = ia = ib = 0
    for zmatch, zend, amatch, aend, bmatch, bend in sync_regions(base, a, b):
        if amatch - ia or bmatch - ib:
            equal_a = a[ia:amatch] == base[iz:zmatch]
            equal_b = b[ib:bmatch] == base[iz:zmatch]
            if a[ia:amatch] == b[ib:bmatch]:
                yield ("same", ia, amatch)
            elif equal_a and not equal_b:
                yield ("b", ib, bmatch)
            elif equal_b and not equal_a:
                yield ("a", ia, amatch)
            else:
                yield ("conflict", iz, zmatch, ia, amatch, ib, bmatch)
            ia, ib = amatch, bmatch
        iz = zmatch
        if zend > zmatch:
            yield ("unchanged", zmatch, zend)
            iz, ia, ib = zend, aend, bend
