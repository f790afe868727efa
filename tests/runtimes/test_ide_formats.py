"""What Cursor, Windsurf, Google Antigravity and Trae get, format by format, checked against
each runtime's documented contract (the sources are in each adapter's docstring): ``.mdc`` and
Trae rules, workflows, skills, agents, the three hooks.json shapes, MCP files and paths."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from golden import context
from ruamel.yaml import YAML

from msd_install.installer.context import GLOBAL, LOCAL
from msd_install.installer.plan import ITEM, MEMBER, Plan
from msd_install.payload import load
from msd_install.runtimes import adapter
from msd_install.runtimes.convert import Spawn, instructions_spawn
from msd_install.runtimes.cursor import _spawn as cursor_spawn
from msd_install.runtimes.trae import mcp_file

PAYLOAD = load()
WINDSURF_EVENTS = {
    "pre_read_code", "post_read_code", "pre_write_code", "post_write_code", "pre_run_command",
    "post_run_command", "pre_mcp_tool_use", "post_mcp_tool_use", "pre_user_prompt",
    "post_cascade_response", "post_cascade_response_with_transcript", "post_setup_worktree",
}  # fmt: skip
CURSOR_EVENTS = {
    "sessionStart", "sessionEnd", "preToolUse", "postToolUse", "postToolUseFailure",
    "subagentStart", "subagentStop", "beforeShellExecution", "afterShellExecution",
    "beforeMCPExecution", "afterMCPExecution", "beforeReadFile", "afterFileEdit",
    "beforeSubmitPrompt", "preCompact", "stop", "afterAgentResponse", "afterAgentThought",
}  # fmt: skip


def planned(name: str, scope: str, **extra: Any) -> Plan:
    runtime = adapter(name)
    assert runtime is not None
    return runtime.plan(context(scope, **extra), PAYLOAD)


def files(plan: Plan) -> dict[str, str]:
    out = {}
    for op in plan.files:
        rel = op.path.relative_to(plan.root) if op.path.is_relative_to(plan.root) else op.path
        if op.path.suffix in (".md", ".mdc"):
            out[Path(rel).as_posix()] = op.content.decode()
    return out


def front(text: str) -> tuple[dict[str, Any], str]:
    assert text.startswith("---\n"), text[:80]
    head, _, body = text[4:].partition("\n---\n")
    meta = YAML(typ="safe", pure=True).load(head)
    assert isinstance(meta, dict)
    return meta, body


def test_cursor_rule_is_an_mdc_with_an_unquoted_glob() -> None:
    text = files(planned("cursor", LOCAL))["rules/msd-core.mdc"]
    meta, body = front(text)
    assert meta == {
        "description": "How MSD Core keeps this project's planning state in .planning/",
        "globs": ".planning/**",
        "alwaysApply": False,
    }
    assert "\nglobs: .planning/**\n" in text  # Cursor does not match a quoted glob
    assert "`.cursor/msd-core/workflows/`" in body and "/msd-progress" in body
    assert "rules/msd-core.mdc" not in files(planned("cursor", GLOBAL))  # user rules: settings


def test_cursor_commands_are_skills_and_agents_carry_readonly() -> None:
    plan = planned("cursor", GLOBAL)
    docs = files(plan)
    assert not any(p.startswith("commands/") for p in docs)  # one item per name (rule 3)
    for command in PAYLOAD.commands:
        meta, body = front(docs[f"skills/{command.name}/SKILL.md"])
        assert meta == {"name": command.name, "description": command.description}
        assert "$ARGUMENTS" not in body and "@~/" not in body
    by_name = {a.name: set(a.tools) for a in PAYLOAD.agents}
    for name, tools in by_name.items():
        meta, _ = front(docs[f"agents/{name}.md"])
        assert set(meta) <= {"name", "description", "readonly"}
        writes = tools & {"Write", "Edit", "MultiEdit", "Bash"}
        assert meta.get("readonly", False) is (bool(tools) and not writes), name


def test_workflows_are_markdown_with_a_description_under_12000_characters() -> None:
    cases = (("windsurf", GLOBAL), ("windsurf", LOCAL), ("antigravity", LOCAL))
    for name, scope in cases:
        plan = planned(name, scope)
        ops = [op for op in plan.files if op.path.parent.name.endswith("workflows")]
        ops = [op for op in ops if "msd-core" not in op.path.as_posix()]
        assert len(ops) == len(PAYLOAD.commands)
        for op in ops:
            text = op.content.decode()
            meta, body = front(text)
            assert list(meta) == ["description"]
            assert len(text) < 12_000  # both runtimes cut a workflow there
            assert "$ARGUMENTS" not in body and "Task(" not in body
        folder = "workflows" if scope == LOCAL else "global_workflows"
        assert ops[0].path.parent == plan.root / folder


def test_antigravity_global_commands_are_skills_inside_its_root() -> None:
    """The IDE's global workflows folder (~/.gemini/antigravity/global_workflows) lies outside
    ~/.gemini/config: one manifest owns one root, so globally the commands are skills."""
    for config_dir in (None, Path("/ELSEWHERE/agy")):
        plan = planned("antigravity", GLOBAL, config_dir=config_dir)
        assert plan.root == (config_dir or Path("/HOME/.gemini/config"))
        assert all(op.path.is_relative_to(plan.root) for op in plan.files)
        names = {op.path.parent.name for op in plan.files if op.path.name == "SKILL.md"}
        assert {c.name for c in PAYLOAD.commands} <= names
        outside_core = [op for op in plan.files if "msd-core" not in op.path.parts]
        assert not any("workflows" in op.path.parent.name for op in outside_core)
        assert any("installed as skills" in n for n in plan.notes)


def test_router_skills_point_at_the_runtime_s_own_command_files() -> None:
    cases = {
        ("windsurf", GLOBAL): "read `~/.codeium/windsurf/global_workflows/<name>.md`",
        ("windsurf", LOCAL): "read `.windsurf/workflows/<name>.md`",
        ("antigravity", GLOBAL): "it is one of your skills: load it and follow it",
        ("antigravity", LOCAL): "read `.agent/workflows/<name>.md`",
        ("cursor", GLOBAL): "it is one of your skills, also typed as `/<name>`",
        ("trae", LOCAL): "it is one of your skills: load it and follow it",
    }
    for (name, scope), phrase in cases.items():
        router = files(planned(name, scope))["skills/msd-workflow/SKILL.md"]
        assert phrase in router, (name, scope)
        assert "Skill tool" not in router


def test_spawns_name_each_runtime_s_own_way() -> None:
    call = Spawn("msd-planner", "Plan phase <N>", "Mode: initial.", "<init JSON models.x>")
    cursor = cursor_spawn(call)
    assert "Task(" not in cursor and 'subagent_type="msd-planner"' in cursor
    assert "model" not in cursor  # Claude tiers are no Cursor model
    text = instructions_spawn(".agent/", "start a subagent that works as {agent}")(call)
    assert text.splitlines() == [
        'Step "Plan phase <N>": start a subagent that works as msd-planner.',
        "  instructions: read .agent/msd-core/agents/msd-planner.md and follow it exactly",
        '  task: "Mode: initial."',
    ]
    for name in ("windsurf", "antigravity", "trae"):
        plan = planned(name, LOCAL)
        docs = files(plan)
        workflow = docs["msd-core/workflows/plan-phase.md"]
        assert "Task(" not in workflow and "msd-core/agents/msd-planner.md" in workflow
        agent = docs["msd-core/agents/msd-planner.md"]
        assert agent.startswith("# msd-planner\n\n") and "---" not in agent.splitlines()[0]


def test_trae_skills_rule_and_no_hooks() -> None:
    local = planned("trae", LOCAL)
    docs = files(local)
    assert len([p for p in docs if p.startswith("skills/")]) == 28
    meta, body = front(docs["rules/msd-core.md"])
    assert meta["alwaysApply"] is False and meta["globs"] == ".planning/**"
    assert "`.trae/msd-core/workflows/`" in body
    assert not any("/hooks/" in op.path.as_posix() for op in local.files)
    assert any(
        n.startswith("hooks not installed: Trae runs no user command hooks") for n in local.notes
    )
    assert [e.file for e in local.entries] == [Path("/PROJECT/.trae/mcp.json")]


@pytest.mark.parametrize(
    ("platform", "env", "expected"),
    [
        ("darwin", {}, "/HOME/Library/Application Support/Trae/User/mcp.json"),
        ("win32", {"APPDATA": "/HOME/Roaming"}, "/HOME/Roaming/Trae/User/mcp.json"),
        ("win32", {}, "/HOME/AppData/Roaming/Trae/User/mcp.json"),
        ("linux", {}, "/HOME/.config/Trae/User/mcp.json"),
        ("linux", {"XDG_CONFIG_HOME": "/HOME/xdg"}, "/HOME/xdg/Trae/User/mcp.json"),
    ],
)
def test_trae_user_mcp_file_per_platform(platform: str, env: dict[str, str], expected: str) -> None:
    ctx = context(GLOBAL, platform=platform, env=env)
    assert mcp_file(ctx, Path("/HOME/.trae")) == Path(expected)
    local = context(LOCAL, platform=platform, env=env)
    assert mcp_file(local, Path("/PROJECT/.trae")) == Path("/PROJECT/.trae/mcp.json")


def hook_items(plan: Plan) -> list[tuple[tuple[str, ...], Any]]:
    return [(e.path, e.value) for e in plan.entries if e.kind == ITEM]


@pytest.mark.parametrize("scope", [GLOBAL, LOCAL])
def test_cursor_hooks_json_v1_shape(scope: str) -> None:
    plan = planned("cursor", scope)
    version = [e for e in plan.entries if e.kind == MEMBER and e.key == "version"]
    assert len(version) == 1 and version[0].value == 1 and version[0].path == ()
    items = hook_items(plan)
    assert {path[1] for path, _ in items} == {"preToolUse", "postToolUse", "sessionStart"}
    for path, item in items:
        assert path[0] == "hooks" and path[1] in CURSOR_EVENTS
        assert set(item) <= {"command", "matcher", "timeout"} and item["timeout"] == 10
        assert item["command"].endswith(" --dialect cursor")
        if "matcher" in item:
            tools = {"Read", "Write", "StrReplace", "Edit", "Shell", "Grep"}
            matched = {t for t in tools | {"Delete", "Task"} if re.fullmatch(item["matcher"], t)}
            assert matched and matched <= tools, item["matcher"]
            assert not re.search(item["matcher"], "ReadLints")  # anchored


@pytest.mark.parametrize("scope", [GLOBAL, LOCAL])
def test_windsurf_hooks_json_shape(scope: str) -> None:
    items = hook_items(planned("windsurf", scope))
    events = sorted((path[1], item["command"].split("/")[-1]) for path, item in items)
    assert events == [
        ("pre_read_code", 'msd-secret-read-guard.py" --dialect windsurf'),
        ("pre_run_command", 'msd-secret-read-guard.py" --dialect windsurf'),
        ("pre_run_command", 'msd-validate-commit.py" --dialect windsurf'),
    ]
    for path, item in items:
        assert path[0] == "hooks" and path[1] in WINDSURF_EVENTS
        assert set(item) == {"command", "show_output"} and item["show_output"] is True


@pytest.mark.parametrize("scope", [GLOBAL, LOCAL])
def test_antigravity_hooks_json_shape(scope: str) -> None:
    plan = planned("antigravity", scope)
    items = hook_items(plan)
    assert len(items) == 2
    for path, group in items:
        assert path == ("msd", "PreToolUse")  # a named hook of ours, then the event
        assert set(group) == {"matcher", "hooks"}
        (handler,) = group["hooks"]
        assert handler["type"] == "command" and handler["timeout"] == 10  # whole seconds
        assert handler["command"].endswith(" --dialect antigravity")
    matchers = {group["matcher"] for _, group in items}
    assert matchers == {"^(view_file|grep_search|run_command)$", "^(run_command)$"}
    assert all(e.fmt == "json" for e in plan.entries)  # agy's parser is strict JSON


def test_mcp_files_keys_and_scopes() -> None:
    expected = {
        ("cursor", GLOBAL): "/HOME/.cursor/mcp.json",
        ("cursor", LOCAL): "/PROJECT/.cursor/mcp.json",
        ("windsurf", GLOBAL): "/HOME/.codeium/windsurf/mcp_config.json",
        ("antigravity", GLOBAL): "/HOME/.gemini/config/mcp_config.json",
        ("antigravity", LOCAL): "/PROJECT/.agent/mcp_config.json",
        ("trae", GLOBAL): "/HOME/.config/Trae/User/mcp.json",
        ("trae", LOCAL): "/PROJECT/.trae/mcp.json",
    }
    for name in ("cursor", "windsurf", "antigravity", "trae"):
        for scope in (GLOBAL, LOCAL):
            plan = planned(name, scope, platform="linux")
            servers = [e for e in plan.entries if e.key == "msd"]
            if (name, scope) not in expected:
                assert servers == [] and any("only from ~/.codeium" in n for n in plan.notes)
                continue
            (entry,) = servers
            assert str(entry.file) == expected[name, scope]
            assert (entry.fmt, entry.path) == ("json", ("mcpServers",))
            launcher = str(plan.root / "msd-core/bin/msd-mcp")
            if scope == GLOBAL:
                assert entry.value == {
                    "command": "/usr/bin/python3",
                    "args": ["-I", "-S", launcher],
                    "env": {"MSD_AUDIT_LOG": "/HOME/.local/state/msd/audit.jsonl"},
                }
            else:  # committed with the project: nothing of this machine in it
                launcher = launcher.removeprefix("/PROJECT/")
                assert entry.value == {"command": "python3", "args": ["-I", "-S", launcher]}
            assert entry.marker == launcher


def test_antigravity_owns_nothing_gemini_cli_reads() -> None:
    """Both live under ~/.gemini: Antigravity's plan must stay out of Gemini CLI's files."""
    gemini = Path("/HOME/.gemini")
    gemini_owned = [gemini / n for n in ("settings.json", "GEMINI.md", "msd-file-manifest.json")]
    gemini_dirs = [gemini / n for n in ("commands", "skills", "agents", "hooks", "msd-core")]
    plan = planned("antigravity", GLOBAL)
    paths = [op.path for op in plan.files] + [e.file for e in plan.entries]
    for path in paths:
        assert path not in gemini_owned
        assert not any(path.is_relative_to(d) for d in gemini_dirs), path
        assert path.is_relative_to(gemini / "config") or path.is_relative_to(
            gemini / "antigravity" / "global_workflows"
        )


def test_no_plan_writes_into_the_shared_agents_folder() -> None:
    for name in ("cursor", "windsurf", "antigravity", "trae"):
        for scope in (GLOBAL, LOCAL):
            plan = planned(name, scope)
            for path in [op.path for op in plan.files] + [e.file for e in plan.entries]:
                assert ".agents" not in path.parts, path


def test_windows_notes_and_spaces_in_trae_commands() -> None:
    windows = planned("windsurf", GLOBAL, platform="win32")
    assert any("powershell" in n for n in windows.notes)
    runtime = adapter("trae")
    assert runtime is not None
    ctx = replace(context(GLOBAL), interpreter=Path("/opt/My Python/bin/python3"))
    spaced = runtime.plan(ctx, PAYLOAD)
    assert any("does not start an MCP command containing a space" in n for n in spaced.notes)


def test_the_registry_matrix_lists_sources() -> None:
    from msd_install.runtimes import ADAPTERS

    for name in ("cursor", "windsurf", "antigravity", "trae"):
        assert "open:" in ADAPTERS[name].sources and "no offline CLI" in ADAPTERS[name].sources
