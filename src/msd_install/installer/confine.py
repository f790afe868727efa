"""Confinement of manifest paths: the text rules, the symlink check and the use-time guard.

A manifest is read from disk, and a project's manifest comes with the project (a clone, a
pull request): it is untrusted input. This module is the one place that decides whether a
path may be touched. Paths are checked as text when the manifest is loaded (``rel_problem``)
and against the tree (``escaping_link``, an ``lstat`` walk); the tree can change between
loading and acting, so ``guard.Guard`` places every change a run makes in a directory reached
from the root's descriptor without leaving the root (``dirfd``).
"""

from __future__ import annotations

import errno
import os
import re
import stat
import unicodedata
from pathlib import Path

MAX_PATH = 4096  # bytes, like PATH_MAX
MAX_NAME = 255  # bytes per component, like NAME_MAX
MAX_OWN_FILE = 64 << 20  # no file msd installs comes near this: a larger one is not msd's
_DRIVE = re.compile(r"^[A-Za-z]:")
# Unicode control, format (bidi overrides, zero-width) and lone surrogates: none of them
# belongs in a path msd-install writes, and each can forge or hide text on a terminal.
_BAD_CATEGORIES = ("Cc", "Cf", "Cs")


def show(text: str, limit: int = 80) -> str:
    """A string from a manifest as it may be printed: quoted, escaped, bounded. A long one
    keeps both ends (where a path starts, and the file it names) around a ``...``."""
    if len(text) <= limit:
        return repr(text)
    tail = (limit - 3) // 2
    return repr(text[: limit - 3 - tail] + "..." + text[len(text) - tail :])


def control_char(text: str, allow: str = "") -> str | None:
    """The first control character in ``text`` (outside ``allow``), or None."""
    for char in text:
        if char not in allow and unicodedata.category(char) in _BAD_CATEGORIES:
            return char
    return None


def rel_problem(rel: str) -> str | None:
    """Why ``rel`` is not a normalised, ``/``-separated path inside a root, or None."""
    if not rel:
        return "is empty"
    if control_char(rel) is not None:
        return "has a control character"
    if len(rel.encode("utf-8")) > MAX_PATH:
        return "is too long"
    if "\\" in rel:
        return "has a backslash"
    if rel.startswith("/") or _DRIVE.match(rel):
        return "is absolute"
    for part in rel.split("/"):
        if part == "":
            return "has an empty component"
        if part in (".", ".."):
            return f"has a {part!r} component"
        if len(part.encode("utf-8")) > MAX_NAME:
            return "has a component that is too long"
    return None


def is_ancestor_chain(rel: str) -> bool:
    """``..``, ``../..``, ...: the parents of a root (created by an install, removed if empty)."""
    return bool(rel) and all(part == ".." for part in rel.split("/"))


OUT_OF_PROJECT = (
    "leading out of the project, not followed in a --local install (a cloned project could "
    "point it anywhere)"
)


def _inside(path: str, real_root: str) -> bool:
    return path == real_root or path.startswith(real_root.rstrip(os.sep) + os.sep)


def inside(path: Path, directory: Path) -> bool:
    """Does ``path``, links resolved, lie inside ``directory`` (links resolved)?"""
    return _inside(os.path.realpath(path), os.path.realpath(directory))


def leads_out(fence: Path | None, path: Path) -> bool:
    """In a --local run (``fence``: the project), does ``path``, a name in the project, lead
    out of it through a symlink (its own, or a folder's on the way)? Nothing is read, moved
    or removed there."""
    return fence is not None and path.is_relative_to(fence) and not inside(path, fence)


def escaping_link(root: Path, rel: str) -> str | None:
    """The first directory component of ``rel`` that is a symlink leading out of ``root``.

    Only directory components are checked: a file that is itself a symlink is the user's
    (never written through, never removed), which the callers handle. Returns the component
    as a root-relative path, or None. Stops at the first component that does not exist.
    """
    real_root = os.path.realpath(root)
    parts = rel.split("/")
    probe = root
    for depth, part in enumerate(parts[:-1], 1):
        probe = probe / part
        try:
            mode = os.lstat(probe).st_mode
        except (FileNotFoundError, NotADirectoryError):
            return None
        if stat.S_ISLNK(mode) and not _inside(os.path.realpath(probe), real_root):
            return "/".join(parts[:depth])
    return None


def is_regular_file(path: Path) -> bool:
    """A plain file, not a symlink, FIFO, device or directory (never blocks, never follows)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def read_plain(path: Path, limit: int = MAX_OWN_FILE) -> bytes | None:
    """The bytes of the plain file at ``path``; None when there is none, or when it is a
    symlink, a FIFO, a device, a directory or larger than ``limit`` (so never msd's).

    Manifest paths are read to compare hashes; a FIFO planted there must not hang the run and
    a huge file must not be read whole.
    """
    got = read_plain_stat(path, limit)
    return None if got is None else got[0]


def read_plain_stat(path: Path, limit: int = MAX_OWN_FILE) -> tuple[bytes, os.stat_result] | None:
    """``read_plain``, with the ``fstat`` of the descriptor the bytes were read through."""
    if not is_regular_file(path):
        return None
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0))
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # became a link since the lstat
            return None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        # the size it has, not ``limit``: a read of ``limit`` bytes allocates that much for
        # every file; one more byte, then to the end, sees a file that grew since the fstat
        data = os.read(fd, st.st_size + 1)
        while len(data) <= limit:
            more = os.read(fd, min(1 << 16, limit + 1 - len(data)))
            if not more:
                break
            data += more
    finally:
        os.close(fd)
    return (data, st) if len(data) <= limit else None


def read_beneath(base: Path, path: Path, limit: int = MAX_OWN_FILE) -> bytes | None:
    """``read_plain`` of ``path``, reached from ``base`` without leaving it (``dirfd``): the
    bytes of a file that is about to be copied into the root, so never an outside file's,
    even if a directory on the way is swapped for a symlink after the manifest was checked.
    Raises ``FileAccessError`` when the way leads out of ``base``."""
    from ..errors import FileAccessError
    from .dirfd import Dirs, EscapeError, open_root, read_at

    fd = open_root(base)
    if fd is None:  # no descriptors here: the path was checked when the manifest was read
        return read_plain(path, limit)
    dirs = Dirs()
    try:
        pinned = dirs.keep(fd)
        spot = dirs.beneath(pinned.fd, base, path)
        return read_at(spot, limit)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except EscapeError as exc:
        raise FileAccessError(
            f"passes through {show(exc.component)}, a symlink leading out of {base} "
            "(it changed since msd-install read the manifest); nothing was changed",
            path=path,
        ) from None
    finally:
        dirs.close()


def real_target(path: Path) -> Path:
    """Where a write to ``path`` must land: through a symlink, never replacing it."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path
