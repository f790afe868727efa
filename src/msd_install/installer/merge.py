"""Three-way merge of a user's edits (``diff3``: the ``merge3`` algorithm): base (what msd
installed before), yours, and the new version. Lines are bytes with their endings, so nothing
is re-encoded.

Every region of the merge either takes your lines, or is one where your lines equal the
base's (only msd changed it), or is a conflict that shows both sides between markers: so a
line you added is never dropped (tests/installer/test_reapply_merge.py proves it).
"""

from __future__ import annotations

from dataclasses import dataclass

from .diff3 import merge_regions

START, MIDDLE, END = b"<<<<<<< yours", b"=======", b">>>>>>> msd"


@dataclass(frozen=True)
class Merged:
    content: bytes
    conflicts: int  # regions changed on both sides, written between markers


def merge(base: bytes, yours: bytes, new: bytes, *, label: str = "") -> Merged:
    """``new`` with your changes since ``base``; conflicts between markers (``label`` names
    the new version on the closing marker)."""
    z = base.splitlines(keepends=True)
    a, b = yours.splitlines(keepends=True), new.splitlines(keepends=True)
    newline = b"\r\n" if any(x.endswith(b"\r\n") for x in a[:1] + b[:1]) else b"\n"
    end = END + (b" " + label.encode() if label else b"")
    chunks: list[bytes] = []
    conflicts = 0
    for region in merge_regions(z, a, b):
        kind, lo, hi, *sides = region
        if kind == "unchanged":
            chunks.append(b"".join(z[lo:hi]))
        elif kind in ("same", "a"):
            chunks.append(b"".join(a[lo:hi]))
        elif kind == "b":
            chunks.append(b"".join(b[lo:hi]))
        else:  # "conflict": (kind, zlo, zhi, alo, ahi, blo, bhi)
            conflicts += 1
            alo, ahi, blo, bhi = sides
            yours_part = _closed(b"".join(a[alo:ahi]), newline)
            new_part = _closed(b"".join(b[blo:bhi]), newline)
            chunks.append(
                START + newline + yours_part + MIDDLE + newline + new_part + end + newline
            )
    return Merged(_join(chunks, newline), conflicts)


def _closed(text: bytes, newline: bytes) -> bytes:
    return text if not text or text.endswith((b"\n", b"\r")) else text + newline


def _join(chunks: list[bytes], newline: bytes) -> bytes:
    """The chunks in order; a chunk whose last line has no ending (the end of one side) is
    given one before more text follows, so two lines never run together."""
    out = bytearray()
    for chunk in chunks:
        if chunk and out and not out.endswith((b"\n", b"\r")):
            out += newline
        out += chunk
    return bytes(out)
