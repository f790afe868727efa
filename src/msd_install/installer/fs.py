"""The one writer: atomic file writes inside a transaction that can put the tree back.

Every byte msd-install puts on disk goes through ``Transaction``. Before touching a path it
keeps what was there (bytes and mode, or absence); ``rollback`` restores all of it in reverse
order, so any exception or Ctrl-C leaves the exact prior tree. A write is temp file in the
same directory + fsync + rename (+ fsync of the directory), keeping the mode of a file it
replaces. A symlinked config file (dotfile managers) is written through, not replaced.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


def sha256_bytes(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def real_target(path: Path) -> Path:
    """Where a write to ``path`` must land: through a symlink, never replacing it."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def atomic_write(
    path: Path, content: bytes, mode: int | None = None, *, durable: bool = True
) -> None:
    """Temp file + rename. ``durable=False`` skips the fsyncs (the caller syncs in bulk)."""
    path = real_target(path)
    if mode is None:
        try:
            mode = path.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o644
    tmp = path.with_name(f".{path.name}.msd-tmp.{os.getpid()}.{os.urandom(4).hex()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        view = memoryview(content)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        if hasattr(os, "fchmod"):
            os.fchmod(fd, mode)
        if durable:
            os.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    os.close(fd)
    try:
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    if durable:
        fsync_dir(path.parent)


def fsync_dir(path: Path) -> None:
    if os.name != "posix":
        return
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@dataclass(frozen=True)
class _Prior:
    path: Path
    content: bytes | None  # None: did not exist
    mode: int


class InjectedFaultError(RuntimeError):
    """Raised by a test's fault hook to simulate a crash after the k-th write."""


class Transaction:
    """Collects undo information for every mutation; ``rollback`` restores the prior tree."""

    def __init__(self, fault: Callable[[int], None] | None = None) -> None:
        self._undo: list[Callable[[], None]] = []
        self._seen: set[Path] = set()
        self._fault = fault
        self._unsynced: list[Path] = []
        self.mutations = 0

    def _tick(self) -> None:
        self.mutations += 1
        if self._fault is not None:
            self._fault(self.mutations)

    def _remember(self, path: Path) -> None:
        if path in self._seen:
            return
        self._seen.add(path)
        if path.is_symlink():  # a link is put back as a link, never read through
            target = str(path.readlink())

            def relink() -> None:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
                path.symlink_to(target)

            self._undo.append(relink)
            return
        try:
            st = path.stat()
            prior = _Prior(path, path.read_bytes(), st.st_mode & 0o7777)
        except FileNotFoundError:
            prior = _Prior(path, None, 0)

        def undo() -> None:
            if prior.content is None:
                with contextlib.suppress(FileNotFoundError):
                    prior.path.unlink()
            else:
                atomic_write(prior.path, prior.content, prior.mode)

        self._undo.append(undo)

    def write(self, path: Path, content: bytes, mode: int | None = None) -> None:
        """Replacing a file is durable at once; new files are synced in bulk by ``flush``.

        One fsync per new file (plus one per directory) made a 150-file install spend most
        of its time in fsync; a single ``os.sync`` before the manifest is written gives the
        same guarantee that matters: the manifest never lists a file whose bytes may be lost.
        """
        target = real_target(path)
        existed = target.exists()
        self._remember(target)
        self._tick()
        atomic_write(target, content, mode, durable=existed)
        if not existed:
            self._unsynced.append(target)

    def flush(self) -> None:
        """Make every file written so far durable."""
        if not self._unsynced:
            return
        if hasattr(os, "sync"):
            os.sync()
        else:  # pragma: no cover - Windows
            for path in self._unsynced:
                with open(path, "rb+") as handle:
                    os.fsync(handle.fileno())
        self._unsynced.clear()

    def remove(self, path: Path) -> None:
        self._remember(path)
        self._tick()
        path.unlink()

    def makedirs(self, path: Path) -> list[Path]:
        """Create ``path`` and missing parents; returns the directories it created."""
        missing: list[Path] = []
        probe = path
        while not probe.exists():
            missing.append(probe)
            if probe.parent == probe:
                break
            probe = probe.parent
        created: list[Path] = []
        for directory in reversed(missing):
            self._tick()
            try:
                directory.mkdir()
            except FileExistsError:
                if directory.is_dir():  # another run made it in between: not ours to remove
                    continue
                raise
            created.append(directory)
            self._undo.append(functools.partial(_rmdir_quiet, directory))
        return created

    def symlink(self, path: Path, target: str) -> None:
        self._remember(path)
        self._tick()
        path.symlink_to(target)

    def rmdir(self, path: Path) -> bool:
        """Remove ``path`` if it is an empty directory; True if removed."""
        if path.is_symlink():  # the user moved it elsewhere and linked it back: theirs now
            return False
        try:
            if any(path.iterdir()):
                return False
        except FileNotFoundError:
            return False
        mode = path.stat().st_mode & 0o7777
        self._tick()
        path.rmdir()

        def undo() -> None:
            path.mkdir(exist_ok=True)
            path.chmod(mode)

        self._undo.append(undo)
        return True

    def rollback(self) -> None:
        errors: list[BaseException] = []
        while self._undo:
            undo = self._undo.pop()
            try:
                undo()
            except OSError as exc:  # keep going: put back as much as possible
                errors.append(exc)
        if errors:
            raise errors[0]

    def commit(self) -> None:
        self._undo.clear()


def _rmdir_quiet(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError, OSError):
        path.rmdir()
