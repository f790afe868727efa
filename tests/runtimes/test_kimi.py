"""Kimi Code CLI: the planned trees (golden), and each conversion rule as Kimi 2.1.0 reads it.

The rules come from Kimi's bundled ``dist/main.mjs`` (skill parser and argument expansion,
agent-file parser and prompt template, hook schema, mcp.json schema) and are checked against
the real CLI in tests/e2e/test_kimi_cli.py; here every installed file is held to them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from golden import HOME, PROJECT, check, context

from msd_install.installer.context import GLOBAL, LOCAL
from msd_install.installer.plan import ITEM, MEMBER, Plan
from msd_install.payload import load, split_frontmatter
from msd_install.runtimes import adapter
from msd_install.runtimes.kimi import BLOCKING

# Kimi 2.1.0's HOOK_EVENT_TYPES and HookDefSchema (a strict object: no other key)
EVENTS = {
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionResult",
    "UserPromptSubmit", "UserPromptQueued", "TurnStarted", "Stop", "StopFailure", "Interrupt",
    "SessionStart", "SessionEnd", "SessionHeartbeat", "SubagentStart", "SubagentStop",
    "TaskStarted", "PreCompact", "PostCompact", "Notification",
}  # fmt: skip
HOOK_KEYS = {"event", "matcher", "command", "timeout"}
# the tools a Kimi agent file may name (its built-in tool registry)
KIMI_TOOLS = {
    "Read", "Write", "Edit", "Bash", "Glob", "Grep", "Agent", "AskUserQuestion", "WebSearch",
    "FetchURL", "TodoList", "Skill", "ReadMediaFile", "TaskList", "TaskOutput", "TaskStop",
}  # fmt: skip
AGENT_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# what Kimi substitutes in a skill body (besides $ARGUMENTS) and in an agent's prompt
SKILL_PLACEHOLDER = re.compile(r"\$\d+(?!\w)|\$ARGUMENTS\[\d+\]")
AGENT_VARIABLE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")
# a Claude-style `/msd-x` invocation (Kimi's is `/skill:msd-x`)
BARE_COMMAND = re.compile(r"(?<![\w/.~:-])/msd-[a-z]")


def plan_for(scope: str, **extra: Any) -> Plan:
    kimi = adapter("kimi")
    assert kimi is not None
    return kimi.plan(context(scope, **extra), load())


def files(plan: Plan) -> dict[str, str]:
    return {
        op.path.relative_to(plan.root).as_posix(): op.content.decode("utf-8")
        for op in plan.files
        if op.path.suffix in (".md", ".toml", ".json")
    }


def front(text: str) -> tuple[dict[str, Any], str]:
    """Frontmatter and body, parsed as YAML (Kimi parses the block with a YAML loader)."""
    assert text.startswith("---\n"), text[:80]
    doc = split_frontmatter("x.md", text)
    return dict(doc.meta), doc.body


@pytest.mark.parametrize("scope", [GLOBAL, LOCAL])
def test_kimi_golden(scope: str) -> None:
    check(
        f"kimi-{scope}",
        plan_for(scope),
        (
            "skills/msd-plan-phase/SKILL.md",
            "skills/msd-workflow/SKILL.md",
            "agents/msd-planner.md",
            "msd-core/workflows/execute-phase.md",
        ),
    )


@pytest.mark.parametrize("scope", [GLOBAL, LOCAL])
def test_every_skill_has_what_kimi_requires_and_no_placeholder_it_would_eat(scope: str) -> None:
    plan = plan_for(scope)
    skills = {p: t for p, t in files(plan).items() if p.startswith("skills/")}
    assert len(skills) == 28  # 22 commands + 6 routers, each one /skill:<name>
    for path, text in skills.items():
        meta, body = front(text)
        assert set(meta) == {"name", "description"}, path
        assert meta["name"] == path.split("/")[1] and meta["description"].strip(), path
        assert not SKILL_PLACEHOLDER.search(body), path
        assert "@~/" not in body and "@.kimi-code/" not in body, path
        assert BARE_COMMAND.search(body) is None, path
    plan_phase = skills["skills/msd-plan-phase/SKILL.md"]
    assert "(arguments: [phase] [--skip-research]" in plan_phase
    assert "$ARGUMENTS" in plan_phase  # Kimi substitutes it with what the user typed
    assert "Read these files first:" in plan_phase


def test_workflows_spawn_kimi_agents_and_name_kimi_commands() -> None:
    texts = files(plan_for(GLOBAL))
    execute = texts["msd-core/workflows/execute-phase.md"]
    assert "Task(" not in execute and 'Agent(\n  subagent_type="msd-executor",' in execute
    assert "model=" not in execute.split("Agent(", 1)[1].split(")", 1)[0]
    assert "`~/.kimi-code/msd-core/references/" in execute or "~/.kimi-code/" in execute
    mapping = texts["msd-core/workflows/map-codebase.md"]
    assert "four Agent calls" in mapping
    everything = "\n".join(texts.values())
    assert "/skill:msd-progress" in everything
    assert BARE_COMMAND.search(everything) is None
    assert "--kimi" in texts["msd-core/workflows/update.md"]


@pytest.mark.parametrize("scope", [GLOBAL, LOCAL])
def test_agents_are_kimi_agent_files(scope: str) -> None:
    plan = plan_for(scope)
    agents = {p: t for p, t in files(plan).items() if p.startswith("agents/")}
    assert len(agents) == 10
    for path, text in agents.items():
        meta, body = front(text)
        assert AGENT_NAME.match(meta["name"]) and path == f"agents/{meta['name']}.md"
        assert meta["description"].strip() and body.strip()
        assert set(meta) <= {"name", "description", "tools"}  # no model, no color
        assert set(meta.get("tools", [])) <= KIMI_TOOLS, path
        assert not AGENT_VARIABLE.search(body), path
    researcher, _ = front(agents["agents/msd-phase-researcher.md"])
    assert researcher["tools"] == ["Read", "Write", "Bash", "Grep", "Glob", "WebSearch", "FetchURL"]
    notes = " ".join(plan.notes)
    assert "color dropped" in notes and "model 'opus' is a Claude model tier" in notes


def test_global_hooks_are_kimis_strict_hook_tables() -> None:
    plan = plan_for(GLOBAL)
    hooks = [e for e in plan.entries if e.path == ("hooks",)]
    assert [e.label for e in hooks] == [f"hook {name}" for name in BLOCKING]
    for entry in hooks:
        assert entry.kind == ITEM and entry.fmt == "toml"
        assert entry.file == HOME / ".kimi-code/config.toml"
        assert set(entry.value) == HOOK_KEYS and entry.value["event"] in EVENTS
        assert 1 <= entry.value["timeout"] <= 600
        assert entry.value["matcher"].startswith("^(") and entry.value["matcher"].endswith(")$")
        assert entry.value["command"].endswith(" --dialect kimi")
        assert entry.marker == entry.value["command"]
    assert hooks[0].value["matcher"] == "^(Read|Grep|Bash)$"
    installed = {p for p in files(plan) if p.startswith("hooks/")} | {
        op.path.name for op in plan.files if op.path.parent.name == "hooks"
    }
    assert installed == {
        "msd-secret-read-guard.py",
        "msd-secret-read-guard-code.py",  # each launcher's code (payload/hookcode.py)
        "msd-secret-read-guard-shell.py",
        "msd-validate-commit.py",
        "msd-validate-commit-code.py",
    }
    notes = " ".join(plan.notes)
    assert "msd-session-state not registered: Kimi ignores what a SessionStart hook prints" in notes


def test_local_install_has_no_hooks_and_says_why() -> None:
    plan = plan_for(LOCAL)
    assert plan.root == PROJECT / ".kimi-code"
    assert [e.label for e in plan.entries] == ["MCP server msd"]
    assert not any(op.path.parent.name == "hooks" for op in plan.files)
    notes = " ".join(plan.notes)
    assert "a local install registers none" in notes
    assert "only in a trusted folder" in notes and "does not trust folders for you" in notes


@pytest.mark.parametrize("scope", [GLOBAL, LOCAL])
def test_the_mcp_server_is_a_valid_kimi_stdio_entry(scope: str) -> None:
    plan = plan_for(scope)
    (entry,) = [e for e in plan.entries if e.label == "MCP server msd"]
    root = plan.root
    assert (entry.kind, entry.fmt, entry.path, entry.key) == (
        MEMBER,
        "json",
        ("mcpServers",),
        "msd",
    )
    assert entry.file == root / "mcp.json"
    server = entry.value
    # Kimi's McpServerConfigSchema: a string `command` makes it stdio; args string[], env
    # string->string; nothing else of ours
    if scope == GLOBAL:
        assert set(server) == {"command", "args", "env"}
        assert server["command"] == "/usr/bin/python3"
        assert server["args"] == ["-I", "-S", str(root / "msd-core/bin/msd-mcp")]
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in server["env"].items())
    else:  # committed with the project: python3 from the PATH, the launcher relative to it
        assert server == {
            "command": "python3",
            "args": ["-I", "-S", ".kimi-code/msd-core/bin/msd-mcp"],
        }
    assert json.loads(json.dumps(server)) == server
    assert entry.requires == (root / "msd-core/bin/msd-mcp",)


def test_kimi_code_home_and_config_dir(tmp_path: Path) -> None:
    custom = tmp_path / "kimi-home"
    plan = plan_for(GLOBAL, env={"KIMI_CODE_HOME": str(custom)})
    assert plan.root == custom
    assert not any("--config-dir" in n for n in plan.notes)
    elsewhere = plan_for(GLOBAL, config_dir=tmp_path / "elsewhere")
    assert elsewhere.root == tmp_path / "elsewhere"
    assert f"only when started with KIMI_CODE_HOME={tmp_path / 'elsewhere'}" in " ".join(
        elsewhere.notes
    )
