"""What the Codex adapter plans, checked against the traps of issue 8 for Codex."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import tomlkit
from golden import context

from msd_install.installer.context import GLOBAL, LOCAL
from msd_install.installer.plan import Plan
from msd_install.payload import load
from msd_install.runtimes import adapter
from msd_install.runtimes.codex import spawn
from msd_install.runtimes.convert import Spawn


def _plan(scope: str) -> Plan:
    codex = adapter("codex")
    assert codex is not None
    return codex.plan(context(scope), load())


def _texts(plan: Plan) -> dict[Path, str]:
    return {
        op.path: op.content.decode()
        for op in plan.files
        if op.path.suffix in (".md", ".toml", ".json")
    }


@pytest.mark.parametrize("scope", [GLOBAL, LOCAL])
def test_every_agent_is_a_toml_role_codex_will_load(scope: str) -> None:
    """Codex drops an agent file silently when it does not parse or lacks
    developer_instructions, and reads no Markdown agents."""
    plan = _plan(scope)
    agents = [op for op in plan.files if op.path.parent == plan.root / "agents"]
    assert len(agents) == 10 and all(op.path.suffix == ".toml" for op in agents)
    for op in agents:
        data = tomlkit.parse(op.content.decode()).unwrap()
        assert set(data) == {"name", "description", "developer_instructions"}
        assert data["name"] == op.path.stem and data["description"].strip()
        assert len(data["developer_instructions"]) > 1000
        assert "Task(" not in data["developer_instructions"]


def test_commands_are_skills_and_there_are_no_prompts() -> None:
    plan = _plan(GLOBAL)
    rel = sorted(op.path.relative_to(plan.root).as_posix() for op in plan.files)
    skills = [r for r in rel if r.startswith("skills/")]
    assert len(skills) == 28 and all(r.endswith("/SKILL.md") for r in skills)
    assert not [r for r in rel if r.startswith(("prompts/", "commands/"))]
    text = _texts(plan)[plan.root / "skills/msd-progress/SKILL.md"]
    assert text.startswith('---\nname: "msd-progress"\ndescription: "')
    assert "allowed-tools" not in text and "ARGUMENTS = the text the user wrote after" in text


def test_workflow_spawns_become_spawn_agent_calls_of_our_roles() -> None:
    plan = _plan(GLOBAL)
    roles = {op.path.stem for op in plan.files if op.path.parent == plan.root / "agents"}
    calls = 0
    for path, text in _texts(plan).items():
        assert "Task(" not in text, path
        for match in re.finditer(
            r'spawn_agent\(\n  agent_type="([^"]+)",\n  task_name="([^"]+)"', text
        ):
            calls += 1
            assert match.group(1) in roles, path
            assert re.fullmatch(r"[a-z0-9_<>]+", match.group(2)), match.group(2)
    assert calls >= 16


def test_spawn_keeps_the_prompt_and_drops_the_claude_model() -> None:
    out = spawn(Spawn("msd-planner", "Plan phase <N>", "Mode: x.\n  More.", "<init JSON m>"))
    assert 'agent_type="msd-planner"' in out and 'task_name="plan_phase_<n>"' in out
    assert 'fork_turns="none"' in out and 'message="Mode: x.\n  More."' in out
    assert "model" not in out.split("wait_agent")[0] and "wait_agent (targets" in out


def test_invocations_name_installed_skills_the_codex_way() -> None:
    plan = _plan(GLOBAL)
    names = {op.path.parent.name for op in plan.files if op.path.name == "SKILL.md"}
    found: set[str] = set()
    for text in _texts(plan).values():
        found |= set(re.findall(r"\$(msd-[a-z][a-z0-9-]*)", text))
        assert not re.search(r"(?<![\w/.~-])/msd-(?!core|tools|local|file)[a-z]", text)
    assert found and found <= names


@pytest.mark.parametrize("scope", [GLOBAL, LOCAL])
def test_hooks_use_codex_tool_names_and_no_feature_flag(scope: str) -> None:
    plan = _plan(scope)
    hooks = [e for e in plan.entries if e.file.name == "hooks.json"]
    assert len(hooks) == 8
    assert {e.value.get("matcher") for e in hooks} == {None, "Bash", "apply_patch"}
    toml = [e for e in plan.entries if e.file.name == "config.toml"]
    assert [(e.path, e.key) for e in toml] == [(("mcp_servers",), "msd")]
    notes = " ".join(plan.notes)
    assert "review and trust them" in notes
    assert ("only in a trusted project" in notes) == (scope == LOCAL)
