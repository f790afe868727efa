"""Cross-process mutual exclusion for read-modify-write cycles on ``.planning/`` files.

Parallel executors update STATE.md at the same time; without a lock the last writer silently
drops the others' fields. The lock is a file created with ``O_CREAT | O_EXCL`` (atomic on every
local filesystem), holding the owner's pid. A lock whose mtime is older than ``STALE_AFTER``
seconds belongs to a process that died mid-update and is broken. Waiters retry with jitter so
they do not wake in lock-step.
"""

from __future__ import annotations

import contextlib
import os
import random
import time
from collections.abc import Iterator
from pathlib import Path

from ..toolspec import ToolError

STALE_AFTER = 10.0  # seconds; a healthy update holds the lock for milliseconds
WAIT_LIMIT = 30.0  # seconds before giving up with a clear error


def _try_create(lock: Path) -> bool:
    try:
        fd = os.open(
            lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o644
        )
    except FileExistsError:
        return False
    except OSError as exc:
        raise ToolError("io_error", f"{lock}: cannot create lock ({exc.strerror})") from None
    try:
        os.write(fd, f"{os.getpid()}\n".encode())
    finally:
        os.close(fd)
    return True


def _break_if_stale(lock: Path, stale_after: float) -> None:
    try:
        age = time.time() - lock.stat().st_mtime
    except FileNotFoundError:
        return
    if age <= stale_after:
        return
    # Rename first, so of several waiters that all saw the stale lock only one removes it; the
    # others' rename fails and they simply retry.
    grave = lock.with_name(f"{lock.name}.stale.{os.getpid()}.{random.getrandbits(32):08x}")
    try:
        lock.rename(grave)
    except OSError:
        return
    # The renamed file might be a fresh lock taken between our stat and rename: check again.
    try:
        fresh = time.time() - grave.stat().st_mtime <= stale_after
    except FileNotFoundError:
        return
    if fresh:
        # os.link fails if someone took the lock meanwhile, so it never overwrites a holder.
        with contextlib.suppress(OSError):
            os.link(grave, lock)
    with contextlib.suppress(OSError):
        grave.unlink()


@contextlib.contextmanager
def file_lock(
    lock: Path, *, stale_after: float = STALE_AFTER, wait_limit: float = WAIT_LIMIT
) -> Iterator[None]:
    """Hold ``lock`` (an ``O_EXCL`` lock file) for the duration of the ``with`` block."""
    deadline = time.monotonic() + wait_limit
    delay = 0.005
    while not _try_create(lock):
        _break_if_stale(lock, stale_after)
        if time.monotonic() > deadline:
            raise ToolError(
                "locked", f"{lock}: still locked after {wait_limit:.0f} s (remove it if stale)"
            )
        time.sleep(delay * (0.5 + random.random()))
        delay = min(delay * 1.6, 0.1)
    try:
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            lock.unlink()
