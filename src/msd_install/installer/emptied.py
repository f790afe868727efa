"""The folders an upgrade empties: msd's own, gone with the last file it took out of them.

An upgrade (of MSD Core or of a pack) that no longer ships a file removes it
(``resolve._remove_stale``); the folder that held it goes too when msd made it (the
manifest's ``dirs``), the new version puts nothing in it, and nothing else is left in it once
this run's removals are done. A folder the user put a file in stays, reported as uninstall
reports it ("directory not empty: kept"), and stays listed: uninstall removes it once empty.
Decided here on reads; removed by ``RemoveDirIfEmpty`` (journaled, put back on rollback), so
a folder filled in between is kept.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from .manifest import Manifest
from .report import Result
from .resolution import Resolution
from .steps import MakeDir, Remove, RemoveDirIfEmpty, Symlink, Write

KEPT = "directory not empty: kept"


def prune(new: Manifest, wanted: Iterable[Path], res: Resolution, result: Result) -> None:
    """Append to ``res.steps`` the removal of every folder of ``new.dirs`` this run's removals
    empty, and drop it from ``new.dirs``. ``wanted``: the paths this version installs (and
    the folders it keeps), whose folders stay."""
    removed = {s.path for s in res.steps if isinstance(s, Remove)}
    if not removed:
        return
    root = new.root
    listed = set(new.dirs)
    # Python's own caches beside removed .py files (``bytecode.removal``): gone when emptied
    caches = {s.path for s in res.steps if isinstance(s, RemoveDirIfEmpty)}
    candidates: set[Path] = set()
    for path in removed:
        folder = path.parent
        while folder != root and not root.is_relative_to(folder) and new.rel(folder) in listed:
            if folder in candidates:
                break
            candidates.add(folder)
            folder = folder.parent
    if not candidates:
        return
    kept = _needed(
        [*wanted, *(s.path for s in res.steps if isinstance(s, (Write, MakeDir, Symlink)))]
    )
    gone = set(removed)
    for folder in sorted(caches, key=_depth, reverse=True):
        if _left(folder, gone, res) == set():
            gone.add(folder)
    dropped: set[str] = set()
    for folder in sorted(candidates, key=_depth, reverse=True):
        if folder in kept or res.blocked(root, folder) is not None:
            continue
        left = _left(folder, gone, res)
        if left is None:  # gone already, or not a folder (a link of yours): not touched
            continue
        if left:
            result.add("skip", folder, KEPT)
            continue
        gone.add(folder)
        res.steps.append(RemoveDirIfEmpty(folder))
        res.pruned.add(folder)
        dropped.add(new.rel(folder))
    if dropped:
        new.dirs = [d for d in new.dirs if d not in dropped]


def _needed(paths: list[Path]) -> set[Path]:
    """Every folder above ``paths`` (and those of them that are folders to keep)."""
    out: set[Path] = set()
    for path in paths:
        out.add(path)
        folder = path.parent
        while folder not in out and folder != folder.parent:
            out.add(folder)
            folder = folder.parent
    return out


def _left(folder: Path, gone: set[Path], res: Resolution) -> set[str] | None:
    """The names in ``folder`` once ``gone`` is removed; None: not a folder (a link). In a
    dry run of a migrating upgrade, what its migrations remove is gone too (``preview``)."""
    try:
        if not stat.S_ISDIR(os.lstat(folder).st_mode):
            return None
        children = list(folder.iterdir())
    except OSError:
        return None
    return {p.name for p in children if p not in gone and res.lexists(p)}


def _depth(path: Path) -> tuple[int, str]:
    return (len(path.parts), str(path))
