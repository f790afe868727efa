"""A lock file in the runtime root so that two msd-install runs never interleave.

POSIX: ``flock`` on ``<root>/.msd-install.lock`` (released by the kernel if the process dies,
so there are no stale locks); the file is removed on release so that no trace stays behind.
Elsewhere: ``O_EXCL`` creation with the holder's pid, a lock whose pid is gone is taken over.
A second run waits up to ``timeout`` seconds, then fails with ``LockTimeoutError``.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path

from ..errors import FileAccessError, LockTimeoutError
from . import owners

LOCK_NAME = ".msd-install.lock"


@contextlib.contextmanager
def hold(root: Path, timeout: float = 30.0, poll: float = 0.05) -> Iterator[Path]:
    """``poll``: seconds between two tries while another run holds it."""
    path = root / LOCK_NAME
    deadline = time.monotonic() + timeout
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        with _hold_excl(path, deadline):
            yield path
        return
    while True:
        fd = _open(path)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            if time.monotonic() >= deadline:
                raise LockTimeoutError(
                    "another msd-install run is working on this directory",
                    path=root,
                    hint=f"wait for it to finish; the lock is {path.name}",
                ) from None
            time.sleep(poll)
            continue
        # The holder before us may have unlinked the file after we opened it: then our lock
        # is on an orphan inode and a third run could lock a new file. Retry in that case.
        try:
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if not same:
            os.close(fd)
            continue
        try:
            os.write(fd, f"{os.getpid()}\n".encode())
            yield path
        finally:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            os.close(fd)
        return


def busy(root: Path) -> bool:
    """Another run holds the lock of ``root`` now (its run is under way there). Never
    creates the lock file; False where there is no ``flock`` or the file cannot be opened."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        return False
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(root / LOCK_NAME, flags | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)  # let go at once, with the descriptor
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
    return False


def _open(path: Path) -> int:
    # never through a link: a lock file planted as a symlink (a cloned project) would have
    # our pid written over the first bytes of whatever it points at; nor into a hard link
    # (the same bytes under another name), a FIFO or a device
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    flags |= getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags, 0o600)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _not_ours(path, "is a symlink", "remove the link") from None
        raise
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
        os.close(fd)
        what = "has other names (a hard link)" if stat.S_ISREG(st.st_mode) else "is not a file"
        raise _not_ours(path, what)
    # a root run killed while holding it leaves it behind: the user must still open it
    owners.give(fd, owners.for_new(os.stat(path.parent)), path)
    return fd


def _not_ours(path: Path, what: str, fix: str = "remove it") -> FileAccessError:
    return FileAccessError(
        f"{what}; msd-install only uses a lock file of its own",
        path=path,
        hint=f"{fix}; nothing was changed",
    )


@contextlib.contextmanager
def _hold_excl(path: Path, deadline: float) -> Iterator[None]:  # pragma: no cover - Windows
    while True:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            break
        except FileExistsError:
            if _stale(path):
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
                continue
            if time.monotonic() >= deadline:
                raise LockTimeoutError(
                    "another msd-install run is working on this directory", path=path.parent
                ) from None
            time.sleep(0.05)
    try:
        os.write(fd, f"{os.getpid()}\n".encode())
        os.close(fd)
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def _stale(path: Path) -> bool:  # pragma: no cover - Windows
    try:
        pid = int(path.read_text().strip() or "0")
    except (OSError, ValueError):
        return False
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False
