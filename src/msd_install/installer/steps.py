"""Concrete disk steps decided by resolution, and the one place that executes them.

Resolution (pure reads) turns a plan or a manifest into ``Step`` values; ``execute`` performs
them through a ``Transaction``. A dry run stops after resolution, so it cannot write.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import ConcurrentChangeError
from .fs import Transaction


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


@dataclass(frozen=True)
class Remove:
    path: Path


@dataclass(frozen=True)
class RemoveDirIfEmpty:
    path: Path


@dataclass(frozen=True)
class Symlink:
    path: Path
    target: str


Step = MakeDir | Write | Remove | RemoveDirIfEmpty | Symlink


def execute(steps: list[Step], tx: Transaction) -> list[Path]:
    """Run the steps in order; returns the directories that ``RemoveDirIfEmpty`` kept."""
    kept: list[Path] = []
    for step in steps:
        if isinstance(step, MakeDir):
            tx.makedirs(step.path)
        elif isinstance(step, Write):
            if step.barrier:
                tx.flush()
            now = _current(step.path)
            if step.expect is not None and (ABSENT if now is None else now) != step.expect:
                raise ConcurrentChangeError(
                    "changed by another program while msd-install was editing it",
                    path=step.path,
                    hint="nothing was changed; run msd-install again",
                )
            tx.write(step.path, step.content, step.mode)
        elif isinstance(step, Remove):
            if step.path.exists() or step.path.is_symlink():
                tx.remove(step.path)
        elif isinstance(step, Symlink):
            tx.symlink(step.path, step.target)
        elif not tx.rmdir(step.path) and step.path.exists():
            kept.append(step.path)
    return kept


def _current(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


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
