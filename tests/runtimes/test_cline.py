"""Cline: what the adapter plans, its overrides and the traps of the real CLI.

Facts from ``cline`` 3.0.65 (see runtimes/cline.py): agents are YAML files (``.md`` ignored)
whose tool list uses Cline's names and whose tool is ``subagent_<name>``; a hook file is
recognised by its name before the extension; the MCP settings file is strict JSON; Cline reads
no ``.claude/`` folder; ``read_files`` neither expands ``~`` nor resolves a path against
anything but the workspace.
"""

from __future__ import annotations

import re
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from golden import HOME, PROJECT, context
from hypothesis import given
from hypothesis import strategies as st
from ruamel.yaml import YAML

from msd_install.installer.context import GLOBAL, LOCAL
from msd_install.payload import load
from msd_install.runtimes import adapter
from msd_install.runtimes.cline import mcp_settings, subagent_tool
from msd_install.runtimes.cline_hooks import EVENTS

# Cline 3.0.65's built-in tools (`cline config tools --json`, and what a session offers)
CLINE_TOOLS = {
    "read_files",
    "search_codebase",
    "run_commands",
    "editor",
    "fetch_web_content",
    "skills",
    "ask_question",
}
# hook file names Cline accepts: an event, case-insensitive, before one of these extensions
HOOK_EXTENSIONS = ("", ".sh", ".bash", ".zsh", ".js", ".mjs", ".cjs", ".ts", ".py", ".ps1")
HOOK_EVENTS = {
    "taskstart",
    "taskresume",
    "taskcancel",
    "taskcomplete",
    "taskerror",
    "pretooluse",
    "posttooluse",
    "userpromptsubmit",
    "precompact",
    "sessionshutdown",
}


def plan_of(scope: str, **extra: Any) -> Any:
    cline = adapter("cline")
    assert cline is not None
    return cline.plan(context(scope, **extra), load())


def files_of(scope: str, **extra: Any) -> dict[str, str]:
    plan = plan_of(scope, **extra)
    return {
        op.path.relative_to(plan.root).as_posix(): op.content.decode("utf-8", "replace")
        for op in plan.files
    }


def cline_hook_event(name: str) -> str | None:
    """Cline's own rule for a file in a hooks folder (hook-file-config, `i90`)."""
    stem, dot, ext = name.rpartition(".")
    stem, ext = (stem, dot + ext) if dot and f".{ext.lower()}" in HOOK_EXTENSIONS else (name, "")
    if ext.lower() not in HOOK_EXTENSIONS:
        return None
    return stem.strip().lower() if stem.strip().lower() in HOOK_EVENTS else None


@pytest.mark.parametrize("scope", [GLOBAL, LOCAL])
def test_every_command_and_router_is_one_skill_and_nothing_is_a_workflow(scope: str) -> None:
    files = files_of(scope)
    payload = load()
    names = [c.name for c in payload.commands] + [s.name for s in payload.skills]
    skills = sorted(p.split("/")[1] for p in files if p.startswith("skills/"))
    assert skills == sorted(names) and len(skills) == 28
    assert not [p for p in files if p.startswith(("workflows/", "rules/", "commands/"))]
    yaml = YAML(typ="safe")
    for name in names:
        text = files[f"skills/{name}/SKILL.md"]
        meta = yaml.load(StringIO(text.split("---", 2)[1]))
        assert meta["name"] == name and meta["description"]
        assert "$ARGUMENTS" not in text and "@~/" not in text and "@.cline/" not in text


def test_a_local_install_stays_in_the_projects_cline_folder() -> None:
    plan = plan_of(LOCAL)
    assert plan.root == PROJECT / ".cline"
    assert all(op.path.is_relative_to(PROJECT / ".cline") for op in plan.files)
    assert plan.entries == ()  # Cline has no project MCP file
    assert any("registers none" in note for note in plan.notes)


def test_file_references_are_paths_read_files_takes() -> None:
    """Global: absolute (``read_files`` does not expand ``~``); local: workspace-relative."""
    ref = "msd-core/references/gates.md`"
    assert f"`{HOME}/.cline/{ref}" in files_of(GLOBAL)["skills/msd-plan-phase/SKILL.md"]
    assert f"`.cline/{ref}" in files_of(LOCAL)["skills/msd-plan-phase/SKILL.md"]
    # shell commands keep `~`, which the shell expands
    assert "python3 ~/.cline/msd-core/bin/msd-tools" in files_of(GLOBAL)["agents/msd-planner.yaml"]


@pytest.mark.parametrize("scope", [GLOBAL, LOCAL])
def test_agents_are_yaml_files_clines_loader_accepts(scope: str) -> None:
    files = files_of(scope)
    agents = {p: t for p, t in files.items() if p.startswith("agents/")}
    assert len(agents) == 10 and all(p.endswith(".yaml") for p in agents)
    yaml = YAML(typ="safe")
    for path, text in agents.items():
        assert text.startswith("---\n")
        front, _, body = text[4:].partition("\n---\n")
        meta = yaml.load(StringIO(front))
        assert set(meta) <= {"name", "description", "tools"}  # no model, colour or Claude keys
        assert meta["name"] == Path(path).stem and meta["description"].strip()
        assert set(meta["tools"]) <= CLINE_TOOLS and "run_commands" in meta["tools"]
        assert body.strip() and "\n---\n" not in body  # the system prompt, one block only


def test_workflows_start_agents_with_their_subagent_tools() -> None:
    files = files_of(GLOBAL)
    agents = {Path(p).stem for p in files if p.startswith("agents/")}
    tools = {subagent_tool(a) for a in agents}
    called: set[str] = set()
    for path, text in files.items():
        if path.endswith(".md"):
            assert "Task(" not in text and "subagent_type" not in text, path
            called |= set(re.findall(r"\b(subagent_[a-z0-9_]+)\(", text))
    assert called and called <= tools
    quick = files["msd-core/workflows/quick.md"]
    assert 'subagent_msd_planner(\n  prompt="' in quick and "model=" not in quick


@given(st.text(min_size=1, max_size=90))
def test_subagent_tool_names_have_clines_shape(name: str) -> None:
    tool = subagent_tool(name)
    assert re.fullmatch(r"subagent_[a-z0-9_]+", tool) and len(tool) <= 64
    if len(tool) < 64:  # longer names end in "_<hash>", after a cut that may end in "_"
        assert "__" not in tool[9:] and not tool.endswith("_")


@pytest.mark.parametrize(
    ("agent", "tool"),  # what Cline 3.0.65's own function returns for these names
    [
        ("msd-planner", "subagent_msd_planner"),
        ("msd-phase-researcher", "subagent_msd_phase_researcher"),
        ("0:_0", "subagent_0_0"),
        ("--", "subagent_agent"),
        ("Ünïcode agent", "subagent_n_code_agent"),
        (
            "msd-very-long-name-very-long-name-very-long-name-very-long-name-very-long-name",
            "subagent_msd_very_long_name_very_long_name_very_long_name_5qidgh",
        ),
    ],
)
def test_subagent_tool_names_match_clines(agent: str, tool: str) -> None:
    assert subagent_tool(agent) == tool


@pytest.mark.parametrize("scope", [GLOBAL, LOCAL])
def test_hook_files_are_recognised_by_cline_and_nothing_else_is(scope: str) -> None:
    plan = plan_of(scope)
    hooks = [op for op in plan.files if op.path.parent == plan.root / "hooks"]
    events = {op.path.name: cline_hook_event(op.path.name) for op in hooks}
    assert sorted(n for n, e in events.items() if e) == sorted(f"{e}.sh" for e in EVENTS)
    for op in hooks:
        assert op.mode == 0o755
        if op.path.suffix == ".sh":
            text = op.content.decode()
            assert text.startswith("#!/bin/sh\n")
            scripts = re.findall(r" (\d+) (msd-[a-z-]+\.py)", text)
            assert scripts and all((plan.root / "hooks" / s).name in events for _, s in scripts)
            assert str(PROJECT) not in text  # a project's .cline works from any clone


def test_unusable_hooks_are_left_out_with_their_reason() -> None:
    plan = plan_of(GLOBAL)
    names = {op.path.name for op in plan.files}
    for hook in ("msd-statusline", "msd-context-monitor", "msd-session-state", "msd-check-update"):
        assert f"{hook}.py" not in names
        assert any(note.startswith(f"hooks: {hook} not used: ") for note in plan.notes)
    assert "msd-secret-read-guard-shell.py" in names  # the guard's helper goes with it


def test_mcp_settings_follow_clines_overrides(tmp_path: Path) -> None:
    root = HOME / ".cline"
    assert mcp_settings(context(GLOBAL), root) == root / "data/settings/cline_mcp_settings.json"
    data = context(GLOBAL, env={"CLINE_DATA_DIR": "/data"})
    assert mcp_settings(data, root) == Path("/data/settings/cline_mcp_settings.json")
    both = context(GLOBAL, env={"CLINE_DATA_DIR": "/data", "CLINE_MCP_SETTINGS_PATH": "/m.json"})
    assert mcp_settings(both, root) == Path("/m.json")


def test_cline_dir_and_config_dir_move_the_root() -> None:
    moved = plan_of(GLOBAL, env={"CLINE_DIR": "/opt/cline"})
    assert moved.root == Path("/opt/cline")
    assert moved.entries[0].file == Path("/opt/cline/data/settings/cline_mcp_settings.json")
    assert "`/opt/cline/msd-core/workflows/plan-phase.md`" in next(
        op.content.decode() for op in moved.files if op.path.parts[-2] == "msd-plan-phase"
    )
    custom = plan_of(GLOBAL, config_dir=Path("/cfg"))
    assert custom.root == Path("/cfg")
    assert any("cline --config /cfg" in note for note in custom.notes)


def test_mcp_server_entry_is_the_plain_stdio_shape() -> None:
    (entry,) = plan_of(GLOBAL).entries
    assert entry.fmt == "json" and entry.path == ("mcpServers",) and entry.key == "msd"
    assert entry.value == {
        "command": "/usr/bin/python3",
        "args": ["-I", "-S", f"{HOME}/.cline/msd-core/bin/msd-mcp"],
        "env": {"MSD_AUDIT_LOG": f"{HOME}/.local/state/msd/audit.jsonl"},
    }
