"""Rewriting a hard-linked file through its own inode, so that every name sees the new bytes.

Why not the atomic write (temp file + rename, ``fs.write_at``) here: a rename gives the name
a new inode, which silently cuts a hard-linked config file (a dotfile manager's
``settings.json`` linked into its repository) off from its other names; they keep the old
bytes forever and the manager's copy stops following. Writing in place keeps the inode,
the other names, the owner, the group, the mode, ACLs and extended attributes.

The price is atomicity: a crash in the middle of the write can leave a torn file. That is
bounded three ways. The old bytes are first saved, fsynced, in a sibling file
``.<name>.msd-save.<pid>.<hex>`` (same directory, mode 0600, the file's owner), so no byte
of the user's can be lost, whatever the moment of the crash; the new bytes go in one write
loop from offset 0, then the file is cut to length and fsynced; only then is the saved copy
removed. A crash therefore leaves the old file, the new file, or a torn file next to its
complete saved copy: a failed write puts the old bytes back at once, a rollback does too,
and after a SIGKILL the saved copy is there to be copied back. Only a user's config file
with more than one link takes this way: every other rewrite stays atomic.
"""

from __future__ import annotations

import contextlib
import os
import stat

from ..errors import ConfigFileError
from . import owners
from .dirfd import Spot

SAVE_TAG = ".msd-save."
_MAX_SLACK = 1 << 20  # a file that grew this much while we read it is being rewritten


def write_in_place(spot: Spot, content: bytes, mode: int | None = None) -> None:
    flags = os.O_RDWR | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(spot.name, flags | getattr(os, "O_CLOEXEC", 0), dir_fd=spot.fd)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ConfigFileError("something that is not a file is in the way", path=spot.path)
        old = _read_all(fd, st.st_size + _MAX_SLACK)
        if old is None:
            raise ConfigFileError("changed while msd-install was reading it", path=spot.path)
        saved = _save(spot, old, st)
        try:
            _put(fd, content)
            if mode is not None and hasattr(os, "fchmod") and mode != st.st_mode & 0o7777:
                os.fchmod(fd, mode)
        except BaseException:  # a full disk, Ctrl-C: the old bytes back at once if we can
            with contextlib.suppress(OSError):
                _put(fd, old)
                os.unlink(saved, dir_fd=spot.fd)
            raise
    finally:
        os.close(fd)
    os.unlink(saved, dir_fd=spot.fd)


def _put(fd: int, content: bytes) -> None:
    _write_all(fd, content)
    os.ftruncate(fd, len(content))
    os.fsync(fd)


def _read_all(fd: int, limit: int) -> bytes | None:
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)


def _write_all(fd: int, content: bytes) -> None:
    os.lseek(fd, 0, os.SEEK_SET)
    view = memoryview(content)
    while view:
        view = view[os.write(fd, view) :]


def _save(spot: Spot, old: bytes, st: os.stat_result) -> str:
    """The old bytes, durable, next to the file, before its first byte changes."""
    head, _, leaf = spot.name.rpartition(os.sep) if spot.fd is None else ("", "", spot.name)
    name = f"{head}{os.sep if head else ''}.{leaf}{SAVE_TAG}{os.getpid()}.{os.urandom(4).hex()}"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(name, flags | getattr(os, "O_CLOEXEC", 0), 0o600, dir_fd=spot.fd)
    try:
        _write_all(fd, old)
        owners.give(fd, (st.st_uid, st.st_gid), spot.path)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=spot.fd)
        raise
    os.close(fd)
    if spot.fd is not None and os.name == "posix":
        with contextlib.suppress(OSError):
            os.fsync(spot.fd)
    return name
