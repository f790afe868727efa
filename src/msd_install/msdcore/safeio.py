"""Reading below the workspace root without ever following a symlink (the read half of the
one confinement model; ``safewrite`` is the other half).

``confine.resolve`` turns an argument into the real path's components below the root; here
they are opened one at a time from a descriptor of the root with ``O_NOFOLLOW`` (``openat``
style, via ``dir_fd``). If a component was swapped for a symlink after the check, the open
fails (``path_changed``) instead of leaving the root: nothing is re-resolved by path after the
check. Directory listings report symlinks as symlinks and never enter them. Every read is
capped by size *before* it starts (``st_size`` from ``fstat`` of the very descriptor read),
so a huge or sparse file is refused at once, and long reads stop when the call is cancelled.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .callguard import CallGuard
from .toolerror import ToolError

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
# Content hashed for the audit log is capped like content read: no tool handles larger files,
# and hashing a 20 GiB sparse file would take minutes.
HASH_LIMIT = 8 * 1024 * 1024
_CHUNK = 1 << 20

_CODES = {
    errno.ENOENT: ("not_found", "does not exist"),
    errno.ENOTDIR: ("not_a_directory", "has a component that is not a directory"),
    errno.EISDIR: ("is_a_directory", "is a directory"),
    errno.EEXIST: ("exists", "already exists"),
    errno.EACCES: ("permission_denied", "is not accessible"),
    errno.EPERM: ("permission_denied", "is not accessible"),
    errno.ENAMETOOLONG: ("name_too_long", "is too long"),
    errno.ELOOP: ("path_changed", "changed into a symlink while being opened"),
    errno.ENOTEMPTY: ("not_empty", "is a non-empty directory"),
    errno.EINVAL: ("invalid_path", "cannot be used for this operation"),
    errno.EXDEV: ("cross_device", "is on another filesystem"),
    errno.ENOSPC: ("no_space", "cannot be written: no space left on the device"),
}


def os_failure(exc: OSError, rel: str) -> ToolError:
    """Turn an OS error into a ToolError that names only the workspace-relative path."""
    code, text = _CODES.get(exc.errno or 0, ("os_error", exc.strerror or "failed"))
    return ToolError(code, f"'{rel}' {text}")


def kind_of(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISLNK(mode):
        return "symlink"
    return "other"


def dir_fd(root: Path, parts: tuple[str, ...]) -> int:
    """A new descriptor of the directory ``root/parts``, reached without following symlinks
    (the caller closes it)."""
    fd = os.open(root, DIR_FLAGS)
    try:
        for name in parts:
            nxt = os.open(name, DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = nxt
    except BaseException:
        os.close(fd)
        raise
    return fd


@contextmanager
def open_dir(root: Path, parts: tuple[str, ...]) -> Iterator[int]:
    """``dir_fd`` for the duration of a ``with`` block."""
    fd = dir_fd(root, parts)
    try:
        yield fd
    finally:
        os.close(fd)


def lstat_at(dir_fd: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def scan(dir_fd: int, guard: CallGuard | None = None) -> list[tuple[str, os.stat_result]]:
    """The entries of an open directory, sorted by name, each with its lstat."""
    out = []
    with os.scandir(dir_fd) as it:
        for entry in it:
            if guard is not None:
                guard.check()
            try:
                out.append((entry.name, entry.stat(follow_symlinks=False)))
            except OSError:
                continue  # vanished between readdir and stat
    out.sort(key=lambda item: item[0])
    return out


def _too_large(rel: str, size: int, limit: int) -> ToolError:
    return ToolError("too_large", f"'{rel}' is {size} bytes (limit {limit})")


def _read_fd(fd: int, rel: str, limit: int, guard: CallGuard | None) -> bytes:
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        kind = kind_of(st.st_mode)
        raise ToolError(
            "is_a_directory" if kind == "directory" else "not_a_file",
            f"'{rel}' is a {kind}, not a regular file",
        )
    if st.st_size > limit:
        raise _too_large(rel, st.st_size, limit)
    chunks = []
    remaining = limit + 1
    while remaining > 0:
        if guard is not None:
            guard.check()
        chunk = os.read(fd, min(remaining, _CHUNK))
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    data = b"".join(chunks)
    if len(data) > limit:  # grew while we read
        raise ToolError("too_large", f"'{rel}' is larger than {limit} bytes")
    return data


def read_at(dir_fd: int, name: str, rel: str, limit: int, guard: CallGuard | None = None) -> bytes:
    """The content of the regular file ``name`` in an open directory (never a symlink)."""
    fd = os.open(name, READ_FLAGS, dir_fd=dir_fd)  # O_NONBLOCK: a FIFO must not hang us
    try:
        return _read_fd(fd, rel, limit, guard)
    finally:
        os.close(fd)


def read_bytes(
    root: Path, parts: tuple[str, ...], limit: int, guard: CallGuard | None = None
) -> bytes:
    """The content of the regular file ``root/parts``, refusing anything over ``limit`` bytes."""
    if not parts:
        raise ToolError("is_a_directory", "'.' is a directory")
    with open_dir(root, parts[:-1]) as dfd:
        return read_at(dfd, parts[-1], "/".join(parts), limit, guard)


def digest_at(dir_fd: int, name: str, rel: str, guard: CallGuard | None = None) -> str | None:
    """sha256 of the regular file ``name`` (None if absent or not a regular file).

    The size is checked before a byte is hashed: over ``HASH_LIMIT`` is ``too_large``."""
    import hashlib

    try:
        fd = os.open(name, READ_FLAGS, dir_fd=dir_fd)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        if st.st_size > HASH_LIMIT:
            raise _too_large(rel, st.st_size, HASH_LIMIT)
        digest = hashlib.sha256()
        while chunk := os.read(fd, _CHUNK):
            if guard is not None:
                guard.check()
            digest.update(chunk)
        return digest.hexdigest()
    finally:
        os.close(fd)


def stat_entry(root: Path, parts: tuple[str, ...]) -> os.stat_result | None:
    """The lstat of ``root/parts`` (None when absent); the root itself for no parts."""
    if not parts:
        return os.stat(root)
    try:
        with open_dir(root, parts[:-1]) as dfd:
            return lstat_at(dfd, parts[-1])
    except (FileNotFoundError, NotADirectoryError):
        return None
