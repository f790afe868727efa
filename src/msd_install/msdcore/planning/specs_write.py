"""Mutating planning tools (MCP): each ``run`` calls the function the CLI subcommand calls.

What they change is journaled for the audit log by ``safewrite`` as it happens, so nothing has
to be predicted here."""

from __future__ import annotations

from collections.abc import Callable

from ..toolspec import JSONObject, ToolContext, ToolSpec
from . import config, frontmatter, lifecycle, phases, state, template, todo
from .specs_common import FILE, NONEMPTY, PHASE, STRING, TEXT, inputs, outputs, with_project

ANY: dict[str, str] = {}
BOOL = {"type": "boolean"}
OBJECT = {"type": "object"}
STATE_VALUE = {
    "type": ["string", "integer", "array", "null"],
    "items": {"type": "string", "maxLength": 65536},
    "maxItems": 1000,
    "maxLength": 65536,
    "description": 'Field value; phase numbers as strings ("2.1"), blockers as a list.',
}


def _spec(
    name: str,
    title: str,
    description: str,
    props: dict[str, object],
    required: list[str],
    out: dict[str, object],
    run: Callable[[ToolContext, JSONObject], JSONObject],
    *,
    destructive: bool,
    idempotent: bool,
) -> ToolSpec:
    return ToolSpec(
        name=name,
        title=title,
        description=description,
        input_schema=inputs(props, required),
        output_schema=outputs(out),
        run=run,
        read_only=False,
        destructive=destructive,
        idempotent=idempotent,
    )


WRITE_TOOLS: list[ToolSpec] = [
    _spec(
        "state_update",
        "Update a STATE.md field",
        "Set one STATE.md frontmatter field (locked, atomic; last_updated is stamped).",
        {"field": NONEMPTY, "value": STATE_VALUE},
        ["field", "value"],
        {"field": STRING, "value": ANY, "previous": ANY},
        with_project(lambda p, a: state.state_update(p, a["field"], a["value"])),
        destructive=True,
        idempotent=True,
    ),
    _spec(
        "state_patch",
        "Patch STATE.md fields",
        "Set several STATE.md frontmatter fields in one locked, atomic write (all or nothing).",
        {"changes": {"type": "object", "description": "field -> value"}},
        ["changes"],
        {"updated": OBJECT, "previous": OBJECT},
        with_project(lambda p, a: state.state_patch(p, a["changes"])),
        destructive=True,
        idempotent=True,
    ),
    _spec(
        "state_advance_plan",
        "Advance to the next plan",
        "Mark the current plan done: move to the next plan of the phase, or to status"
        " 'verifying' after the last one. Counts are recomputed from the files on disk.",
        {},
        [],
        {"advanced": BOOL, "status": STRING, "phase_plans_done": BOOL},
        with_project(lambda p, a: lifecycle.state_advance_plan(p)),
        destructive=True,
        idempotent=False,
    ),
    _spec(
        "phase_add",
        "Add a phase",
        "Append a phase (next integer number) to ROADMAP.md and create its directory.",
        {"name": NONEMPTY, "goal": TEXT},
        ["name"],
        {"number": STRING, "name": STRING, "dir": STRING},
        with_project(lambda p, a: phases.phase_add(p, a["name"], a.get("goal", ""))),
        destructive=False,
        idempotent=False,
    ),
    _spec(
        "phase_insert",
        "Insert a decimal phase",
        "Insert urgent work right after phase 'after' with a decimal number (after 2: 2.1,"
        " then 2.2; after 2.1: 2.1.1), in ROADMAP.md and on disk. No phase is renumbered.",
        {"after": PHASE, "name": NONEMPTY, "goal": TEXT},
        ["after", "name"],
        {"number": STRING, "name": STRING, "dir": STRING, "after": STRING},
        with_project(lambda p, a: phases.phase_insert(p, a["after"], a["name"], a.get("goal", ""))),
        destructive=False,
        idempotent=False,
    ),
    _spec(
        "phase_complete",
        "Complete a phase",
        "Check the phase in ROADMAP.md and move STATE.md to the next phase. Refused while a"
        " plan has no SUMMARY unless force is true.",
        {"number": PHASE, "force": {"type": "boolean", "default": False}},
        ["number"],
        {"number": STRING, "complete": BOOL, "milestone_complete": BOOL},
        with_project(
            lambda p, a: lifecycle.phase_complete(p, a["number"], bool(a.get("force", False)))
        ),
        destructive=True,
        idempotent=False,
    ),
    _spec(
        "config_set",
        "Set config",
        "Set a .planning/config.json key by dotted name (type-checked against the defaults;"
        " unknown keys are refused). Other keys are kept.",
        {"key": NONEMPTY, "value": ANY},
        ["key", "value"],
        {"key": STRING, "value": ANY, "previous": ANY},
        with_project(lambda p, a: config.config_set(p, a["key"], a["value"])),
        destructive=True,
        idempotent=True,
    ),
    _spec(
        "frontmatter_set",
        "Set a frontmatter key",
        "Set one top-level frontmatter key of a document; other lines stay byte-for-byte.",
        {"file": FILE, "key": NONEMPTY, "value": ANY},
        ["file", "key", "value"],
        {"path": STRING, "key": STRING, "changed": BOOL},
        with_project(lambda p, a: frontmatter.frontmatter_set(p, a["file"], a["key"], a["value"])),
        destructive=True,
        idempotent=True,
    ),
    _spec(
        "template_fill",
        "Fill a template",
        "Fill an msd-core template's {{var}} placeholders. Every placeholder needs a value"
        " (date defaults to today) and every var must be used. Returns the text, or writes it"
        " to 'out' (refused if it exists unless force).",
        {
            "name": NONEMPTY,
            "vars": {"type": "object", "additionalProperties": {"type": "string"}},
            "out": FILE,
            "force": {"type": "boolean", "default": False},
        },
        ["name"],
        {"template": STRING, "vars": {"type": "array"}},
        with_project(
            lambda p, a: template.template_fill(
                p, a["name"], a.get("vars", {}), a.get("out"), bool(a.get("force", False))
            )
        ),
        destructive=True,
        idempotent=False,
    ),
    _spec(
        "todo_add",
        "Add a todo",
        "Capture an idea as .planning/todos/pending/<id>-<slug>.md.",
        {"title": NONEMPTY, "area": TEXT},
        ["title"],
        {"id": STRING, "title": STRING, "path": STRING},
        with_project(lambda p, a: todo.todo_add(p, a["title"], a.get("area") or "general")),
        destructive=False,
        idempotent=False,
    ),
    _spec(
        "todo_done",
        "Complete a todo",
        "Move a pending todo to .planning/todos/completed/ and stamp its completion time.",
        {"id": NONEMPTY},
        ["id"],
        {"id": STRING, "title": STRING, "path": STRING},
        with_project(lambda p, a: todo.todo_done(p, a["id"])),
        destructive=True,
        idempotent=False,
    ),
]
