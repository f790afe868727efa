"""The stdout guard: the only code that runs before the server's own imports.

A stray write to fd 1 (a ``print``, a C library, a child process) would corrupt the JSON-RPC
stream, and a child that reads fd 0 would steal requests. So the first act of every entry
point is to move the protocol to private close-on-exec copies of fds 0 and 1, point fd 1 (and
``sys.stdout``) at stderr and fd 0 at the null device. Children inherit only the harmless fds.
Only ``os``, ``sys`` and ``fcntl`` are imported here, so nothing can print before the claim.
"""

from __future__ import annotations

import os
import sys


def _private_copy(fd: int) -> int:
    """Duplicate ``fd`` to a descriptor >= 3 that child processes do not inherit."""
    try:
        import fcntl
    except ImportError:  # Windows: no F_DUPFD_CLOEXEC; os.dup makes a non-inheritable fd there
        copy = os.dup(fd)
        if copy <= 2:  # pragma: no cover - only when fds 0-2 were closed at start
            raise OSError("stdio guard: no free descriptor above 2") from None
        return copy
    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)


def claim_stdio() -> tuple[int, int]:
    """Take the wire away from fds 0 and 1; return ``(wire_in_fd, wire_out_fd)``.

    Whatever was buffered in ``sys.stdout`` before the call is flushed to stderr afterwards, so
    it cannot reach the client either.
    """
    wire_in = _private_copy(0)
    wire_out = _private_copy(1)
    os.dup2(2, 1)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    if sys.stdout is not None:
        sys.stdout.flush()
    sys.stdout = sys.stderr
    return wire_in, wire_out
