"""Claude Code's planned trees, global and local, against their golden files."""

from __future__ import annotations

import pytest
from golden import check, context

from msd_install.installer.context import GLOBAL, LOCAL
from msd_install.payload import load
from msd_install.runtimes import adapter


@pytest.mark.parametrize("scope", [GLOBAL, LOCAL])
def test_claude_golden(scope: str) -> None:
    claude = adapter("claude")
    assert claude is not None
    plan = claude.plan(context(scope), load())
    check(f"claude-{scope}", plan, ("skills/msd-plan-phase/SKILL.md", "agents/msd-planner.md"))
