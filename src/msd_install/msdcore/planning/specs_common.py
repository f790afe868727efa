"""Shared pieces of the planning ToolSpecs: resolving ``project_path`` and schema builders.

``project_path`` is untrusted input: it is confined to the workspace root with
``msdcore.confine.resolve`` (the same function every file tool uses) and must name an existing
directory. Unlike the CLI, no ancestor search happens: the project is exactly that directory,
so a call can never reach above the path the client named. File arguments are then resolved
relative to the project and must stay inside it (``Project.user_path``), and every access
goes through the workspace's descriptors (``fsio``), like the file tools' own.
"""

from __future__ import annotations

import stat
from collections.abc import Callable
from typing import Any

from ..confine import resolve
from ..safeio import stat_entry
from ..toolspec import JSONObject, ToolContext, ToolError
from .project import Project

PROJECT_PATH: JSONObject = {
    "type": "string",
    "minLength": 1,
    "maxLength": 4096,
    "default": ".",
    "description": "Project directory, relative to the workspace root (default: the root).",
}
STRING: JSONObject = {"type": "string"}  # results
TEXT: JSONObject = {"type": "string", "maxLength": 65536}  # arguments
NONEMPTY: JSONObject = {"type": "string", "minLength": 1, "maxLength": 4096}
PHASE: JSONObject = {
    "type": "string",
    "minLength": 1,
    "maxLength": 32,
    "description": "Phase number such as 3 or 2.1",
}
FILE: JSONObject = {
    "type": "string",
    "minLength": 1,
    "maxLength": 4096,
    "description": "File path relative to the project directory.",
}
ANY_OBJECT: JSONObject = {"type": "object"}


def inputs(props: dict[str, Any], required: list[str] | None = None) -> JSONObject:
    """An arguments schema: ``project_path`` plus ``props``; no other keys accepted."""
    return {
        "type": "object",
        "properties": {"project_path": PROJECT_PATH, **props},
        "required": required or [],
        "additionalProperties": False,
    }


def outputs(props: dict[str, Any], required: list[str] | None = None) -> JSONObject:
    """A result schema: the listed keys typed, extra keys allowed (results may grow)."""
    return {"type": "object", "properties": props, "required": required or list(props)}


def project_of(ctx: ToolContext, args: JSONObject) -> Project:
    target = resolve(ctx.root, args.get("project_path", "."), "project_path")
    try:
        st = stat_entry(ctx.root, target.parts)
    except OSError:
        st = None
    if st is None or not stat.S_ISDIR(st.st_mode):
        raise ToolError("not_found", f"project_path '{target.rel}' is not a directory")
    return Project(ctx, target.parts, target.parts)


def with_project(
    fn: Callable[[Project, JSONObject], JSONObject],
) -> Callable[[ToolContext, JSONObject], JSONObject]:
    """Adapt ``fn(project, args)`` to the ToolSpec ``run(ctx, args)`` signature."""

    def run(ctx: ToolContext, args: JSONObject) -> JSONObject:
        return fn(project_of(ctx, args), args)

    return run
