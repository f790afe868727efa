"""CodeBuddy Code's planned trees, global and local, against their golden files."""

from __future__ import annotations

import pytest
from golden import check, context

from msd_install.installer.context import GLOBAL, LOCAL
from msd_install.payload import load
from msd_install.runtimes import adapter


@pytest.mark.parametrize("scope", [GLOBAL, LOCAL])
def test_codebuddy_golden(scope: str) -> None:
    codebuddy = adapter("codebuddy")
    assert codebuddy is not None
    plan = codebuddy.plan(context(scope), load())
    check(
        f"codebuddy-{scope}",
        plan,
        (
            "commands/msd-plan-phase.md",
            "skills/msd-workflow/SKILL.md",
            "agents/msd-planner.md",
            "msd-core/workflows/plan-phase.md",
        ),
    )
