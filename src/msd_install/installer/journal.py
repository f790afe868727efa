"""The intent journal: what a run is about to change, on disk before the change is made.

The transaction's undo log (``fs.Transaction``) lives in memory: it puts the tree back after
an exception or Ctrl-C, but not after a SIGKILL, a power cut or an OOM kill. So every real
run also writes ``<root>/.msd-journal/``: ``intent`` (one JSON object per line, appended and
fsynced before each change) and a copy of every file's previous bytes (``<n>.bak``, fsynced
before the file is touched). Each line says how to undo one change:

* ``{"op": "file", "path": P, "was": "absent"}``: remove what is at P;
* ``{"op": "file", "path": P, "was": "file", "backup": "3.bak", "mode": 420, "sha256": H}``;
  with ``"moved": true`` the backup is the file itself, renamed into the journal by a removal
  right after the line is written: absent if the run died before the rename;
* ``{"op": "file", "path": P, "was": "link", "target": T}``: the symlink again;
* ``{"op": "mkdir", "path": P}`` (remove if empty) and ``{"op": "rmdir", "path": P,
  "mode": M}`` (make again).

P is relative to the root (``../.claude.json`` for a config file kept beside it); the first
line is a header (verb, pid, start time). The journal is removed once the run's changes are
all made (or all rolled back in memory): one that is still there was left by a run that
died, and ``recovery`` undoes it, in reverse order, before the next run does anything.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import Any

from .dirfd import DIR_FD, Spot
from .fs import fsync_dir
from .interrupts import atomically
from .manifestcheck import JOURNAL_DIR, rel_of

INTENT = "intent"
FORMAT = 1


class Journal:
    """The journal of one run in ``root`` (which the run holds the lock of)."""

    def __init__(
        self, root: Path, verb: str, made: tuple[Path, ...] = (), manifest: str = ""
    ) -> None:
        self.root = root
        self.dir = root / JOURNAL_DIR
        self._count = 0
        self._fd: int | None = None
        self._head = (verb, made, manifest)
        if made:  # the root and parents made before the lock could be taken: undo after a crash
            self._open()

    def _open(self) -> int:
        """The journal is made before the run's first change, not before: a run with nothing
        to change (a reinstall of the same version) writes nothing at all."""
        if self._fd is not None:
            return self._fd
        self.dir.mkdir(0o700)
        fsync_dir(self.root)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | getattr(os, "O_CLOEXEC", 0)
        self._fd = os.open(self.dir / INTENT, flags | getattr(os, "O_NOFOLLOW", 0), 0o600)
        fsync_dir(self.dir)
        verb, made, manifest = self._head
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime())
        head = {"msd_journal": FORMAT, "verb": verb, "pid": os.getpid(), "started": stamp}
        if manifest:  # a pack's run (``--payload``): the manifest a recovery settles
            head["manifest"] = manifest
        self._append(head)
        for directory in made:  # the root and parents made before the lock could be taken
            self._append({"op": "mkdir", "path": rel_of(self.root, directory)})
        return self._fd

    def file(self, spot: Spot, was: os.stat_result | None, content: bytes | None) -> None:
        """Before the first change of the file at ``spot``: what was there (a removal moves
        the file itself into the journal where it can: ``moving``)."""
        self._open()
        if was is None:  # most lines of an install: one ``json.dumps`` less each
            self._write(absent_line(self._rel(spot)))  # not synced alone: see ``_append``
            return
        entry: dict[str, Any] = {"op": "file", "path": self._rel(spot)}
        if content is None:
            entry.update(was="link", target=os.readlink(spot.name, dir_fd=spot.fd))
        else:
            import hashlib

            self._count += 1
            name = f"{self._count}.bak"
            _write_synced(self.dir / name, content)
            digest = hashlib.sha256(content).hexdigest()
            entry.update(was="file", backup=name, mode=was.st_mode & 0o7777, sha256=digest)
        self._append(entry)

    def moving(self, spot: Spot, was: os.stat_result, digest: str) -> str:
        """Before a removal that renames the file at ``spot`` into the journal
        (``Transaction._move_aside``): its line, naming the backup it is about to become.
        Until the rename is made that backup is absent, and recovery leaves the file where it
        is; once made, the backup is the file itself (its bytes whatever it held then)."""
        self._open()
        self._count += 1
        name = f"{self._count}.bak"
        entry: dict[str, Any] = {"op": "file", "path": self._rel(spot), "was": "file"}
        entry.update(backup=name, mode=was.st_mode & 0o7777, sha256=digest, moved=True)
        # not synced: a removal only takes msd's own files (hash-checked) or a backup
        # already put back: if a power cut loses this line, no byte of the user's is lost
        self._append(entry, durable=False)
        return name

    def mkdir(self, spot: Spot) -> None:
        self._write(mkdir_line(self._rel(spot)))  # not synced alone: see ``_append``

    def rmdir(self, spot: Spot, mode: int) -> None:
        # an emptied folder of msd's: losing this line to a power cut loses no byte of anyone's
        self._append({"op": "rmdir", "path": self._rel(spot), "mode": mode}, durable=False)

    def _rel(self, spot: Spot) -> str:
        return rel_of(self.root, spot.path)

    def _append(self, entry: dict[str, Any], *, durable: bool = True) -> None:
        """One line, written before its change is made, so a killed process always leaves
        it behind. ``durable``: synced (with the journal's folder, for a backup's name) before
        the change, as a change to something that existed is durable at once. A line for a
        new file or folder is synced with the next durable line or by ``sync``, which
        ``Transaction.flush`` calls before the manifest is written."""
        fd = self._write((json.dumps(entry, ensure_ascii=True, sort_keys=True) + "\n").encode())
        if durable:
            os.fsync(fd)
            if "backup" in entry:
                fsync_dir(self.dir)

    def _write(self, line: bytes) -> int:
        fd = self._open()
        view = memoryview(line)
        while view:
            view = view[os.write(fd, view) :]
        return fd

    def sync(self) -> None:
        """Every line so far durable (the lines of new files and folders are not, alone)."""
        if self._fd is not None:
            os.fsync(self._fd)

    def close(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)

    @atomically
    def finish(self) -> None:
        """The run is complete (or rolled back in memory): the journal goes."""
        if self._fd is None:
            return  # never made: the run changed nothing
        self.close()
        discard(self.dir)
        fsync_dir(self.root)


def absent_line(rel: str) -> bytes:
    """The line of a file that did not exist: what ``_append`` writes for
    ``{"op": "file", "path": rel, "was": "absent"}``, without building and sorting a dict
    (``tests/installer/test_journal_lines.py`` holds the two equal)."""
    return b'{"op": "file", "path": %s, "was": "absent"}\n' % json.dumps(rel).encode()


def mkdir_line(rel: str) -> bytes:
    """``{"op": "mkdir", "path": rel}`` as ``_append`` writes it (tested like ``absent_line``)."""
    return b'{"op": "mkdir", "path": %s}\n' % json.dumps(rel).encode()


def discard(directory: Path) -> None:
    """Remove a journal directory: its intent first (a journal without one is a finished
    run's, which the next run only removes: a kill halfway leaves no journal whose lines
    name backups already gone), then its other plain files, then itself (never through a
    link)."""
    if not DIR_FD:  # pragma: no cover - Windows: names are full paths
        with contextlib.suppress(FileNotFoundError):
            with os.scandir(directory) as entries:
                names = sorted((e.name for e in entries), key=lambda n: n != INTENT)
            for name in names:
                with contextlib.suppress(FileNotFoundError, IsADirectoryError):
                    (directory / name).unlink()
            directory.rmdir()
        return
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(directory, flags | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return
    try:
        with os.scandir(fd) as entries:
            names = sorted((e.name for e in entries), key=lambda n: n != INTENT)
        for name in names:
            with contextlib.suppress(FileNotFoundError, IsADirectoryError):
                os.unlink(name, dir_fd=fd)
    finally:
        os.close(fd)
    with contextlib.suppress(FileNotFoundError):
        directory.rmdir()


def _write_synced(path: Path, content: bytes) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        view = memoryview(content)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)
