"""Who owns what msd-install writes (the rules: docs/explanation/ownership.md).

Provisioning runs as root on a user's HOME (``sudo``, Ansible ``become``, a Docker build as
root). A file replaced by temp file + rename belongs to whoever made the temp file, and a
new file or directory to whoever created it: without these rules such a run leaves the
user's ``settings.json`` owned by root, and the user can no longer write it.

- A file msd-install rewrites keeps its owner, group and mode.
- A file, directory or link msd-install creates gets the owner and group of the directory
  it is created in, when msd-install runs as root (otherwise the system's rule applies: the
  creator owns it, the group comes from the directory's set-group-ID bit).
- A rewrite whose owner this process could not give back (not root, and the file belongs to
  another user or to a group we are not in) is refused before the first change.
- Running as root, a config file that is a symlink is written through only to a file owned
  by the link's owner or the owner of the directory holding the link: a user's link must
  not make a root run edit a file the user could not edit.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..errors import FileAccessError

POSIX = hasattr(os, "geteuid") and hasattr(os, "fchown")


def is_root() -> bool:
    return POSIX and os.geteuid() == 0


def for_new(parent: os.stat_result) -> tuple[int, int] | None:
    """The (uid, gid) a new entry in the directory ``parent`` describes must get, or None
    when the system's default is right (not root, or the directory is root's own)."""
    return for_new_ids(parent.st_uid, parent.st_gid)


def for_new_ids(uid: int, gid: int) -> tuple[int, int] | None:
    """``for_new`` of a directory owned by ``uid``:``gid``."""
    if not is_root():
        return None
    if (uid, gid) == (os.geteuid(), os.getegid()):
        return None
    return uid, gid


def give(fd: int, want: tuple[int, int] | None, path: Path) -> None:
    """Give the open file or directory ``fd`` the owner and group ``want`` (None: leave it)."""
    if want is None or not POSIX:
        return
    now = os.fstat(fd)
    uid = want[0] if want[0] != now.st_uid else -1
    gid = want[1] if want[1] != now.st_gid else -1
    if uid == -1 and gid == -1:
        return
    try:
        os.fchown(fd, uid, gid)
    except PermissionError:
        raise FileAccessError(
            f"cannot give it the owner {want[0]}:{want[1]} (uid:gid) it must keep; "
            "every change of this run was rolled back",
            path=path,
            hint="run msd-install as that user, or as root on a file system that allows chown",
        ) from None


def give_link(dir_fd: int | None, name: str, want: tuple[int, int] | None) -> None:
    """The owner of a symlink we created (the link itself, never its target)."""
    if want is None or not POSIX:
        return
    os.chown(name, want[0], want[1], dir_fd=dir_fd, follow_symlinks=False)


def check_rewrite(path: Path, *, in_place: bool = False, payload: bool = False) -> None:
    """Refuse, before any change, a rewrite of ``path`` whose owner we could not keep.

    ``path`` is the name a ``Write`` step names: a user's symlink there is written through
    (its target is what must keep its owner). ``in_place``: a hard-linked file would be
    written through its inode, which root does only for a file the directory's owner owns.
    ``payload``: a file of msd's payload, never written through a link (``Guard.locate``),
    so a dangling link at its name has no target to judge."""
    if not POSIX:
        return
    try:
        target = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None if payload else _check_dangling(path)
    if not stat.S_ISREG(target.st_mode):
        return None  # not ours to judge here: the writer refuses anything but a plain file
    if is_root():
        if in_place and target.st_nlink > 1 and not path.is_symlink():
            _check_hard_link(path, target)
        return _check_link(path, target)
    if target.st_uid != os.geteuid():
        raise _refuse(path, f"belongs to uid {target.st_uid}", "run msd-install as that user")
    if target.st_gid != os.getegid() and target.st_gid not in os.getgroups():
        raise _refuse(
            path, f"has the group gid {target.st_gid}, which this user is not in", "fix its group"
        )
    return None


def _check_link(path: Path, target: os.stat_result) -> None:
    """Root writing through a user's symlink: only to a file that user owns."""
    try:
        link = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISLNK(link.st_mode):
        return
    holder = os.stat(path.parent).st_uid
    if target.st_uid in (link.st_uid, holder):
        return
    raise FileAccessError(
        f"is a symlink to {os.path.realpath(path)}, which belongs to uid {target.st_uid}, "
        f"not to the link's owner (uid {link.st_uid}): msd-install running as root does not "
        "write through it; nothing was changed",
        path=path,
        hint="replace the link with the file, or run msd-install as its owner",
    )


def _check_hard_link(path: Path, target: os.stat_result) -> None:
    holder = os.stat(path.parent).st_uid
    if target.st_uid != holder:
        raise FileAccessError(
            f"has other hard links and belongs to uid {target.st_uid}, not to the owner of "
            f"its directory (uid {holder}): msd-install running as root does not write "
            "through it; nothing was changed",
            path=path,
            hint="give it its directory's owner, or run msd-install as its owner",
        )


def _check_dangling(path: Path) -> None:
    """A dangling link of the user's: its target is created, in a directory it must own."""
    if not is_root() or not path.is_symlink():
        return
    parent = Path(os.path.realpath(path)).parent
    try:
        holder = os.stat(parent).st_uid
    except OSError:
        return
    link = os.lstat(path).st_uid
    if holder not in (link, os.stat(path.parent).st_uid):
        raise FileAccessError(
            f"is a dangling symlink into {parent}, which belongs to uid {holder}, not to the "
            f"link's owner (uid {link}): msd-install running as root does not create its "
            "target; nothing was changed",
            path=path,
        )


def _refuse(path: Path, why: str, fix: str) -> FileAccessError:
    return FileAccessError(
        f"{why}; msd-install running as uid {os.geteuid()} could not keep its owner and group "
        "if it rewrote it, so it leaves it alone",
        path=path,
        hint=f"{fix}; nothing was changed",
    )
