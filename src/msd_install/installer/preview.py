"""A dry run's view of the tree as the migrations' steps would leave it, kept in memory.

A real upgrade runs its migrations (``migrate``) first and then resolves the install against
the tree they left; a dry run (``--dry-run``, ``--check``) must write nothing, so it resolves
against this ``Preview`` instead: the files the steps write (moved files, rewritten config
files) with their bytes and mode, the files they remove, the folders they make. Resolution
asks it first (``Resolution``) and the disk for anything it does not know, so that the dry
run reports what the real run does (the same actions on the same paths). Folders a migration
empties are still seen (no path of the new version is under them).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .steps import MakeDir, Remove, Step, Write

__all__ = ["Preview"]


class Preview:
    def __init__(self, steps: list[Step]) -> None:
        self._files: dict[Path, tuple[bytes, int] | None] = {}  # None: removed
        self.dirs: set[Path] = set()  # the folders the steps make
        for step in steps:
            if isinstance(step, MakeDir):
                self.dirs.add(step.path)
            elif isinstance(step, Write):
                mode = step.mode if step.mode is not None else self._mode(step.path)
                self._files[step.path] = (step.content, mode)
            elif isinstance(step, Remove):
                self._files[step.path] = None

    def _mode(self, path: Path) -> int:
        """The mode a write keeping the current one leaves (a config file edited in place)."""
        known = self._files.get(path)
        if known is not None:
            return known[1]
        try:
            return os.stat(path).st_mode & 0o7777
        except OSError:
            return 0o644

    def knows(self, path: Path) -> bool:
        """Whether the steps change what is at ``path`` (else the disk holds the answer)."""
        return path in self._files

    def read(self, path: Path) -> bytes | None:
        """The bytes the steps leave at ``path`` (None: removed); ``knows(path)`` first."""
        known = self._files[path]
        return None if known is None else known[0]

    def lstat(self, path: Path) -> os.stat_result | None:
        """What ``os.lstat`` would give after the steps (a plain file), None when removed."""
        known = self._files[path]
        if known is None:
            return None
        data, mode = known
        return os.stat_result((stat.S_IFREG | mode, 0, 0, 1, 0, 0, len(data), 0, 0, 0))

    def is_dir(self, path: Path) -> bool:
        """A folder there after the steps (made by them, or there already)."""
        return path in self.dirs or path.is_dir()
