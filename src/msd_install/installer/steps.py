"""Concrete disk steps decided by resolution, and the one place that executes them.

Resolution (pure reads) turns a plan or a manifest into ``Step`` values; ``execute`` performs
them through a ``Transaction``. A dry run stops after resolution, so it cannot write.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConcurrentChangeError
from . import owners
from .dirfd import Spot, lstat_at, read_at
from .fs import Known, Transaction
from .guard import Guard


@dataclass(frozen=True)
class MakeDir:
    path: Path


ABSENT = b"\0msd:absent"  # ``Write.expect`` for a file that must still not exist


@dataclass(frozen=True)
class Write:
    path: Path
    content: bytes
    mode: int | None = None  # None: keep the mode of the file it replaces
    barrier: bool = False  # everything written before must be durable first (the manifest)
    # the bytes resolution read: if the file changed since (Claude Code rewrites its own
    # ~/.claude.json at any time), the run stops and rolls back instead of losing that write
    expect: bytes | None = None
    # a user's config file: one with other hard links (a dotfile manager's) is rewritten in
    # place so that every name keeps it (``inplace``); msd's own files are always replaced,
    # so that a name linked to one from outside never sees msd's bytes
    in_place: bool = False
    # msd's own payload bytes for a file that did not exist: not fsynced (issue 11: only what
    # protects someone's data is). A power cut soon after the run can leave such a file empty
    # or missing; no byte of the user's is in it, and a reinstall writes it again (keeping the
    # empty copy aside in msd-local-patches/, as for any file that differs from the manifest).
    # Everything else (config files, backups, saved patches, the manifest) is fsynced.
    payload: bool = False


@dataclass(frozen=True)
class Remove:
    path: Path
    # the file as resolution read and hashed it: removed only while it is still that file,
    # and not read or hashed again (``Transaction.remove_at``)
    known: Known | None = None


@dataclass(frozen=True)
class RemoveDirIfEmpty:
    path: Path


@dataclass(frozen=True)
class Symlink:
    path: Path
    target: str


Step = MakeDir | Write | Remove | RemoveDirIfEmpty | Symlink
_ACTION: dict[type, str] = {
    MakeDir: "dir",
    Write: "write",
    Remove: "remove",
    RemoveDirIfEmpty: "dir",
    Symlink: "link",
}


def execute(steps: list[Step], tx: Transaction, guard: Guard | None = None) -> list[Path]:
    """Run the steps in order; returns the directories that ``RemoveDirIfEmpty`` kept.

    ``guard`` places each change right before it is made: resolution decided on reads, and
    the tree may have changed since (a directory swapped for a symlink out of the root).
    """
    preflight(steps)
    guard = (guard or Guard(Path("/"))).pin(tx.dirs)
    kept: list[Path] = []
    for step in steps:
        if isinstance(step, RemoveDirIfEmpty) and not os.path.lexists(step.path):
            continue  # gone already, maybe with its parent (you removed msd-local-patches/)
        payload = isinstance(step, Write) and step.payload
        spot = guard.locate(step.path, "payload" if payload else _ACTION[type(step)])
        if isinstance(step, MakeDir):
            tx.mkdir_at(spot)
        elif isinstance(step, Write):
            if step.barrier:
                tx.flush()
            if step.expect is not None and _current(spot) != step.expect:
                raise ConcurrentChangeError(
                    "changed by another program while msd-install was editing it",
                    path=step.path,
                    hint="nothing was changed; run msd-install again",
                )
            tx.write_at(
                spot, step.content, step.mode, in_place=step.in_place, sync=not step.payload
            )
        elif isinstance(step, Remove):
            now = lstat_at(spot)
            if now is not None:
                tx.remove_at(spot, step.known, now)
        elif isinstance(step, Symlink):
            tx.symlink_at(spot, step.target)
        elif not tx.rmdir_at(spot) and lstat_at(spot) is not None:
            kept.append(step.path)
    if tx.unsynced:  # written after the last barrier, or with none (an unchanged manifest
        tx.flush()  # that already lists a file put back): durable before the journal goes
    return kept


def preflight(steps: list[Step]) -> None:
    """Refuse, before the first change, a rewrite whose owner could not be kept."""
    for step in steps:
        if isinstance(step, Write):
            owners.check_rewrite(step.path, in_place=step.in_place, payload=step.payload)


def _current(spot: Spot) -> bytes:
    """What is at ``spot`` now, as ``Write.expect`` holds it (``ABSENT`` when nothing is)."""
    now = lstat_at(spot)
    if now is None:
        return ABSENT
    data = read_at(spot, now.st_size + (1 << 20))
    return b"\0msd:not a plain file" if data is None else data


def missing_dirs(path: Path, planned: set[Path]) -> list[Path]:
    """Directories above ``path`` that do not exist yet and are not planned yet, top first."""
    out: list[Path] = []
    probe = path.parent
    while not probe.exists() and probe not in planned:
        out.append(probe)
        if probe.parent == probe:
            break
        probe = probe.parent
    return list(reversed(out))
