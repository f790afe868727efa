"""STATE.md: the project's living memory — typed frontmatter fields plus free Markdown sections.

Format (the template is ``msd-core/templates/state.md``)::

    ---
    msd_state_version: 1
    status: executing          # one of STATUSES
    current_phase: "2.1"       # phase numbers are strings: 2.1 must not become a float
    current_plan: 1
    ...                        # every field of FIELDS, in that order
    ---
    # Project State
    ## Current Position        # regenerated from the fields on every write
    ## Decisions / ## Blockers / ## Session Continuity ...   # free text, kept verbatim

Fields are the machine truth; sections are for people and agents. Every write is a locked
read-modify-write (``.planning/.state.lock``) that edits only the changed frontmatter lines,
stamps ``last_updated`` and rewrites the ``## Current Position`` section, then replaces the file
atomically. So parallel executors patching different fields never lose each other's updates.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any

from ..toolspec import JSONObject, ToolError
from . import phasenum
from .frontmatter import parse_text, with_key
from .fsio import atomic_write, exists, read_text
from .locking import file_lock
from .project import Project

STATUSES = (
    "not_started",
    "discussing",
    "ready_to_plan",
    "planning",
    "ready_to_execute",
    "executing",
    "verifying",
    "phase_complete",
    "milestone_complete",
    "paused",
    "blocked",
)

# field -> kind; kinds: int, str, phase (number as string or null), status, list (of strings)
FIELDS: dict[str, str] = {
    "msd_state_version": "int",
    "project": "str",
    "milestone": "str",
    "milestone_name": "str",
    "status": "status",
    "current_phase": "phase",
    "current_phase_name": "str",
    "current_plan": "int",
    "plans_in_phase": "int",
    "total_phases": "int",
    "completed_phases": "int",
    "total_plans": "int",
    "completed_plans": "int",
    "progress_percent": "int",
    "last_activity": "str",
    "last_updated": "str",
    "stopped_at": "str",
    "resume_file": "str",
    "blockers": "list",
}

POSITION_HEADING = "## Current Position"


def coerce(field: str, value: Any) -> Any:
    """``value`` (a CLI string or a JSON value) converted to the type of ``field``."""
    kind = FIELDS.get(field)
    if kind is None:
        raise ToolError(
            "unknown_field", f"{field}: not a STATE.md field (known: {', '.join(FIELDS)})"
        )
    if kind == "int":
        if isinstance(value, str) and re.match(r"^-?\d+$", value.strip()):
            return int(value)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise ToolError("invalid_value", f"{field}: expected an integer, got {value!r}")
    if kind == "phase":
        if value is None or value in ("", "null", "none"):
            return None
        return phasenum.canonical(phasenum.parse(value))
    if kind == "status":
        if value not in STATUSES:
            raise ToolError("invalid_value", f"{field}: must be one of {', '.join(STATUSES)}")
        return value
    if kind == "list":
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                value = [value] if value else []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ToolError("invalid_value", f"{field}: expected a list of strings")
        return value
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise ToolError("invalid_value", f"{field}: expected a string, got {value!r}")
    return str(value)


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def sections(body: str) -> dict[str, str]:
    """``## Heading`` -> its text (up to the next ``## `` heading), in order."""
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in body.splitlines(keepends=True):
        if line.startswith("## "):
            current = out[line[3:].strip()] = []
        elif current is not None:
            current.append(line)
    return {k: "".join(v).strip("\n") for k, v in out.items()}


def _bar(percent: int, width: int = 20) -> str:
    filled = round(width * max(0, min(100, percent)) / 100)
    return "[" + "#" * filled + "-" * (width - filled) + f"] {percent}%"


def position_text(fields: JSONObject) -> str:
    phase = fields.get("current_phase")
    name = fields.get("current_phase_name") or ""
    total = fields.get("total_phases") or 0
    lines = [
        f"Phase: {phase if phase is not None else '-'} of {total}" + (f" ({name})" if name else ""),
        f"Plan: {fields.get('current_plan', 0)} of {fields.get('plans_in_phase', 0)}",
        f"Status: {fields.get('status', 'not_started')}",
        f"Last activity: {fields.get('last_activity') or '-'}",
        f"Progress: {_bar(int(fields.get('progress_percent') or 0))}",
    ]
    return "\n".join(lines)


def _with_position(body: str, fields: JSONObject) -> str:
    lines = body.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.rstrip() == POSITION_HEADING:
            end = i + 1
            while end < len(lines) and not lines[end].startswith("## "):
                end += 1
            block = [f"{POSITION_HEADING}\n", "\n", position_text(fields) + "\n"]
            if end < len(lines):
                block.append("\n")
            return "".join(lines[:i] + block + lines[end:])
    return body


def load(project: Project) -> tuple[JSONObject, str, str]:
    """(fields, body, text) of STATE.md; ``no_state`` when it does not exist."""
    path = project.file("STATE.md")
    if not exists(project, path):
        raise ToolError(
            "no_state", f"{project.rel(path)}: not found (create it: template fill state.md)"
        )
    text = read_text(project, path, project.rel(path))
    fields, doc = parse_text(text, project.rel(path))
    return fields, doc.body, text


def mutate(project: Project, change: Callable[[JSONObject], JSONObject]) -> JSONObject:
    """Locked read-modify-write: ``change(fields)`` returns the fields to set; returns all."""
    project.require_planning()
    path = project.file("STATE.md")
    with file_lock(project, project.lock(".state.lock")):
        fields, _, text = load(project)
        updates = change(dict(fields))
        updates["last_updated"] = now()
        source = project.rel(path)
        for key, value in updates.items():
            if fields.get(key) != value or key not in fields:
                text = with_key(text, key, value, source)
        new_fields, doc = parse_text(text, source)
        text = doc.head + doc.fm_text + doc.tail + _with_position(doc.body, new_fields)
        atomic_write(project, path, text)
    return new_fields


# ---- operations shared by the CLI and the MCP tools -------------------------------------------


def state_load(project: Project) -> JSONObject:
    fields, body, _ = load(project)
    return {
        "path": project.rel(project.file("STATE.md")),
        "fields": fields,
        "sections": sections(body),
    }


def state_get(project: Project, field: str) -> JSONObject:
    fields, body, _ = load(project)
    if field in fields:
        return {"field": field, "value": fields[field]}
    by_heading = {k.lower(): v for k, v in sections(body).items()}
    if field.lower() in by_heading:
        return {"field": field, "value": by_heading[field.lower()], "section": True}
    if field in FIELDS:
        return {"field": field, "value": None}
    raise ToolError("unknown_field", f"{field}: no such STATE.md field or section")


def state_patch(project: Project, changes: JSONObject) -> JSONObject:
    if not isinstance(changes, dict) or not changes:
        raise ToolError("invalid_value", "patch needs a non-empty JSON object of field: value")
    typed = {field: coerce(field, value) for field, value in changes.items()}
    previous: JSONObject = {}

    def change(fields: JSONObject) -> JSONObject:
        previous.update({k: fields.get(k) for k in typed})
        return dict(typed)

    fields = mutate(project, change)
    return {"updated": {k: fields.get(k) for k in typed}, "previous": previous}


def state_update(project: Project, field: str, value: Any) -> JSONObject:
    result = state_patch(project, {field: value})
    return {
        "field": field,
        "value": result["updated"][field],
        "previous": result["previous"][field],
    }
