"""Structural checks: is a PLAN.md executable, is a phase finished?

Both return findings rather than failing: ``valid`` / ``complete`` is false and ``errors`` /
``missing`` say why, so a workflow can show the list to the planner and loop. Only a missing
file or an unparsable frontmatter is an error of the command itself.
"""

from __future__ import annotations

import re

from ..toolspec import JSONObject, ToolError
from . import disk, phasenum, schemas
from .frontmatter import parse_text, read
from .fsio import read_text
from .project import Project

TASK_RE = re.compile(r"<task(?P<attrs>(?:\s[^>]*)?)>(?P<body>.*?)</task>", re.S)
TASK_TYPES = (
    "auto",
    "tdd",
    "checkpoint:human-verify",
    "checkpoint:decision",
    "checkpoint:human-action",
)
TASK_PARTS = ("name", "files", "action", "verify", "done")
PLAN_SECTIONS = ("objective", "tasks")


def _strip_comments(text: str) -> str:
    return re.sub(r"<!--.*?-->", "", text, flags=re.S)


def verify_plan_structure(project: Project, file: str) -> JSONObject:
    path = project.user_path(file)
    data, doc = read(path, project.rel(path))
    errors = schemas.validate(data, "plan")
    warnings: list[str] = []
    body = _strip_comments(doc.body)
    for section in PLAN_SECTIONS:
        if not re.search(rf"<{section}>.*?</{section}>", body, re.S):
            errors.append(f"body: missing <{section}>...</{section}>")
    tasks = []
    for n, m in enumerate(TASK_RE.finditer(body), start=1):
        kind = re.search(r'type="([^"]*)"', m.group("attrs"))
        task_type = kind.group(1) if kind else None
        if task_type not in TASK_TYPES:
            errors.append(
                f"task {n}: type must be one of {', '.join(TASK_TYPES)}, got {task_type!r}"
            )
        parts = ("name",) if task_type and task_type.startswith("checkpoint") else TASK_PARTS
        for part in parts:
            inner = re.search(rf"<{part}>(.*?)</{part}>", m.group("body"), re.S)
            if inner is None:
                errors.append(f"task {n}: missing <{part}>")
            elif not inner.group(1).strip():
                errors.append(f"task {n}: <{part}> is empty")
        name = re.search(r"<name>(.*?)</name>", m.group("body"), re.S)
        tasks.append({"n": n, "type": task_type, "name": name.group(1).strip() if name else None})
    if not tasks:
        errors.append("body: no <task> blocks inside <tasks>")
    checkpoints = any(t["type"] and str(t["type"]).startswith("checkpoint") for t in tasks)
    if data.get("autonomous") is True and checkpoints:
        warnings.append("autonomous: true but the plan has checkpoint tasks")
    return {
        "path": project.rel(path),
        "valid": not errors,
        "errors": errors,
        "warnings": warnings,
        "tasks": tasks,
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
        vpath = phase.path / f"{pre}-VERIFICATION.md"
        data, _ = parse_text(read_text(vpath, project.rel(vpath)), project.rel(vpath))
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
