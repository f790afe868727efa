"""What a run did (or, in a dry run, would do): fixed verbs per path, renderable as text or JSON.

Verbs: create, identical, update, conflict, backup, remove, restore, skip, kept, migrate,
adopt. ``identical`` means no write at all; ``kept`` is the user's tuning of an entry of ours,
kept (reported on the first run that sees it, then recorded in the manifest); ``migrate`` is a
change made by an installer migration (installer/migrate.py); ``adopt`` is a file or entry of
msd's taken into a new manifest by ``--adopt`` (installer/baseline.py). The JSON shape is versioned
(``schema``); add fields, never change meanings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

VERBS = (
    "create", "identical", "update", "conflict", "backup", "remove", "restore", "skip", "kept",
    "migrate", "adopt",
)  # fmt: skip
# what a rerun decides again, so not drift: the user's own entry stays, their tuning stays
STEADY = ("identical", "skip", "conflict", "kept")
JSON_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Action:
    verb: str
    path: Path
    detail: str = ""

    def __post_init__(self) -> None:
        if self.verb not in VERBS:
            raise ValueError(self.verb)


@dataclass
class Result:
    command: str  # "install" | "uninstall"
    runtime: str
    scope: str
    root: Path
    dry_run: bool
    actions: list[Action] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, verb: str, path: Path, detail: str = "") -> None:
        self.actions.append(Action(verb, path, detail))

    def count(self, verb: str) -> int:
        return sum(1 for a in self.actions if a.verb == verb)

    @property
    def conflicts(self) -> int:
        return self.count("conflict")

    @property
    def drift(self) -> bool:
        """Would an install change anything? ``skip``, ``conflict`` and ``kept`` are decisions
        that a rerun makes again (the user's own entry or tuning stays): not drift."""
        return any(a.verb not in STEADY for a in self.actions)

    def to_json(self) -> dict[str, Any]:
        return {
            "command": self.command,
            "runtime": self.runtime,
            "scope": self.scope,
            "root": str(self.root),
            "dry_run": self.dry_run,
            "actions": [
                {"verb": a.verb, "path": str(a.path), **({"detail": a.detail} if a.detail else {})}
                for a in self.actions
            ],
            "summary": {v: self.count(v) for v in VERBS if self.count(v)},
            "drift": self.drift,
            "notes": self.notes,
        }
