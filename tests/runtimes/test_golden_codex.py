"""Codex's planned trees, global and local, against their golden files."""

from __future__ import annotations

import pytest
from golden import check, context

from msd_install.installer.context import GLOBAL, LOCAL
from msd_install.payload import load
from msd_install.runtimes import adapter


@pytest.mark.parametrize("scope", [GLOBAL, LOCAL])
def test_codex_golden(scope: str) -> None:
    codex = adapter("codex")
    assert codex is not None
    plan = codex.plan(context(scope), load())
    check(
        f"codex-{scope}",
        plan,
        (
            "skills/msd-plan-phase/SKILL.md",
            "skills/msd-workflow/SKILL.md",
            "agents/msd-planner.toml",
            "msd-core/workflows/execute-phase.md",
        ),
    )
