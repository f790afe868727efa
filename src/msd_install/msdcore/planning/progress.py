"""The merged view of phases (ROADMAP.md + directories on disk) and project progress.

A phase is complete when its box in ``## Phases`` is checked. Progress weighs every phase
equally: a complete phase counts 1, a phase in execution counts its share of plans with a
SUMMARY, so the figure moves with every finished plan and never jumps backwards when a later
phase gains plans.
"""

from __future__ import annotations

from typing import Any

from ..toolspec import JSONObject, ToolError
from . import disk, phasenum, roadmap
from .fsio import exists, read_text
from .phasenum import PhaseKey
from .project import Project


def load_roadmap(project: Project, required: bool = False) -> roadmap.Roadmap | None:
    path = project.file("ROADMAP.md")
    if not exists(project, path):
        if required:
            raise ToolError("no_roadmap", f"{project.rel(path)}: not found (create it first)")
        return None
    return roadmap.parse(read_text(project, path, project.rel(path)))


def merged(project: Project) -> list[JSONObject]:
    """Every phase known to ROADMAP.md or present on disk, in number order."""
    rm = load_roadmap(project)
    dirs = disk.scan(project)
    listed = {p.key: p for p in rm.phases} if rm else {}
    out = []
    for key in sorted(set(listed) | set(dirs)):
        entry: JSONObject = {"number": phasenum.canonical(key)}
        ph, d = listed.get(key), dirs.get(key)
        entry["name"] = ph.name if ph else d.slug.replace("-", " ") if d else ""
        entry["goal"] = ph.goal if ph else ""
        entry["in_roadmap"] = ph is not None
        entry["complete"] = bool(ph and ph.complete)
        entry["depends_on"] = ph.depends_on if ph else []
        entry["plan_count"] = len(d.plans) if d else 0
        entry["summary_count"] = len([p for p in d.summaries if p in d.plans]) if d else 0
        disk_status = d.status if d else "not_started"
        entry["status"] = "complete" if entry["complete"] else disk_status
        entry["dir"] = project.rel(d.path) if d else None
        out.append(entry)
    return out


def _weight(phase: JSONObject) -> float:
    if phase["complete"]:
        return 1.0
    plans = int(phase["plan_count"])
    return int(phase["summary_count"]) / plans if plans else 0.0


def summary(project: Project) -> JSONObject:
    phases = merged(project)
    total = len(phases)
    done = sum(1 for p in phases if p["complete"])
    percent = round(100 * sum(_weight(p) for p in phases) / total) if total else 0
    current = next((p for p in phases if not p["complete"]), None)
    return {
        "phases": phases,
        "total_phases": total,
        "completed_phases": done,
        "total_plans": sum(int(p["plan_count"]) for p in phases),
        "completed_plans": sum(int(p["summary_count"]) for p in phases),
        "percent": percent,
        "current_phase": current,
        "milestone_complete": total > 0 and done == total,
    }


def bar(percent: int, width: int = 20) -> str:
    filled = round(width * max(0, min(100, percent)) / 100)
    return "[" + "#" * filled + "-" * (width - filled) + f"] {percent}%"


def state_counts(project: Project, current: PhaseKey | None) -> dict[str, Any]:
    """The STATE.md count fields as they are on disk now."""
    info = summary(project)
    counts: dict[str, Any] = {
        "total_phases": info["total_phases"],
        "completed_phases": info["completed_phases"],
        "total_plans": info["total_plans"],
        "completed_plans": info["completed_plans"],
        "progress_percent": info["percent"],
    }
    if current is not None:
        phase = next(
            (p for p in info["phases"] if p["number"] == phasenum.canonical(current)), None
        )
        counts["plans_in_phase"] = int(phase["plan_count"]) if phase else 0
        if phase and phase["name"]:
            counts["current_phase_name"] = phase["name"]
    return counts


# ---- operation shared by the CLI and the MCP tools --------------------------------------------


def progress(project: Project, fmt: str = "json") -> JSONObject:
    if fmt not in ("json", "bar"):
        raise ToolError("invalid_value", f"--format must be json or bar, not {fmt!r}")
    info = summary(project)
    line = (
        f"{bar(info['percent'])} {info['completed_phases']}/{info['total_phases']} phases, "
        f"{info['completed_plans']}/{info['total_plans']} plans"
    )
    if fmt == "bar":
        return {"format": "bar", "bar": line, "percent": info["percent"]}
    return {"format": "json", "bar": line, **info}
