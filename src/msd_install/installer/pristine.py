"""``msd-pristine.zlib``: the exact bytes msd installed in a root, kept for the next upgrade.

A three-way merge of a user's edits needs the version they edited (the *base*): the bytes msd
wrote before the upgrade. The manifest holds only their sha256, and the next version of msd
cannot render the old one, so every install keeps them, compressed, in one file beside the
manifest. It is content-addressed: each blob is found by the sha256 the manifest records for
the file, and used only if its bytes hash to it, so a damaged or edited store can only make a
base unavailable, never wrong. It is bookkeeping like the manifest (never reported as a file
of msd's): the manifest records its hash (``pristine``), uninstall removes it.

Format: zlib of ``<sha256 hex> <length>\\n<bytes>`` per blob, sorted by hash. The compressed
bytes depend on the zlib build (zlib-ng differs), so a rerun compares what the store holds,
not its bytes: an unchanged install rewrites nothing.
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Iterable, Iterator, Mapping

from .manifestcheck import STORE_NAME as STORE_NAME  # named there, beside the manifest

MAX_STORE = 64 << 20  # uncompressed: MSD Core is ~1 MB; a zip bomb stops here
_LEVEL = 1  # level 6: twice the time (~20 ms per runtime) for a 20% smaller store


def pack(contents: Iterable[bytes]) -> bytes:
    """The uncompressed store holding ``contents`` (each once, sorted by hash)."""
    return pack_digests({hashlib.sha256(c).hexdigest(): c for c in contents})


def pack_digests(blobs: Mapping[str, bytes]) -> bytes:
    """``pack`` of contents already hashed: ``blobs`` maps each one's sha256 to its bytes
    (an install hashes every file once, for its manifest record, and passes that here)."""
    return b"".join(_pieces(blobs))


def _pieces(blobs: Mapping[str, bytes]) -> Iterator[bytes]:
    for digest in sorted(blobs):
        yield f"{digest} {len(blobs[digest])}\n".encode()
        yield blobs[digest]


def holds(stored: bytes, blobs: Mapping[str, bytes]) -> bool:
    """Does ``stored`` (a store file's bytes, already known to be one msd-install wrote: its
    sha256 is the ``pristine`` of a manifest of this user's) hold exactly ``blobs``, without
    inflating it? A zlib stream ends with the Adler-32 of what it holds; it is compared with
    that of ``pack_digests(blobs)``. A store is verified on every read, so a wrong yes (two
    stores of msd's whose packed bytes collide) can only keep a base unavailable, never wrong;
    the caller also checks that the manifest's records name the same blobs."""
    if len(stored) < 6 or stored[0] & 0x0F != 8:  # not a deflate zlib stream
        return False
    value = 1
    for piece in _pieces(blobs):
        value = zlib.adler32(piece, value)
    return stored[-4:] == value.to_bytes(4, "big")


def compress(packed: bytes) -> bytes:
    return zlib.compress(packed, _LEVEL)


def unpack(stored: bytes | None) -> bytes | None:
    """The uncompressed store from its file's bytes; None when absent, damaged or too big."""
    if stored is None:
        return None
    inflate = zlib.decompressobj()
    try:
        packed = inflate.decompress(stored, MAX_STORE + 1)
    except zlib.error:
        return None
    if len(packed) > MAX_STORE or inflate.unconsumed_tail or not inflate.eof:
        return None
    return packed


def blobs(packed: bytes | None) -> dict[str, bytes]:
    """Every blob of an uncompressed store whose bytes hash to its name (others are dropped:
    a store is read from disk and proves nothing by itself)."""
    out: dict[str, bytes] = {}
    if packed is None:
        return out
    at = 0
    while at < len(packed):
        end = packed.find(b"\n", at, at + 90)
        head = packed[at:end].split(b" ") if end != -1 else []
        if len(head) != 2 or not head[1].isdigit():
            break  # damaged from here on: what was read so far still proves itself
        size = int(head[1])
        body = packed[end + 1 : end + 1 + size]
        digest = head[0].decode("ascii", "replace")
        if len(body) == size and hashlib.sha256(body).hexdigest() == digest:
            out[digest] = body
        at = end + 1 + size
    return out
