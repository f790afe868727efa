"""Size budgets: workflows stay within their line tier, agents under the character limit."""

from __future__ import annotations

import pytest
from payload_corpus import (
    AGENT_MAX_CHARS,
    AGENTS,
    DATA,
    WORKFLOW_DEFAULT_LINES,
    WORKFLOW_LINE_BUDGET,
    WORKFLOWS,
    workflow_path,
)


@pytest.mark.parametrize("name", WORKFLOWS)
def test_workflow_within_its_tier(name: str) -> None:
    lines = workflow_path(name).read_text(encoding="utf-8").count("\n")
    budget = WORKFLOW_LINE_BUDGET.get(name, WORKFLOW_DEFAULT_LINES)
    assert lines <= budget, f"{name}.md has {lines} lines, budget {budget}"


@pytest.mark.parametrize("name", AGENTS)
def test_agent_under_character_limit(name: str) -> None:
    path = DATA / "agents" / f"{name}.md"
    if not path.is_file():
        pytest.fail(f"agents/{name}.md is missing")
    chars = len(path.read_text(encoding="utf-8"))
    assert chars < AGENT_MAX_CHARS, f"{name}.md has {chars} characters"
