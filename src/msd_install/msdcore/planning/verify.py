"""Structural checks: is a PLAN.md executable, is a phase finished?

Both return findings rather than failing: ``valid`` / ``complete`` is false and ``errors`` /
``missing`` say why, so a workflow can show the list to the planner and loop. Only a missing
file or an unparsable frontmatter is an error of the command itself.

The ``<tag>...</tag>`` blocks are found with ``str.find`` scans, not lazy ``.*?`` regexes: a
document with many openers and no closer made those quadratic (minutes for a few MB, inside
the regex engine, which never yields the GIL).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..toolspec import JSONObject, ToolError
from . import disk, phasenum, schemas
from .frontmatter import parse_text, read
from .fsio import read_text
from .project import Project
from .roadmap import strip_comments

TASK_TYPES = (
    "auto",
    "tdd",
    "checkpoint:human-verify",
    "checkpoint:decision",
    "checkpoint:human-action",
)
TASK_PARTS = ("name", "files", "action", "verify", "done")
PLAN_SECTIONS = ("objective", "tasks")


def block(text: str, tag: str) -> str | None:
    """The text of the first ``<tag>...</tag>`` (as a lazy regex search would find it)."""
    start = text.find(f"<{tag}>")
    if start < 0:
        return None
    start += len(tag) + 2
    end = text.find(f"</{tag}>", start)
    return None if end < 0 else text[start:end]


def tasks(body: str) -> Iterator[tuple[str, str]]:
    """``(attributes, inner text)`` of each ``<task ...>...</task>`` block, in order."""
    pos = 0
    while True:
        start = body.find("<task", pos)
        if start < 0:
            return
        after = start + 5
        if body[after : after + 1] == ">":
            close_tag = after
        elif body[after : after + 1].isspace():
            close_tag = body.find(">", after)
            if close_tag < 0:
                return  # no '>' anywhere after: no later opener can close either
        else:
            pos = after  # '<tasks>' and the like
            continue
        end = body.find("</task>", close_tag + 1)
        if end < 0:
            return  # no closer after this opener, hence none after any later one
        yield body[after:close_tag], body[close_tag + 1 : end]
        pos = end + 7


def verify_plan_structure(project: Project, file: str) -> JSONObject:
    path = project.user_path(file)
    data, doc = read(project, path, project.rel(path))
    errors = schemas.validate(data, "plan")
    warnings: list[str] = []
    body = strip_comments(doc.body)
    for section in PLAN_SECTIONS:
        if block(body, section) is None:
            errors.append(f"body: missing <{section}>...</{section}>")
    found = []
    for n, (attrs, inner_text) in enumerate(tasks(body), start=1):
        project.ctx.guard.check()
        kind = re.search(r'type="([^"]*)"', attrs)
        task_type = kind.group(1) if kind else None
        if task_type not in TASK_TYPES:
            errors.append(
                f"task {n}: type must be one of {', '.join(TASK_TYPES)}, got {task_type!r}"
            )
        parts = ("name",) if task_type and task_type.startswith("checkpoint") else TASK_PARTS
        for part in parts:
            inner = block(inner_text, part)
            if inner is None:
                errors.append(f"task {n}: missing <{part}>")
            elif not inner.strip():
                errors.append(f"task {n}: <{part}> is empty")
        name = block(inner_text, "name")
        found.append({"n": n, "type": task_type, "name": name.strip() if name else None})
    if not found:
        errors.append("body: no <task> blocks inside <tasks>")
    checkpoints = any(t["type"] and str(t["type"]).startswith("checkpoint") for t in found)
    if data.get("autonomous") is True and checkpoints:
        warnings.append("autonomous: true but the plan has checkpoint tasks")
    return {
        "path": project.rel(path),
        "valid": not errors,
        "errors": errors,
        "warnings": warnings,
        "tasks": found,
    }


def verify_phase_completeness(project: Project, number: str) -> JSONObject:
    key = phasenum.parse(number)
    phase = disk.scan(project).get(key)
    if phase is None:
        raise ToolError(
            "not_found", f"phase {phasenum.canonical(key)}: no directory in .planning/phases/"
        )
    missing: list[str] = []
    pre = phasenum.prefix(key)
    if not phase.plans:
        missing.append(f"{pre}-01-PLAN.md (the phase has no plans)")
    missing += [f"{pre}-{p}-SUMMARY.md" for p in phase.incomplete_plans]
    orphans = [f"{pre}-{s}-SUMMARY.md" for s in phase.summaries if s not in phase.plans]
    verification = None
    if phase.has("VERIFICATION"):
        vpath = phase.doc(f"{pre}-VERIFICATION.md")
        data, _ = parse_text(read_text(project, vpath, project.rel(vpath)), project.rel(vpath))
        verification = data.get("status")
        if verification != "passed":
            missing.append(f"{pre}-VERIFICATION.md with status passed (it says {verification!r})")
    else:
        missing.append(f"{pre}-VERIFICATION.md")
    return {
        "number": phasenum.canonical(key),
        "dir": project.rel(phase.path),
        "complete": not missing,
        "missing": missing,
        "orphan_summaries": orphans,
        "plans": len(phase.plans),
        "summaries": len(phase.summaries),
        "verification_status": verification,
    }
