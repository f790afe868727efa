"""A lock file in the runtime root so that two msd-install runs never interleave.

POSIX: ``flock`` on ``<root>/.msd-install.lock`` (released by the kernel if the process dies,
so there are no stale locks); the file is removed on release so that no trace stays behind.
Elsewhere: ``O_EXCL`` creation with the holder's pid, a lock whose pid is gone is taken over.
A second run waits up to ``timeout`` seconds, then fails with ``LockTimeoutError``.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

from ..errors import LockTimeoutError

LOCK_NAME = ".msd-install.lock"


@contextlib.contextmanager
def hold(root: Path, timeout: float = 30.0) -> Iterator[Path]:
    path = root / LOCK_NAME
    deadline = time.monotonic() + timeout
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        with _hold_excl(path, deadline):
            yield path
        return
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
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
            time.sleep(0.05)
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
