"""The stdio framing: newline-delimited messages in, one ``write`` per message out.

The reader is bounded: a line longer than ``MAX_LINE_BYTES`` is reported once as ``Oversized``
and skipped up to the next newline, so one huge or endless line cannot exhaust memory or
desynchronise the stream. ``decode`` is strict JSON: ``NaN``, ``Infinity`` and numbers that
overflow to them are parse errors, so they never reach a tool or the audit log. The writer
is shared by the reader and the worker threads; a lock keeps each message one whole line.
"""

from __future__ import annotations

import json
import math
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    import threading
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


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of range")
    return value


def decode(line: bytes) -> Any:
    """One message, as strict JSON (ValueError or RecursionError when it is not)."""
    return json.loads(line, parse_constant=_no_constant, parse_float=_finite)


def encode(message: dict[str, Any]) -> bytes:
    """One message as one line of UTF-8.

    json.dumps escapes control characters, so a message never holds a newline of its own. Text
    goes out as UTF-8, not ``\\u`` escapes (a third of the size for non-ASCII text); a lone
    surrogate (an undecodable file name from os.fsdecode) cannot be UTF-8, so it is written
    as the JSON escape ``\\udcXX`` instead, which is exactly what ``backslashreplace`` emits.
    allow_nan=False: NaN/Infinity are not JSON and strict clients reject the whole frame.
    """
    text = json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return (text + "\n").encode("utf-8", "backslashreplace")


class Writer:
    """Writes JSON-RPC messages to the private wire descriptor (thread-safe once
    ``threaded`` was called)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._lock: threading.Lock | None = None
        self.closed = False

    def threaded(self) -> None:
        import threading

        self._lock = threading.Lock()

    def send(self, message: dict[str, Any]) -> None:
        data = encode(message)
        if self._lock is None:
            self._write(data)
            return
        with self._lock:
            self._write(data)

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            # A blocking pipe takes the whole buffer in one write; the loop only covers a
            # signal-interrupted partial write.
            written = os.write(self._fd, view)
            view = view[written:]
