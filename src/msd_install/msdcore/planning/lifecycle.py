"""Transitions that touch several files at once: finishing a plan, completing a phase.

Lock order is always the planning lock (``.planning/.lock``) before the state lock
(``.planning/.state.lock``), so two transitions can never wait on each other.
"""

from __future__ import annotations

import time

from ..toolspec import JSONObject, ToolError
from . import disk, phasenum, progress, roadmap, state
from .fsio import atomic_write, exists, read_text
from .locking import file_lock
from .project import Project


def _today() -> str:
    return time.strftime("%Y-%m-%d", time.gmtime())


def state_advance_plan(project: Project) -> JSONObject:
    """Mark the current plan done: move to the next plan, or to ``verifying`` after the last."""
    outcome: JSONObject = {}

    def change(fields: JSONObject) -> JSONObject:
        current = fields.get("current_phase")
        if current is None:
            raise ToolError("no_current_phase", "STATE.md has no current_phase to advance in")
        key = phasenum.parse(current)
        updates = progress.state_counts(project, key)
        plans = updates.get("plans_in_phase", 0)
        plan = int(fields.get("current_plan") or 0)
        if plan < plans:
            updates["current_plan"] = plan + 1
            updates["status"] = "executing"
            outcome["advanced"] = True
        else:
            updates["current_plan"] = plans
            updates["status"] = "verifying"
            outcome["advanced"] = False
        updates["last_activity"] = f"{_today()} - phase {current} plan {plan} done"
        return updates

    fields = state.mutate(project, change)
    return {
        **outcome,
        "current_phase": fields.get("current_phase"),
        "current_plan": fields.get("current_plan"),
        "plans_in_phase": fields.get("plans_in_phase"),
        "status": fields.get("status"),
        "phase_plans_done": not outcome["advanced"],
    }


def phase_complete(project: Project, number: str, force: bool = False) -> JSONObject:
    """Check the phase's box in ROADMAP.md and move STATE.md on to the next phase."""
    project.require_planning()
    key = phasenum.parse(number)
    with file_lock(project, project.lock(".lock")):
        path = project.file("ROADMAP.md")
        rm = progress.load_roadmap(project, required=True)
        assert rm is not None
        if rm.find(key) is None:
            raise ToolError("not_found", f"phase {phasenum.canonical(key)} is not in ROADMAP.md")
        d = disk.scan(project).get(key)
        missing = d.incomplete_plans if d else []
        if missing and not force:
            raise ToolError(
                "incomplete",
                f"phase {phasenum.canonical(key)}: plans without a SUMMARY: {', '.join(missing)} "
                "(pass --force to complete anyway)",
            )
        text = read_text(project, path, project.rel(path))
        checked = roadmap.with_complete(text, key)
        if checked != text:
            atomic_write(project, path, checked)
        info = progress.summary(project)
        nxt = info["current_phase"]
        state_updated = False
        if exists(project, project.file("STATE.md")):

            def change(fields: JSONObject) -> JSONObject:
                next_key = phasenum.parse(nxt["number"]) if nxt else None
                updates = progress.state_counts(project, next_key)
                updates.update(
                    current_phase=nxt["number"] if nxt else fields.get("current_phase"),
                    current_phase_name=nxt["name"] if nxt else fields.get("current_phase_name", ""),
                    current_plan=0,
                    status="ready_to_plan" if nxt else "milestone_complete",
                    last_activity=f"{_today()} - phase {phasenum.canonical(key)} complete",
                )
                if not nxt:
                    updates["plans_in_phase"] = 0
                return updates

            state.mutate(project, change)
            state_updated = True
    return {
        "number": phasenum.canonical(key),
        "complete": True,
        "forced_with_missing": missing if force else [],
        "next_phase": nxt,
        "milestone_complete": nxt is None,
        "state_updated": state_updated,
    }
