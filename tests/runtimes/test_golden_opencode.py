"""OpenCode's and Kilo's planned trees, global and local, against their golden files."""

from __future__ import annotations

import pytest
from golden import check, context

from msd_install.installer.context import GLOBAL, LOCAL
from msd_install.payload import load
from msd_install.runtimes import adapter

SAMPLES = (
    "skills/msd-plan-phase/SKILL.md",
    "skills/msd-workflow/SKILL.md",
    "agents/msd-planner.md",
    "msd-core/references/model-profiles.md",
)


@pytest.mark.parametrize("name", ["opencode", "kilo"])
@pytest.mark.parametrize("scope", [GLOBAL, LOCAL])
def test_golden(name: str, scope: str) -> None:
    runtime = adapter(name)
    assert runtime is not None
    check(f"{name}-{scope}", runtime.plan(context(scope), load()), SAMPLES)
