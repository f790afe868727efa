"""CodeBuddy Code's plan: what each payload item becomes, where the MCP server goes, which
hooks are registered how. Facts behind each rule: runtimes/codebuddy.py (verified with
``codebuddy-headless`` 2.163.0; the e2e tests check them against the real CLI)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from golden import HOME, PROJECT, context

from msd_install.installer.context import GLOBAL, LOCAL, Context
from msd_install.installer.plan import Plan
from msd_install.payload import Document, load, split_frontmatter
from msd_install.runtimes import adapter
from msd_install.runtimes.codebuddy import DIALECT, ROUTING, _spawn, user_mcp_files
from msd_install.runtimes.convert import Spawn, convert_text
from msd_install.runtimes.markdown import tools_of

PAYLOAD = load()
CODEBUDDY = adapter("codebuddy")
assert CODEBUDDY is not None


def _plan(scope: str = GLOBAL, **extra: object) -> Plan:
    assert CODEBUDDY is not None
    return CODEBUDDY.plan(context(scope, **extra), PAYLOAD)


def _text(plan: Plan, rel: str) -> str:
    (op,) = [op for op in plan.files if op.path == plan.root / rel]
    return op.content.decode()


def _front(text: str) -> Document:
    return split_frontmatter("x.md", text)


def test_commands_are_native_commands_and_routers_skills() -> None:
    plan = _plan()
    rels = {op.path.relative_to(plan.root).as_posix() for op in plan.files}
    for command in PAYLOAD.commands:
        assert f"commands/{command.name}.md" in rels
        assert f"skills/{command.name}/SKILL.md" not in rels  # never listed twice
    for skill in PAYLOAD.skills:
        assert f"skills/{skill.name}/SKILL.md" in rels
        assert f"commands/{skill.name}.md" not in rels
    assert len([r for r in rels if r.startswith("commands/")]) == 22
    assert len([r for r in rels if r.startswith("agents/")]) == 10


def test_command_keeps_claudes_frontmatter_with_codebuddys_tool_names() -> None:
    doc = _front(_text(_plan(), "commands/msd-plan-phase.md"))
    assert [k for k, _ in doc.meta] == ["description", "argument-hint", "allowed-tools"]
    assert tools_of(doc, "allowed-tools") == [
        "Read",
        "Write",
        "Edit",
        "Bash",
        "Glob",
        "Grep",
        "Agent",
        "WebFetch",
    ]
    assert "@~/.codebuddy/msd-core/workflows/plan-phase.md" in doc.body
    assert "\n$ARGUMENTS\n" in doc.body  # CodeBuddy substitutes it as Claude Code does


def test_local_command_names_engine_files_relative_to_the_project() -> None:
    text = _text(_plan(LOCAL), "commands/msd-plan-phase.md")
    assert "@.codebuddy/msd-core/workflows/plan-phase.md" in text and str(PROJECT) not in text


def test_agents_get_routing_values_for_claude_tiers() -> None:
    plan = _plan()
    seen = {}
    for agent in PAYLOAD.agents:
        doc = _front(_text(plan, f"agents/{agent.name}.md"))
        assert doc.get("name") == agent.name and doc.get("description") == agent.description
        assert doc.get("tools") == ", ".join(agent.tools)  # Claude's names are CodeBuddy's
        assert doc.get("color") == agent.doc.get("color")
        seen[agent.doc.get("model")] = doc.get("model")
    assert seen == {"opus": "reasoning", "sonnet": "default", "haiku": "lite"}
    assert any(ROUTING in note for note in plan.notes)


def test_workflows_start_agents_with_the_agent_tool() -> None:
    plan = _plan()
    text = _text(plan, "msd-core/workflows/plan-phase.md")
    assert "Task(" not in text
    assert (
        'Agent(\n  subagent_type="msd-planner",\n'
        f'  model="<init JSON models.msd-planner as a CodeBuddy routing value: {ROUTING}>",\n'
        '  description="Plan phase <N>",\n'
    ) in text
    mapping = _text(plan, "msd-core/workflows/map-codebase.md")
    assert "four Agent calls" in mapping and "Task" not in mapping.replace("TaskCreate", "")
    profiles = _text(plan, "msd-core/references/model-profiles.md")
    assert f"as CodeBuddy's routing value ({ROUTING})" in profiles


def test_spawn_without_model_has_no_model_line() -> None:
    out = _spawn(Spawn("msd-verifier", "Verify", "Check it.", ""))
    assert out == (
        'Agent(\n  subagent_type="msd-verifier",\n  description="Verify",\n  prompt="Check it."\n)'
    )


def test_text_speaks_of_codebuddy() -> None:
    text = convert_text(
        "See `./CLAUDE.md` or `AGENTS.md`; run `pipx run msd-install --claude`; Claude's "
        'discretion; /msd-help. Task(subagent_type="msd-x", prompt="go")',
        DIALECT,
        "~/.codebuddy/",
        ["msd-help"],
    )
    assert "`./CODEBUDDY.md` or `AGENTS.md`" in text  # CodeBuddy's fallback is AGENTS.md
    assert "--codebuddy" in text and "the agent's discretion" in text and "/msd-help" in text
    assert 'Agent(\n  subagent_type="msd-x"' in text


def test_router_hands_over_through_the_skill_tool() -> None:
    text = _text(_plan(), "skills/msd-workflow/SKILL.md")
    assert "(Skill tool: in\nCodeBuddy it runs the command of that name)" in text
    assert "where skills are commands" not in text


@pytest.mark.parametrize(
    ("existing", "chosen"),
    [
        ((), ".codebuddy/.mcp.json"),
        ((".codebuddy.json",), ".codebuddy.json"),
        ((".codebuddy/mcp.json", ".codebuddy.json"), ".codebuddy/mcp.json"),
        (
            (".codebuddy/.mcp.json", ".codebuddy/mcp.json", ".codebuddy.json"),
            ".codebuddy/.mcp.json",
        ),
    ],
)
def test_global_server_goes_into_the_first_existing_user_file(
    tmp_path: Path, existing: tuple[str, ...], chosen: str
) -> None:
    for rel in existing:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("{}")
    ctx = Context(home=tmp_path, cwd=tmp_path / "p", interpreter=Path("/py"))
    assert CODEBUDDY is not None
    plan = CODEBUDDY.plan(ctx, PAYLOAD)
    (entry,) = [e for e in plan.entries if e.label == "MCP server msd"]
    assert entry.file == tmp_path / chosen and entry.path == ("mcpServers",)
    assert entry.fmt == "jsonc" and entry.key == "msd"
    assert entry.value["type"] == "stdio"  # what CodeBuddy itself writes back on `mcp get`
    # whichever was chosen at install, a later uninstall accepts it
    assert set(plan.bounds().config_files) >= set(user_mcp_files(ctx, plan.root))


def test_local_server_goes_into_codebuddys_local_scope() -> None:
    plan = _plan(LOCAL)
    (entry,) = [e for e in plan.entries if e.label == "MCP server msd"]
    assert entry.file == HOME / ".codebuddy.json"
    assert entry.path == ("projects", str(PROJECT), "mcpServers") and entry.key == "msd"
    assert entry.value["args"] == ["-I", "-S", str(PROJECT / ".codebuddy/msd-core/bin/msd-mcp")]
    assert all(e.file != PROJECT / ".mcp.json" for e in plan.entries)  # Claude Code's file


def test_config_dir_env_moves_root_and_every_mcp_file() -> None:
    env = {"CODEBUDDY_CONFIG_DIR": "/cb"}
    plan = _plan(env=env)
    assert plan.root == Path("/cb")
    (entry,) = [e for e in plan.entries if e.label == "MCP server msd"]
    assert entry.file == Path("/cb/.mcp.json")
    assert set(plan.config_names) == {
        Path("/cb/.mcp.json"),
        Path("/cb/mcp.json"),
        Path("/cb/.codebuddy.json"),
    }
    local = _plan(LOCAL, env=env)
    (entry,) = [e for e in local.entries if e.label == "MCP server msd"]
    assert entry.file == Path("/cb/.codebuddy.json")


def test_config_dir_flag_is_the_home_and_says_how_to_use_it() -> None:
    plan = _plan(config_dir=Path("/elsewhere"))
    assert plan.root == Path("/elsewhere")
    assert Path("/elsewhere/.codebuddy.json") in plan.config_names
    assert any("CODEBUDDY_CONFIG_DIR=/elsewhere" in n for n in plan.notes)


def test_hooks_are_claudes_shape_in_settings_json() -> None:
    for scope in (GLOBAL, LOCAL):
        plan = _plan(scope)
        hooks = [e for e in plan.entries if e.label.startswith("hook ")]
        assert {e.path[1] for e in hooks} == {"PreToolUse", "PostToolUse", "SessionStart"}
        assert all(e.file == plan.root / "settings.json" and e.fmt == "jsonc" for e in hooks)
        (status,) = [e for e in plan.entries if e.key == "statusLine"]
        guard = next(e for e in hooks if "secret-read-guard" in e.label)
        assert guard.value["matcher"] == "Read|Grep|Bash"
        command = guard.value["hooks"][0]["command"]
        assert "--dialect" not in command and guard.value["hooks"][0]["timeout"] == 10
        if scope == LOCAL:
            assert '"$CODEBUDDY_PROJECT_DIR"/.codebuddy/hooks/' in command
            assert '"$CODEBUDDY_PROJECT_DIR"/.codebuddy/hooks/' in status.value["command"]
        else:
            assert f'"{HOME}/.codebuddy/hooks/msd-secret-read-guard.py"' in command


def test_no_file_names_claude_code_paths() -> None:
    for scope in (GLOBAL, LOCAL):
        plan = _plan(scope)
        for op in plan.files:
            if op.path.suffix != ".py":
                assert b".claude/" not in op.content, op.path
        for entry in plan.entries:
            assert ".claude" not in json.dumps(entry.value)
