"""The planned trees of the four documentation-only runtimes (Cursor, Windsurf, Google
Antigravity, Trae), global and local, against their golden files."""

from __future__ import annotations

import pytest
from golden import check, context

from msd_install.installer.context import GLOBAL, LOCAL
from msd_install.payload import load
from msd_install.runtimes import adapter

CORE = ("msd-core/workflows/plan-phase.md", "msd-core/workflows/map-codebase.md")
SAMPLES = {
    "cursor": (
        "skills/msd-plan-phase/SKILL.md",
        "skills/msd-workflow/SKILL.md",
        "agents/msd-planner.md",
        "agents/msd-plan-checker.md",
        "rules/msd-core.mdc",
    ),
    "windsurf": (
        "workflows/msd-plan-phase.md",
        "skills/msd-workflow/SKILL.md",
        "msd-core/agents/msd-planner.md",
    ),
    "antigravity": (
        "workflows/msd-plan-phase.md",
        "skills/msd-workflow/SKILL.md",
        "msd-core/agents/msd-planner.md",
    ),
    "trae": (
        "skills/msd-plan-phase/SKILL.md",
        "skills/msd-workflow/SKILL.md",
        "rules/msd-core.md",
    ),
}


@pytest.mark.parametrize("scope", [GLOBAL, LOCAL])
@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_golden(name: str, scope: str) -> None:
    runtime = adapter(name)
    assert runtime is not None
    check(f"{name}-{scope}", runtime.plan(context(scope), load()), SAMPLES[name] + CORE)
