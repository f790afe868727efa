"""Which model tier each MSD agent runs on, per ``model_profile`` (one table, read by ``init``).

Tiers are the runtime-neutral names ``opus``, ``sonnet``, ``haiku`` and ``inherit`` (use the
runtime's current model). ``balanced`` matches the ``model:`` line in each agent file: agents
that judge or design (planner, plan checker, roadmapper, debugger) get the strongest tier,
agents that gather or execute get the middle one, the codebase mapper the cheapest.
"""

from __future__ import annotations

PROFILES: dict[str, dict[str, str]] = {
    "quality": {
        "msd-project-researcher": "opus",
        "msd-research-synthesizer": "sonnet",
        "msd-roadmapper": "opus",
        "msd-phase-researcher": "opus",
        "msd-planner": "opus",
        "msd-plan-checker": "opus",
        "msd-executor": "opus",
        "msd-verifier": "opus",
        "msd-codebase-mapper": "sonnet",
        "msd-debugger": "opus",
    },
    "balanced": {
        "msd-project-researcher": "sonnet",
        "msd-research-synthesizer": "sonnet",
        "msd-roadmapper": "opus",
        "msd-phase-researcher": "sonnet",
        "msd-planner": "opus",
        "msd-plan-checker": "opus",
        "msd-executor": "sonnet",
        "msd-verifier": "sonnet",
        "msd-codebase-mapper": "haiku",
        "msd-debugger": "opus",
    },
    "budget": {
        "msd-project-researcher": "haiku",
        "msd-research-synthesizer": "haiku",
        "msd-roadmapper": "sonnet",
        "msd-phase-researcher": "haiku",
        "msd-planner": "sonnet",
        "msd-plan-checker": "sonnet",
        "msd-executor": "sonnet",
        "msd-verifier": "haiku",
        "msd-codebase-mapper": "haiku",
        "msd-debugger": "sonnet",
    },
}


def models_for(profile: str) -> dict[str, str]:
    """Agent name -> tier for ``profile``; ``inherit`` (or unknown) defers to the runtime."""
    table = PROFILES.get(profile)
    if table is None:
        return dict.fromkeys(PROFILES["balanced"], "inherit")
    return dict(table)
