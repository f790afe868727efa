"""Read-only planning tools (MCP): each ``run`` calls the function the CLI subcommand calls."""

from __future__ import annotations

from collections.abc import Callable

from ..toolspec import JSONObject, ToolContext, ToolSpec
from . import analyze, config, frontmatter, phases, progress, state, todo, verify
from .specs_common import FILE, NONEMPTY, PHASE, STRING, TEXT, inputs, outputs, with_project

ARRAY = {"type": "array"}
OBJECT = {"type": "object"}
BOOL = {"type": "boolean"}
INT = {"type": "integer"}
STR_OR_NULL = {"type": ["string", "null"]}
ANY: dict[str, str] = {}


def _spec(
    name: str,
    title: str,
    description: str,
    props: dict[str, object],
    required: list[str],
    out: dict[str, object],
    run: Callable[[ToolContext, JSONObject], JSONObject],
) -> ToolSpec:
    return ToolSpec(
        name=name,
        title=title,
        description=description,
        input_schema=inputs(props, required),
        output_schema=outputs(out),
        run=run,
        read_only=True,
        idempotent=True,
    )


READ_TOOLS: list[ToolSpec] = [
    _spec(
        "state_load",
        "Load STATE.md",
        "All STATE.md frontmatter fields (typed) and its Markdown sections by heading.",
        {},
        [],
        {"path": STRING, "fields": OBJECT, "sections": OBJECT},
        with_project(lambda p, a: state.state_load(p)),
    ),
    _spec(
        "state_get",
        "Get one STATE.md field",
        "One STATE.md frontmatter field, or the text of a '## Section' by its heading.",
        {"field": NONEMPTY},
        ["field"],
        {"field": STRING, "value": ANY},
        with_project(lambda p, a: state.state_get(p, a["field"])),
    ),
    _spec(
        "roadmap_analyze",
        "Analyze ROADMAP.md",
        "Every phase of ROADMAP.md (goal, dependencies, requirements, success criteria, plans)"
        " joined with its directory on disk, plus the current phase and warnings.",
        {},
        [],
        {"path": STRING, "phases": ARRAY, "current_phase": STR_OR_NULL, "warnings": ARRAY},
        with_project(lambda p, a: analyze.roadmap_analyze(p)),
    ),
    _spec(
        "roadmap_get_phase",
        "Get one roadmap phase",
        "One phase of ROADMAP.md by number, with its files on disk.",
        {"number": PHASE},
        ["number"],
        {"number": STRING, "name": STRING, "goal": STRING, "complete": BOOL, "status": STRING},
        with_project(lambda p, a: analyze.roadmap_get_phase(p, a["number"])),
    ),
    _spec(
        "phase_list",
        "List phases",
        "Every phase known to ROADMAP.md or present in .planning/phases/, in number order.",
        {},
        [],
        {"phases": ARRAY, "count": INT},
        with_project(lambda p, a: phases.phase_list(p)),
    ),
    _spec(
        "phase_next",
        "Next phase",
        "The first phase that is not complete, and the number a new phase would get.",
        {},
        [],
        {"next": {"type": ["object", "null"]}, "next_number": STRING, "all_complete": BOOL},
        with_project(lambda p, a: phases.phase_next(p)),
    ),
    _spec(
        "config_get",
        "Get config",
        "A .planning/config.json value by dotted key (defaults applied: absent workflow flags"
        " are enabled), or the whole effective config when key is omitted.",
        {"key": TEXT},
        [],
        {"key": STR_OR_NULL, "value": ANY},
        with_project(lambda p, a: config.config_get(p, a.get("key") or None)),
    ),
    _spec(
        "progress",
        "Project progress",
        "Phases and plans completed, percent done and a text progress bar.",
        {"format": {"type": "string", "enum": ["json", "bar"], "default": "json"}},
        [],
        {"format": STRING, "bar": STRING, "percent": INT},
        with_project(lambda p, a: progress.progress(p, a.get("format", "json"))),
    ),
    _spec(
        "frontmatter_get",
        "Get frontmatter",
        "The YAML frontmatter of a planning document, or one key of it.",
        {"file": FILE, "key": TEXT},
        ["file"],
        {"path": STRING},
        with_project(lambda p, a: frontmatter.frontmatter_get(p, a["file"], a.get("key"))),
    ),
    _spec(
        "frontmatter_validate",
        "Validate frontmatter",
        "Check a PLAN, SUMMARY, VERIFICATION or CONTEXT document's frontmatter against its"
        " schema; returns valid plus one message per problem.",
        {
            "file": FILE,
            "schema": {"type": "string", "enum": ["plan", "summary", "verification", "context"]},
        },
        ["file", "schema"],
        {"path": STRING, "schema": STRING, "valid": BOOL, "errors": ARRAY},
        with_project(lambda p, a: frontmatter.frontmatter_validate(p, a["file"], a["schema"])),
    ),
    _spec(
        "verify_plan_structure",
        "Verify a PLAN.md",
        "Check that a PLAN.md is executable: frontmatter schema, <objective>, <tasks> with"
        " complete <task> blocks. Returns valid, errors and warnings.",
        {"file": FILE},
        ["file"],
        {"path": STRING, "valid": BOOL, "errors": ARRAY, "warnings": ARRAY, "tasks": ARRAY},
        with_project(lambda p, a: verify.verify_plan_structure(p, a["file"])),
    ),
    _spec(
        "verify_phase_completeness",
        "Verify a phase is complete",
        "Whether every plan of a phase has a SUMMARY and the phase has a passed VERIFICATION;"
        " lists what is missing.",
        {"number": PHASE},
        ["number"],
        {"number": STRING, "complete": BOOL, "missing": ARRAY},
        with_project(lambda p, a: verify.verify_phase_completeness(p, a["number"])),
    ),
    _spec(
        "todo_list",
        "List todos",
        "Pending todos (and completed ones when include_completed is true).",
        {"include_completed": {"type": "boolean", "default": False}},
        [],
        {"pending": ARRAY, "count": INT},
        with_project(lambda p, a: todo.todo_list(p, bool(a.get("include_completed", False)))),
    ),
]
