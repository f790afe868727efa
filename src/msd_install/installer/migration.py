"""What an installer migration is: the four operations it may ask for and the read-only view
its plan looks at (which migrations a manifest still needs: ``pending.py``).

A migration (one module under ``msd_install/migrations/``) has an ``id``, the version it
``ships_in``, and a pure ``plan(view) -> list[Op]`` over a read-only ``View`` of the root and
its manifest. Identity is the pair (id, version): never a hash of source text, so
reformatting a migration module changes nothing for an existing install. ``migrate`` runs
them. This module is imported only when a migration plans (one is pending, or a migration
module's ``plan`` runs): a run with none pending creates none of these classes.

Operations, each safe on its own:
``Move``: a file the manifest records (or a run-time state file it lists), moved as it is; a
file the user changed moves with their bytes (the install then saves it as a patch set under
its new path, so that ``--reapply`` merges the edit); one that was theirs before (adopted)
stays.
``RemoveIfOurs``: removed only while it still hashes as ours.
``RenameConfigEntry``: our recorded entry takes a new label (the name a plan entry has).
``RewriteValue``: inside our entry (found by its recorded hash or marker), every string
exactly equal to ``old`` becomes ``new``, in the file and in what the manifest records.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from .manifest import Manifest


@dataclass(frozen=True)
class Move:
    src: str  # relative to the root, ``/``-separated
    dst: str


@dataclass(frozen=True)
class RemoveIfOurs:
    rel: str


@dataclass(frozen=True)
class RenameConfigEntry:
    old_label: str
    new_label: str


@dataclass(frozen=True)
class RewriteValue:
    label: str  # the entry's label (after any rename in the same plan)
    old: str
    new: str


Op = Move | RemoveIfOurs | RenameConfigEntry | RewriteValue


@dataclass(frozen=True)
class Entry:
    """One config entry of ours as the manifest records it (read-only, for plans)."""

    file: str
    label: str
    marker: str
    value: Any


class View:
    """What a migration's plan may look at: the root, the project (``--local``) and a copy of
    the manifest's records. Nothing here can change anything."""

    def __init__(self, manifest: Manifest, project: Path | None) -> None:
        self.root = manifest.root
        self.project = project
        self.scope = manifest.scope
        self.installer_version = manifest.installer_version
        self._files = {rel: dict(rec) for rel, rec in manifest.files.items()}
        self._state = tuple(manifest.state)
        self._entries = tuple(
            Entry(rec["file"], op.get("label", ""), op.get("marker", ""), op.get("value"))
            for rec in manifest.config
            for op in rec["ops"]
            if op.get("label") != "container"
        )

    def files(self) -> list[str]:
        return sorted(self._files)

    def state(self) -> tuple[str, ...]:
        return self._state

    def entries(self) -> tuple[Entry, ...]:
        return self._entries

    def refs(self, rel: str) -> tuple[str, ...]:
        """How config values may name ``<root>/<rel>``: absolute, and relative to the project."""
        path = self.root / rel
        out = [path.as_posix()]
        if self.project is not None and path.is_relative_to(self.project):
            out.append(path.relative_to(self.project).as_posix())
        return tuple(out)


class Migration(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def ships_in(self) -> str: ...
    # run-time state files an earlier version listed (a manifest naming them is accepted)
    @property
    def legacy_state(self) -> tuple[str, ...]: ...
    def plan(self, view: View) -> list[Op]: ...
