"""The stdio framing: newline-delimited messages in, one ``write`` per message out.

The reader is bounded: a line longer than ``MAX_LINE_BYTES`` is reported once as ``Oversized``
and skipped up to the next newline, so one huge or endless line cannot exhaust memory or
desynchronise the stream.
"""

from __future__ import annotations

import json
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

MAX_LINE_BYTES = 4 * 1024 * 1024
_CHUNK = 64 * 1024


class Oversized:
    """A line was longer than the limit; its bytes were dropped.

    A slotted class rather than a frozen dataclass: dataclasses is a costly import on the
    start-up path."""

    __slots__ = ("size",)

    def __init__(self, size: int) -> None:
        self.size = size


def read_lines(fd: int, max_line: int = MAX_LINE_BYTES) -> Iterator[bytes | Oversized]:
    """Yield each complete line from ``fd`` (without its newline) until end of input.

    A final line without a newline is still yielded: a client that closes stdin right after
    its last request deserves an answer.
    """
    buf = bytearray()
    skipping = False  # inside an oversized line, discarding until the next newline
    dropped = 0
    while True:
        chunk = os.read(fd, _CHUNK)
        if not chunk:
            break
        start = 0
        while True:
            nl = chunk.find(b"\n", start)
            piece = chunk[start:] if nl < 0 else chunk[start:nl]
            if skipping:
                dropped += len(piece)
            elif len(buf) + len(piece) > max_line:
                skipping, dropped = True, len(buf) + len(piece)
                buf.clear()
            else:
                buf += piece
            if nl < 0:
                break
            if skipping:
                yield Oversized(dropped)
                skipping, dropped = False, 0
            else:
                yield bytes(buf)
                buf.clear()
            start = nl + 1
    if skipping:
        yield Oversized(dropped)
    elif buf:
        yield bytes(buf)


class Writer:
    """Writes JSON-RPC messages to the private wire descriptor."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def send(self, message: dict[str, Any]) -> None:
        # json.dumps escapes control characters, so a message never holds a newline of its own:
        # one message is exactly one line. ASCII output keeps undecodable file names (lone
        # surrogates from os.fsdecode) representable instead of failing to encode.
        # allow_nan=False: NaN/Infinity are not JSON and strict clients reject the whole frame.
        text = json.dumps(message, separators=(",", ":"), allow_nan=False)
        data = (text + "\n").encode("ascii")
        view = memoryview(data)
        while view:
            # A blocking pipe takes the whole buffer in one write; the loop only covers a
            # signal-interrupted partial write.
            written = os.write(self._fd, view)
            view = view[written:]
