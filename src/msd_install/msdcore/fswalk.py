"""Bounded, symlink-safe directory traversal and glob matching for the recursive tools.

Directories are entered through ``O_NOFOLLOW`` descriptors, so a symlinked directory is listed
as a symlink and never descended into, wherever it points. Every walk is bounded by depth,
number of entries and bytes of output, and reports when a bound cut it short.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass

from .safeio import kind_of

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


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


def scan(dir_fd: int) -> list[tuple[str, os.stat_result]]:
    """The entries of an open directory, sorted by name, each with its lstat."""
    out = []
    with os.scandir(dir_fd) as it:
        for entry in it:
            try:
                out.append((entry.name, entry.stat(follow_symlinks=False)))
            except OSError:
                continue  # vanished between readdir and stat
    out.sort(key=lambda item: item[0])
    return out


def walk(
    dir_fd: int, max_depth: int, visit: Callable[[Entry], bool], *, prefix: str = "", depth: int = 1
) -> bool:
    """Depth-first, name-ordered traversal; ``visit`` returns False to stop the whole walk
    (and then so does ``walk``). At most ``max_depth`` descriptors are open at once."""
    for name, st in scan(dir_fd):
        rel = f"{prefix}{name}"
        if not visit(Entry(rel, name, kind_of(st.st_mode), st.st_size, depth)):
            return False
        if stat.S_ISDIR(st.st_mode) and depth < max_depth:
            try:
                child = os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
            except OSError:
                continue  # replaced by a symlink, removed, or unreadable: skip it
            try:
                if not walk(child, max_depth, visit, prefix=f"{rel}/", depth=depth + 1):
                    return False
            finally:
                os.close(child)
    return True


def glob_regex(pattern: str) -> re.Pattern[str]:
    """Compile a glob: ``*`` and ``?`` stay within one name, ``**`` spans directories."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and (end := pattern.find("]", i + 2)) > 0:
            body = pattern[i + 1 : end]
            negate = body.startswith("!")
            body = re.escape(body[1:] if negate else body).replace(r"\-", "-")
            out.append(f"[{'^' if negate else ''}{body}]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z", re.DOTALL)
