"""Places as open directories: every change of a run is made relative to a directory descriptor.

Why descriptors: a path is resolved again by the kernel at every use, so a directory swapped
for a symlink between a check and the change (or between a change and its rollback) sends the
change somewhere else. A ``Spot`` is a directory opened once (``Dirs`` keeps it open until the
run ends) plus a name in it; ``os.rename``/``unlink``/``mkdir``/``open`` with ``dir_fd`` then
act in that very directory, whatever happens to the paths leading to it, and an undo recorded
with the spot puts things back there and nowhere else.

``beneath`` opens a directory below a root component by component with ``O_NOFOLLOW``, the
way Linux's ``openat2(RESOLVE_BENEATH)`` would (Python does not expose it): a symlink on the
way is followed only while its target stays inside the root, so no race can lead a walk out.
Where the platform has no ``dir_fd`` support (Windows), a spot is the full path and the walk
falls back to the ``lstat`` check it replaces.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

MAX_LINKS = 40  # like the kernel's limit on symlinks followed in one lookup
DIR_FD = os.open in os.supports_dir_fd and os.rename in os.supports_dir_fd
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class EscapeError(OSError):
    """A walk met a symlink leading out of its root; ``component`` is root-relative."""

    def __init__(self, component: str) -> None:
        super().__init__(errno.EXDEV, "a symlink leading out of the root")
        self.component = component


class Dir:
    """An open directory. Its descriptor is replaced when a rollback makes the directory
    again (a new inode), so that every undo recorded in it lands in the new one."""

    __slots__ = ("fd", "owner")

    def __init__(self, fd: int) -> None:
        self.fd = fd
        # its (uid, gid), looked up once by the first new entry made in it (``fs._for_new``)
        self.owner: tuple[int, int] | None = None


@dataclass(frozen=True)
class Spot:
    """A name in an open directory (``dir`` None: ``name`` is a full path, no descriptors)."""

    dir: Dir | None
    name: str
    path: Path  # for messages and reports only: never used to reach the file

    @property
    def fd(self) -> int | None:
        return None if self.dir is None else self.dir.fd


class Dirs:
    """The directories a run has opened, one descriptor per directory, closed at the end."""

    def __init__(self) -> None:
        self._dirs: dict[tuple[int, int], Dir] = {}
        # a parent reached through its path, by that path: a folder of many files is opened
        # once (forgotten when a directory is removed: its path may then lead elsewhere)
        self._paths: dict[Path, Dir] = {}

    def keep(self, fd: int) -> Dir:
        """Keep ``fd`` open for the run (or the one already kept for the same directory)."""
        st = os.fstat(fd)
        key = (st.st_dev, st.st_ino)
        kept = self._dirs.get(key)
        if kept is not None:
            os.close(fd)
            return kept
        self._dirs[key] = Dir(fd)
        return self._dirs[key]

    def find(self, spot: Spot) -> Dir | None:
        """The kept directory that ``spot`` names, if the run has opened it."""
        now = lstat_at(spot)
        return None if now is None else self._dirs.get((now.st_dev, now.st_ino))

    def replace(self, kept: Dir, fd: int) -> None:
        """``kept`` was removed and made again: from now on it is ``fd``."""
        old = kept.fd
        self._dirs = {k: d for k, d in self._dirs.items() if d is not kept}
        st = os.fstat(fd)
        kept.fd = fd
        kept.owner = None
        self._dirs[(st.st_dev, st.st_ino)] = kept
        with contextlib.suppress(OSError):
            os.close(old)

    def by_path(self, path: Path) -> Spot:
        """``path``'s parent opened through the paths leading to it (links followed)."""
        if not DIR_FD:
            return Spot(None, str(path), path)
        kept = self._paths.get(path.parent)
        if kept is None:
            kept = self._paths[path.parent] = self.keep(os.open(path.parent, _DIR_FLAGS))
        return Spot(kept, path.name, path)

    def forget_paths(self) -> None:
        """A directory was removed: a path opened before may no longer lead to the same one."""
        self._paths.clear()

    def beneath(self, root_fd: int | None, root: Path, path: Path) -> Spot:
        """``path`` (inside ``root``) as a spot whose directory was reached from ``root_fd``
        without leaving the root. Raises ``EscapeError`` or ``FileNotFoundError``."""
        rel = path.relative_to(root)
        if root_fd is None:
            from .confine import escaping_link

            link = escaping_link(root, rel.as_posix())
            if link is not None:
                raise EscapeError(link)
            return Spot(None, str(path), path)
        fd = walk(root_fd, os.path.realpath(root), list(rel.parts[:-1]))
        return Spot(self.keep(fd), rel.name, path)

    def close(self) -> None:
        self._paths.clear()
        kept, self._dirs = list(self._dirs.values()), {}
        for each in kept:
            with contextlib.suppress(OSError):
                os.close(each.fd)


def open_dir_at(spot: Spot) -> int:
    """The directory at ``spot`` itself, never through a link put in its place."""
    return os.open(spot.name, _DIR_FLAGS | _NOFOLLOW, dir_fd=spot.fd)


def open_root(root: Path) -> int | None:
    """The root's directory, opened once through its path (the root itself may be a link:
    ``~/.claude`` kept in a dotfiles repository)."""
    return os.open(root, _DIR_FLAGS) if DIR_FD else None


def walk(root_fd: int, real_root: str, parts: list[str]) -> int:
    """A new descriptor of the directory ``parts`` leads to from ``root_fd``, never outside.

    ``real_root``: the root's real path, against which absolute link targets are judged.
    """
    stack = [os.dup(root_fd)]
    names: list[str] = []  # the components walked so far, for the error
    todo = list(reversed(parts))
    links = 0
    via = ""  # the last link followed: what a ".." out of the root is blamed on
    try:
        while todo:
            part = todo.pop()
            if part in ("", "."):
                continue
            if part == "..":
                if len(stack) == 1:
                    raise EscapeError(via or ".")
                os.close(stack.pop())
                names.pop()
                continue
            try:
                fd = os.open(part, _DIR_FLAGS | _NOFOLLOW, dir_fd=stack[-1])
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    raise
                if not stat.S_ISLNK(os.lstat(part, dir_fd=stack[-1]).st_mode):
                    raise
                links += 1
                shown = via = "/".join([*names, part])
                if links > MAX_LINKS:
                    raise EscapeError(shown) from None
                target = os.readlink(part, dir_fd=stack[-1])
                if target.startswith(os.sep):
                    inside = os.path.normpath(target)
                    if inside != real_root and not inside.startswith(
                        real_root.rstrip(os.sep) + os.sep
                    ):
                        raise EscapeError(shown) from None
                    while len(stack) > 1:  # an absolute link starts again at the root
                        os.close(stack.pop())
                    names.clear()
                    target = os.path.relpath(inside, real_root)
                todo.extend(reversed(target.split("/")))
                continue
            stack.append(fd)
            names.append(part)
        return stack.pop()
    finally:
        for fd in stack:
            os.close(fd)


def lstat_at(spot: Spot) -> os.stat_result | None:
    try:
        return os.lstat(spot.name, dir_fd=spot.fd)
    except FileNotFoundError:
        return None


def read_at(spot: Spot, limit: int) -> bytes | None:
    """The bytes of the plain file at ``spot`` (never through a link, never a FIFO), None when
    absent, not a plain file or over ``limit``."""
    flags = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(spot.name, flags, dir_fd=spot.fd)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO):  # a link; a socket (cannot be opened)
            return None
        raise
    try:  # looked at before any read: a directory or a device is not read (nor an error)
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        chunks: list[bytes] = []
        size, want = 0, min(st.st_size, limit) + 1  # one read, and one that finds the end
        while size <= limit:  # the file may grow while it is read: never past the limit
            chunk = os.read(fd, min(want, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            want = 1 << 16  # past what fstat said: it grew, read on in pieces
    finally:
        os.close(fd)
    return b"".join(chunks) if size <= limit else None
