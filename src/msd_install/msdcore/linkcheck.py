"""Moves must not leave a symlink that points out of the workspace.

A relative symlink means "this far up from where I am, then down": ``a/b/link -> ../../x``
names ``x`` at the root, but moved to the top it names a sibling of the workspace. So before
a move, every link the moved entry carries (the entry itself, or every link in a moved
directory tree) is evaluated at its new place, and the move is refused if any would point
outside: a relative one that climbs above the root, an absolute one that is not below it. So
no MCP call can create, retarget or bring into place a link to the outside (a session
cannot swap a directory for such a link with ``move_file``). Following links is the
resolver's business, and it refuses to leave the workspace anyway; this check keeps the links
themselves honest for every other program that reads the workspace.

The tree is walked without following symlinks, bounded in depth and entries; a tree too big
to check is refused rather than moved unchecked.
"""

from __future__ import annotations

import os
import stat

from .callguard import CallGuard
from .safeio import DIR_FLAGS
from .toolerror import ToolError

MAX_ENTRIES = 100_000
MAX_DEPTH = 128


def _escapes(target: str, dir_parts: tuple[str, ...], root: str) -> bool:
    """Does a link in directory ``dir_parts`` (below ``root``) with ``target`` point out?"""
    if target.startswith("/"):
        forms = (os.path.normpath(target), os.path.realpath(target))
        return not any(p == root or p.startswith(root + "/") for p in forms)
    depth = len(dir_parts)
    for part in target.split("/"):
        if part == "..":
            if depth == 0:
                return True
            depth -= 1
        elif part not in ("", "."):
            depth += 1
    return False


class _Walk:
    def __init__(self, guard: CallGuard, where: str, root: str) -> None:
        self.guard = guard
        self.root = root
        self.where = where
        self.left = MAX_ENTRIES

    def refuse(self, inside: str) -> ToolError:
        return ToolError(
            "link_escape",
            f"moving to '{self.where}' would make the symlink '{inside}' point outside the "
            "workspace",
        )

    def tree(self, fd: int, new_parts: tuple[str, ...], shown: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise ToolError("too_deep", f"'{self.where}': too deeply nested to check its symlinks")
        with os.scandir(fd) as it:
            entries = [(e.name, e.stat(follow_symlinks=False)) for e in it]
        for name, st in entries:
            self.guard.check()
            self.left -= 1
            if self.left < 0:
                raise ToolError(
                    "too_large", f"'{self.where}': too many entries to check its symlinks"
                )
            if stat.S_ISLNK(st.st_mode):
                if _escapes(os.readlink(name, dir_fd=fd), new_parts, self.root):
                    raise self.refuse(f"{shown}/{name}")
            elif stat.S_ISDIR(st.st_mode):
                child = os.open(name, DIR_FLAGS, dir_fd=fd)
                try:
                    self.tree(child, (*new_parts, name), f"{shown}/{name}", depth + 1)
                finally:
                    os.close(child)


def check_moved_links(
    src_dir_fd: int,
    name: str,
    st: os.stat_result,
    dst_dir_parts: tuple[str, ...],
    dst_rel: str,
    guard: CallGuard,
    root: str,
) -> None:
    """Refuse the move of ``name`` (lstat ``st``) into ``dst_dir_parts`` if it would leave a
    symlink it carries pointing outside the workspace ``root`` (a real path)."""
    walk = _Walk(guard, dst_rel, root.rstrip("/"))
    if stat.S_ISLNK(st.st_mode):
        if _escapes(os.readlink(name, dir_fd=src_dir_fd), dst_dir_parts, walk.root):
            raise walk.refuse(dst_rel)
    elif stat.S_ISDIR(st.st_mode):
        fd = os.open(name, DIR_FLAGS, dir_fd=src_dir_fd)
        try:
            walk.tree(fd, (*dst_dir_parts, dst_rel.rsplit("/", 1)[-1]), dst_rel, 1)
        finally:
            os.close(fd)
