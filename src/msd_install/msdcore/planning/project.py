"""Where a project's planning files live, and keeping every path argument inside the project.

A project is the nearest ancestor of the working directory that contains ``.planning/`` (so
``msd-tools`` works from any subdirectory), or the working directory itself before
``new-project`` has created it. Every file a command reads or writes is resolved with
``realpath`` and must stay inside the project root, compared component-wise, so ``..``, symlinks
leaving the tree and sibling-prefix names (``/w/project2`` vs ``/w/project``) are refused.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..confine import check_raw
from ..toolspec import ToolError

PLANNING = ".planning"


def contained(path: Path, root: Path) -> bool:
    """True when the already-resolved ``path`` is ``root`` or below it (component-wise)."""
    return path == root or root in path.parents


def resolve_inside(user_path: str, base: Path, root: Path) -> Path:
    """``user_path`` (relative to ``base`` or absolute) resolved, refused unless inside ``root``."""
    # The MCP file tools' lexical rules (type, empty, NUL, Windows forms, name length).
    check_raw(user_path)
    try:
        resolved = Path(os.path.realpath(base / user_path))
    except (OSError, ValueError) as exc:
        raise ToolError("invalid_path", f"{user_path!r}: {exc}") from None
    if not contained(resolved, root):
        raise ToolError("outside_project", f"{user_path!r}: outside the project directory")
    return resolved


def find_root(cwd: Path) -> Path:
    """The nearest ancestor of ``cwd`` holding ``.planning/``, else ``cwd`` (all realpaths)."""
    start = Path(os.path.realpath(cwd))
    for candidate in (start, *start.parents):
        if (candidate / PLANNING).is_dir():
            return candidate
    return start


@dataclass(frozen=True)
class Project:
    """A resolved project root plus the directory relative paths are read from."""

    root: Path
    cwd: Path
    env: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def discover(cls, cwd: Path, env: Mapping[str, str]) -> Project:
        if not cwd.is_dir():
            raise ToolError("not_found", f"{cwd}: no such directory")
        return cls(find_root(cwd), Path(os.path.realpath(cwd)), env)

    @property
    def planning(self) -> Path:
        return self.root / PLANNING

    def file(self, name: str) -> Path:
        """A path under ``.planning/`` by its relative name (checked to stay inside)."""
        return resolve_inside(f"{PLANNING}/{name}", self.root, self.root)

    def user_path(self, user_path: str) -> Path:
        """A path argument given by the caller, relative to the working directory."""
        return resolve_inside(user_path, self.cwd, self.root)

    def rel(self, path: Path) -> str:
        """``path`` relative to the project root, with forward slashes."""
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return path.as_posix()

    def require_planning(self) -> Path:
        planning = self.planning
        if not planning.is_dir():
            raise ToolError(
                "no_project", "no .planning/ directory here or above (run /msd-new-project first)"
            )
        real = Path(os.path.realpath(planning))
        if not contained(real, self.root):
            raise ToolError("outside_project", f"{planning}: resolves outside the project")
        return planning


# The planning files every workflow refers to, by key (relative to the project root).
PLANNING_FILES: dict[str, str] = {
    "project": f"{PLANNING}/PROJECT.md",
    "requirements": f"{PLANNING}/REQUIREMENTS.md",
    "roadmap": f"{PLANNING}/ROADMAP.md",
    "state": f"{PLANNING}/STATE.md",
    "config": f"{PLANNING}/config.json",
    "milestones": f"{PLANNING}/MILESTONES.md",
    "phases": f"{PLANNING}/phases",
    "research": f"{PLANNING}/research",
    "codebase": f"{PLANNING}/codebase",
    "todos_pending": f"{PLANNING}/todos/pending",
    "todos_completed": f"{PLANNING}/todos/completed",
    "quick": f"{PLANNING}/quick",
    "debug": f"{PLANNING}/debug",
    "continue_here": f"{PLANNING}/continue-here.md",
}
