"""Gemini CLI's and Qwen Code's planned trees, global and local, against their golden files."""

from __future__ import annotations

import pytest
from golden import check, context

from msd_install.installer.context import GLOBAL, LOCAL
from msd_install.payload import load
from msd_install.runtimes import adapter

SAMPLES = {
    "gemini": ("commands/msd-plan-phase.toml", "agents/msd-planner.md"),
    "qwen": ("commands/msd-plan-phase.md", "agents/msd-planner.md"),
}


@pytest.mark.parametrize("scope", [GLOBAL, LOCAL])
@pytest.mark.parametrize("name", ["gemini", "qwen"])
def test_golden(name: str, scope: str) -> None:
    runtime = adapter(name)
    assert runtime is not None
    plan = runtime.plan(context(scope), load())
    check(f"{name}-{scope}", plan, (*SAMPLES[name], "skills/msd-workflow/SKILL.md"))
