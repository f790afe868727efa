"""Where a project's planning files live, and keeping every path inside the project.

A project is a directory below a confinement root (``ToolContext.root``). For ``msd-tools`` the
root *is* the project: the nearest ancestor of the working directory that contains
``.planning/`` (so the CLI works from any subdirectory), or the working directory itself
before ``new-project`` has created it. For the MCP tools the root is the server's workspace
and the project is the ``project_path`` argument inside it.

Paths are never used as strings to open anything. ``file``/``path``/``user_path`` confine an
argument with ``confine.resolve`` (the same check every file tool uses; in-workspace symlinks
are followed there, once, and a target outside the project is ``outside_project``) and
return a ``Target``: the real path's components below the root. ``fsio`` then reaches them
with ``O_NOFOLLOW`` descriptors from the root, so a directory swapped for a symlink after the
check makes the access fail instead of leaving the project.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..confine import Target, resolve
from ..toolspec import ToolContext, ToolError

PLANNING = ".planning"


def find_root(cwd: Path) -> Path:
    """The nearest ancestor of ``cwd`` holding ``.planning/``, else ``cwd`` (all realpaths)."""
    start = Path(os.path.realpath(cwd))
    for candidate in (start, *start.parents):
        if (candidate / PLANNING).is_dir():
            return candidate
    return start


def child(parent: Target, name: str) -> Target:
    """An entry found by listing ``parent`` (reached without following anything)."""
    return parent.child(name)


@dataclass(frozen=True)
class Project:
    """A project directory (``base``) below the confinement root, and where relative paths
    given by a caller start (``cwd``, inside ``base``)."""

    ctx: ToolContext
    base: tuple[str, ...] = ()
    cwd: tuple[str, ...] = ()

    @classmethod
    def discover(cls, cwd: Path, env: Mapping[str, str]) -> Project:
        """The CLI's project: confined to the project directory itself."""
        if not cwd.is_dir():
            raise ToolError("not_found", f"{cwd}: no such directory")
        root = find_root(cwd)
        inner = Path(os.path.realpath(cwd)).relative_to(root).parts
        return cls(ToolContext(root=root, env=env), (), inner)

    @property
    def env(self) -> Mapping[str, str]:
        return self.ctx.env

    @property
    def root(self) -> Path:
        """The project directory (for display and as git's working directory)."""
        return self.ctx.root.joinpath(*self.base)

    def _resolve(self, raw: object, start: tuple[str, ...], follow: bool = True) -> Target:
        return resolve(
            self.ctx.root,
            raw,
            "path",
            base=start,
            within=self.base,
            outside="outside_project",
            follow_leaf=follow,
        )

    def path(self, rel: str) -> Target:
        """A path relative to the project directory."""
        return self._resolve(rel, self.base)

    def file(self, name: str) -> Target:
        """A path under ``.planning/`` by its relative name."""
        return self.path(f"{PLANNING}/{name}")

    def lock(self, name: str) -> Target:
        """A lock file under ``.planning/``: the entry itself, never what a link there names."""
        return self._resolve(f"{PLANNING}/{name}", self.base, follow=False)

    def user_path(self, user_path: object) -> Target:
        """A path argument given by the caller, relative to the working directory."""
        return self._resolve(user_path, self.cwd)

    def rel(self, target: Target) -> str:
        """``target`` relative to the project directory, with forward slashes."""
        return "/".join(target.parts[len(self.base) :]) or "."

    @property
    def planning(self) -> Target:
        return self.path(PLANNING)

    def require_planning(self) -> Target:
        from .fsio import is_dir

        planning = self.planning
        if not is_dir(self, planning):
            raise ToolError(
                "no_project", "no .planning/ directory here or above (run /msd-new-project first)"
            )
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
