"""Bounded, symlink-safe directory traversal for the recursive tools.

Directories are entered through ``O_NOFOLLOW`` descriptors, so a symlinked directory is listed
as a symlink and never descended into, wherever it points. Every walk is bounded by depth,
number of entries and bytes of output, reports when a bound cut it short, and stops when its
call is cancelled or runs out of time.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass

from .callguard import CallGuard
from .safeio import DIR_FLAGS, kind_of, scan


@dataclass(frozen=True)
class Entry:
    rel: str  # relative to the walk's start directory
    name: str
    kind: str
    size: int
    depth: int  # 1 for the start directory's own children


@dataclass
class Budget:
    """Remaining allowance of a walk; ``truncated`` is set when any bound is hit."""

    entries: int
    output_bytes: int
    truncated: bool = False

    def take(self, text: str) -> bool:
        if self.entries <= 0 or self.output_bytes < len(text):
            self.truncated = True
            return False
        self.entries -= 1
        self.output_bytes -= len(text)
        return True


def walk(
    dir_fd: int,
    max_depth: int,
    visit: Callable[[Entry], bool],
    guard: CallGuard,
    *,
    prefix: str = "",
    depth: int = 1,
) -> bool:
    """Depth-first, name-ordered traversal; ``visit`` returns False to stop the whole walk
    (and then so does ``walk``). At most ``max_depth`` descriptors are open at once."""
    for name, st in scan(dir_fd, guard):
        guard.check()
        rel = f"{prefix}{name}"
        if not visit(Entry(rel, name, kind_of(st.st_mode), st.st_size, depth)):
            return False
        if stat.S_ISDIR(st.st_mode) and depth < max_depth:
            try:
                child = os.open(name, DIR_FLAGS, dir_fd=dir_fd)
            except OSError:
                continue  # replaced by a symlink, removed, or unreadable: skip it
            try:
                if not walk(child, max_depth, visit, guard, prefix=f"{rel}/", depth=depth + 1):
                    return False
            finally:
                os.close(child)
    return True
