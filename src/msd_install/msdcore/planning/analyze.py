"""``roadmap analyze`` and ``roadmap get-phase``: ROADMAP.md joined with what is on disk."""

from __future__ import annotations

from ..toolspec import JSONObject, ToolError
from . import disk, phasenum, progress
from .project import Project


def _joined(project: Project) -> tuple[list[JSONObject], list[str]]:
    rm = progress.load_roadmap(project, required=True)
    assert rm is not None
    dirs = disk.scan(project)
    warnings = list(rm.warnings)
    phases = []
    for phase in rm.phases:
        entry = phase.to_json()
        d = dirs.get(phase.key)
        entry["disk"] = d.to_json(project) if d else None
        entry["status"] = "complete" if phase.complete else (d.status if d else "not_started")
        phases.append(entry)
    for key, d in sorted(dirs.items()):
        if rm.find(key) is None:
            warnings.append(
                f"{project.rel(d.path)}: phase {phasenum.canonical(key)} is not in ROADMAP.md"
            )
    return phases, warnings


def roadmap_analyze(project: Project) -> JSONObject:
    phases, warnings = _joined(project)
    info = progress.summary(project)
    nxt = next((p for p in phases if not p["complete"]), None)
    return {
        "path": project.rel(project.file("ROADMAP.md")),
        "phases": phases,
        "total_phases": len(phases),
        "completed_phases": sum(1 for p in phases if p["complete"]),
        "current_phase": nxt["number"] if nxt else None,
        "percent": info["percent"],
        "warnings": warnings,
    }


def roadmap_get_phase(project: Project, number: str) -> JSONObject:
    key = phasenum.parse(number)
    phases, _ = _joined(project)
    wanted = phasenum.canonical(key)
    for phase in phases:
        if phase["number"] == wanted:
            return phase
    raise ToolError("not_found", f"phase {wanted} is not in ROADMAP.md")
