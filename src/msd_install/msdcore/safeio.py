"""File access below the workspace root that never follows a symlink.

``confine.resolve`` yields the real path's components; here they are opened one at a time from
a descriptor of the root with ``O_NOFOLLOW`` (``openat`` style, via ``dir_fd``). If a component
was swapped for a symlink after the check, the open fails instead of leaving the root. New files
are created with ``O_CREAT | O_EXCL | O_NOFOLLOW`` under a temporary name and renamed over the
target, so a symlink at the target is replaced, never written through; files with more than one
hard link are refused because writing them would change a file that may live outside the root.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from .toolspec import ToolError

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC

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
}


def os_failure(exc: OSError, rel: str) -> ToolError:
    """Turn an OS error into a ToolError that names only the workspace-relative path."""
    code, text = _CODES.get(exc.errno or 0, ("os_error", exc.strerror or "failed"))
    return ToolError(code, f"'{rel}' {text}")


@dataclass(frozen=True)
class Stat:
    kind: str  # file | directory | symlink | other
    size: int
    mtime: float
    mode: int
    nlink: int


def kind_of(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISLNK(mode):
        return "symlink"
    return "other"


def to_stat(st: os.stat_result) -> Stat:
    return Stat(kind_of(st.st_mode), st.st_size, st.st_mtime, st.st_mode, st.st_nlink)


@contextmanager
def open_dir(root: Path, parts: tuple[str, ...], *, create: bool = False) -> Iterator[int]:
    """A descriptor of the directory ``root/parts``, reached without following symlinks.

    With ``create``, missing directories are made on the way (``mkdir -p``)."""
    fd = os.open(root, _DIR_FLAGS)
    try:
        for name in parts:
            try:
                nxt = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                # Made concurrently is fine: the open below still refuses a symlink.
                with suppress(FileExistsError):
                    os.mkdir(name, dir_fd=fd)
                nxt = os.open(name, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = nxt
        yield fd
    finally:
        os.close(fd)


def lstat_at(dir_fd: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def read_bytes(root: Path, parts: tuple[str, ...], limit: int) -> tuple[bytes, os.stat_result]:
    """The content of a regular file, refusing anything larger than ``limit`` bytes."""
    if not parts:
        raise ToolError("is_a_directory", "'.' is a directory")
    with open_dir(root, parts[:-1]) as dfd:
        fd = os.open(parts[-1], _READ_FLAGS, dir_fd=dfd)  # O_NONBLOCK: a FIFO must not hang us
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = kind_of(st.st_mode)
            raise ToolError(
                "is_a_directory" if kind == "directory" else "not_a_file",
                f"'{'/'.join(parts)}' is a {kind}, not a regular file",
            )
        if st.st_size > limit:
            raise ToolError(
                "too_large", f"'{'/'.join(parts)}' is {st.st_size} bytes (limit {limit})"
            )
        chunks = []
        remaining = limit + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        data = b"".join(chunks)
        if len(data) > limit:  # grew while we read
            raise ToolError("too_large", f"'{'/'.join(parts)}' is larger than {limit} bytes")
        return data, st
    finally:
        os.close(fd)


def write_bytes(
    root: Path, parts: tuple[str, ...], data: bytes, *, create_parents: bool = False
) -> bool:
    """Replace or create ``root/parts`` atomically with ``data``; True if it was created."""
    if not parts:
        raise ToolError("is_a_directory", "'.' is a directory")
    name = parts[-1]
    rel = "/".join(parts)
    with open_dir(root, parts[:-1], create=create_parents) as dfd:
        old = lstat_at(dfd, name)
        if old is not None:
            if stat.S_ISLNK(old.st_mode):
                raise ToolError("path_changed", f"'{rel}' became a symlink during the call")
            if not stat.S_ISREG(old.st_mode):
                raise ToolError("not_a_file", f"'{rel}' is a {kind_of(old.st_mode)}")
            if old.st_nlink > 1:
                raise ToolError(
                    "hardlinked", f"'{rel}' has {old.st_nlink} hard links; refusing to write"
                )
        tmp = f".{name[:200]}.msd-{secrets.token_hex(6)}.tmp"
        mode = stat.S_IMODE(old.st_mode) if old is not None else 0o666
        fd = os.open(tmp, _CREATE_FLAGS, mode, dir_fd=dfd)
        try:
            try:
                if old is not None:
                    os.fchmod(fd, mode)  # keep the file's mode; umask applied only to new files
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            finally:
                os.close(fd)
            os.rename(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        except BaseException:
            with suppress(OSError):
                os.unlink(tmp, dir_fd=dfd)
            raise
        return old is None


def sha256_of(path: Path) -> str | None:
    """Hash of a regular file at a confined real path (None if absent or not a file)."""
    import hashlib

    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        digest = hashlib.sha256()
        while chunk := os.read(fd, 1 << 20):
            digest.update(chunk)
        return digest.hexdigest()
    finally:
        os.close(fd)
