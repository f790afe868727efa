"""Command files: frontmatter shape, one workflow each, arguments handled, help lists them all."""

from __future__ import annotations

import pytest
from payload_corpus import (
    CLAUDE_TOOLS,
    COMMANDS,
    DATA,
    WORKFLOWS,
    command_path,
    load_frontmatter,
    workflow_path,
)

REQUIRED_KEYS = {"name", "description", "argument-hint", "allowed-tools"}


def test_command_files_are_exactly_the_contract() -> None:
    on_disk = sorted(p.name for p in (DATA / "commands").glob("*.md"))
    assert on_disk == sorted(f"msd-{c}.md" for c in COMMANDS)


@pytest.mark.parametrize("name", COMMANDS)
def test_command_frontmatter(name: str) -> None:
    meta, body = load_frontmatter(command_path(name))
    assert isinstance(meta, dict), "frontmatter missing or not a mapping"
    assert set(meta) == REQUIRED_KEYS
    assert meta["name"] == f"msd-{name}"
    assert isinstance(meta["description"], str) and meta["description"].strip()
    # An unquoted `[phase]` hint parses as a YAML list: the hint must stay a string.
    assert isinstance(meta["argument-hint"], str)
    tools = meta["allowed-tools"]
    assert isinstance(tools, list) and tools, "allowed-tools must be a non-empty YAML list"
    unknown = [t for t in tools if not (t in CLAUDE_TOOLS or str(t).startswith("mcp__"))]
    assert unknown == [], f"unknown Claude tools: {unknown}"
    assert len(set(tools)) == len(tools), "duplicate tools"
    assert body.strip()


@pytest.mark.parametrize("name", COMMANDS)
def test_command_loads_its_workflow_and_passes_arguments(name: str) -> None:
    _, body = load_frontmatter(command_path(name))
    assert f"@~/.claude/msd-core/workflows/{name}.md" in body
    assert "$ARGUMENTS" in body


@pytest.mark.parametrize("name", COMMANDS)
def test_command_body_sections(name: str) -> None:
    """Objective, the workflow to load, how arguments are read, what the command produces."""
    _, body = load_frontmatter(command_path(name))
    for section in ("objective", "execution_context", "arguments", "output", "process"):
        assert f"<{section}>" in body and f"</{section}>" in body, section


@pytest.mark.parametrize("name", COMMANDS)
def test_commands_that_spawn_agents_may_use_task(name: str) -> None:
    """A workflow that spawns agents needs the Task tool in its command's allowed-tools."""
    meta, _ = load_frontmatter(command_path(name))
    workflow = workflow_path(name).read_text(encoding="utf-8")
    if "subagent_type" in workflow:
        assert "Task" in meta["allowed-tools"]


def test_workflow_files_are_exactly_the_contract() -> None:
    on_disk = sorted(p.name for p in (DATA / "core" / "workflows").glob("*.md"))
    assert on_disk == sorted(f"{w}.md" for w in WORKFLOWS)


@pytest.mark.parametrize("name", [w for w in WORKFLOWS if w != "help"])
def test_workflow_loads_context_through_msd_tools_init(name: str) -> None:
    text = workflow_path(name).read_text(encoding="utf-8")
    assert f"msd-core/bin/msd-tools init {name}" in text


def test_help_lists_every_command() -> None:
    text = workflow_path("help").read_text(encoding="utf-8")
    missing = [c for c in COMMANDS if f"/msd-{c}" not in text]
    assert missing == []
