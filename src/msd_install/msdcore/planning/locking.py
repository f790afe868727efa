"""Cross-process mutual exclusion for read-modify-write cycles on ``.planning/`` files.

Parallel executors update STATE.md at the same time; without a lock the last writer silently
drops the others' fields. The lock is a file created with ``O_CREAT | O_EXCL | O_NOFOLLOW``
(atomic on every local filesystem), holding the owner's pid. A lock whose mtime is older than
``STALE_AFTER`` seconds belongs to a process that died mid-update and is broken. Waiters retry
with jitter so they do not wake in lock-step, and give up when their call is cancelled or
out of time.

Everything happens by name inside one descriptor of the lock's directory, on the entry
itself: whatever sits at the lock's name (a file, or a symlink someone moved there) is
renamed, linked and removed as an entry, never through what it points to, and on release the
lock is removed only if it is still the file this process created.
"""

from __future__ import annotations

import contextlib
import os
import random
import time
from collections.abc import Iterator

from ..confine import Target
from ..safeio import dir_fd, lstat_at
from ..toolspec import ToolError
from .project import Project

STALE_AFTER = 10.0  # seconds; a healthy update holds the lock for milliseconds
WAIT_LIMIT = 30.0  # seconds before giving up with a clear error
_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def _try_create(dfd: int, name: str, label: str) -> tuple[int, int] | None:
    """The (dev, inode) of the lock file just created, or None if the name is taken."""
    try:
        fd = os.open(name, _FLAGS, 0o644, dir_fd=dfd)
    except FileExistsError:
        return None
    except OSError as exc:
        raise ToolError("io_error", f"{label}: cannot create lock ({exc.strerror})") from None
    try:
        os.write(fd, f"{os.getpid()}\n".encode())
        st = os.fstat(fd)
    finally:
        os.close(fd)
    return st.st_dev, st.st_ino


def _break_if_stale(dfd: int, name: str, stale_after: float) -> None:
    st = lstat_at(dfd, name)
    if st is None or time.time() - st.st_mtime <= stale_after:
        return
    # Rename first, so of several waiters that all saw the stale lock only one removes it; the
    # others' rename fails and they simply retry.
    grave = f"{name}.stale.{os.getpid()}.{random.getrandbits(32):08x}"
    try:
        os.rename(name, grave, src_dir_fd=dfd, dst_dir_fd=dfd)
    except OSError:
        return
    # The renamed entry might be a fresh lock taken between our lstat and rename: check again.
    moved = lstat_at(dfd, grave)
    if moved is not None and time.time() - moved.st_mtime <= stale_after:
        # link() fails if someone took the lock meanwhile, so it never replaces a holder.
        with contextlib.suppress(OSError):
            os.link(grave, name, src_dir_fd=dfd, dst_dir_fd=dfd, follow_symlinks=False)
    with contextlib.suppress(OSError):
        os.unlink(grave, dir_fd=dfd)


@contextlib.contextmanager
def file_lock(
    project: Project,
    lock: Target,
    *,
    stale_after: float = STALE_AFTER,
    wait_limit: float = WAIT_LIMIT,
) -> Iterator[None]:
    """Hold ``lock`` (an ``O_EXCL`` lock file) for the duration of the ``with`` block."""
    label = project.rel(lock)
    deadline = time.monotonic() + wait_limit
    delay = 0.005
    try:
        dfd = dir_fd(project.ctx.root, lock.parts[:-1])
    except OSError as exc:
        raise ToolError(
            "io_error", f"{label}: cannot open its directory ({exc.strerror})"
        ) from None
    try:
        name = lock.parts[-1]
        while (mine := _try_create(dfd, name, label)) is None:
            _break_if_stale(dfd, name, stale_after)
            project.ctx.guard.check()
            if time.monotonic() > deadline:
                raise ToolError(
                    "locked", f"{label}: still locked after {wait_limit:.0f} s (remove it if stale)"
                )
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 1.6, 0.1)
        try:
            yield
        finally:
            st = lstat_at(dfd, name)
            if st is not None and (st.st_dev, st.st_ino) == mine:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(name, dir_fd=dfd)
    finally:
        os.close(dfd)
