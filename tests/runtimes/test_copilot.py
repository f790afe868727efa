"""GitHub Copilot CLI: planned trees, its traps, and round trips through the real msd-install.

Round trips seed what a Copilot user has: a commented ``mcp-config.json`` (JSONC, with a
trailing comma, which Copilot accepts) holding a server of theirs, a hook file of their own
next to ours, CRLF line endings; install -> uninstall must give back every byte.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from golden import check, context

from helpers import build, run_cli, run_json, snapshot, snapshot_but_registry, verbs
from msd_install.installer.context import GLOBAL, LOCAL
from msd_install.payload import load
from msd_install.runtimes import adapter

USER_MCP = (
    "// my servers\r\n"
    "{\r\n"
    '  "mcpServers": {\r\n'
    '    "db": {"type": "local", "command": "db-mcp", "args": [], "tools": ["*"]},\r\n'
    "  },\r\n"
    "}\r\n"
)
USER_HOOKS = '{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "mine"}]}}\n'
USER_FILES = {
    ".copilot/mcp-config.json": USER_MCP,
    ".copilot/hooks/mine.json": USER_HOOKS,
    ".copilot/skills/my-skill/SKILL.md": "---\nname: my-skill\ndescription: mine\n---\nMine.\n",
    ".copilot/agents/mine.agent.md": "---\nname: mine\ndescription: mine\n---\nMy agent.\n",
    ".copilot/config.json": '// managed by Copilot\n{\n  "firstLaunchAt": "x"\n}\n',
}


@pytest.mark.parametrize("scope", [GLOBAL, LOCAL])
def test_copilot_golden(scope: str) -> None:
    runtime = adapter("copilot")
    assert runtime is not None
    plan = runtime.plan(context(scope), load())
    check(
        f"copilot-{scope}",
        plan,
        ("skills/msd-plan-phase/SKILL.md", "agents/msd-planner.agent.md", "workflows/quick.md"),
    )
    rel = {op.path.relative_to(plan.root).as_posix() for op in plan.files}
    commands = [c.name for c in load().commands]
    # every command is one skill; no .prompt.md anywhere (the CLI never reads one)
    assert all(f"skills/{name}/SKILL.md" in rel for name in commands)
    assert not [p for p in rel if p.endswith(".prompt.md") or "/prompts/" in p or "commands/" in p]
    assert len([p for p in rel if p.startswith("agents/")]) == 10
    assert all(p.endswith(".agent.md") for p in rel if p.startswith("agents/"))


def _files(scope: str) -> dict[str, str]:
    runtime = adapter("copilot")
    assert runtime is not None
    plan = runtime.plan(context(scope), load())
    return {
        op.path.relative_to(plan.root).as_posix(): op.content.decode("utf-8", "replace")
        for op in plan.files
    }


def test_agents_carry_copilot_aliases_and_no_claude_model_or_colour() -> None:
    text = _files(GLOBAL)["agents/msd-planner.agent.md"]
    front = text.split("---", 2)[1]
    assert '  - "read"' in front and '  - "execute"' in front and '  - "search"' in front
    assert "model:" not in front and "color:" not in front
    assert 'name: "msd-planner"' in front


def test_workflows_start_agents_with_the_task_tool() -> None:
    files = _files(GLOBAL)
    quick = files["msd-core/workflows/quick.md"]
    assert "task(\n  agent_type=" in quick and 'name="planner"' in quick
    assert "subagent_type" not in quick and "Task(" not in quick
    # every spawn names an agent that is installed
    agents = {p.removeprefix("agents/").removesuffix(".agent.md") for p in files if "agents/" in p}
    import re

    named = set(re.findall(r'agent_type="([^"]+)"', "\n".join(files.values())))
    assert named and named <= agents


def test_commands_keep_arguments_and_drop_allowed_tools() -> None:
    skill = _files(LOCAL)["skills/msd-progress/SKILL.md"]
    front, body = skill.split("---", 2)[1:]
    assert "allowed-tools" not in front and 'argument-hint: "[--bar]"' in front
    assert "$ARGUMENTS" in body  # Copilot replaces it when the user types /msd-progress args
    assert "@.github/msd-core/workflows/progress.md" in body  # project-relative, local scope


def test_local_hooks_name_their_script_through_copilots_project_variable() -> None:
    runtime = adapter("copilot")
    assert runtime is not None
    plan = runtime.plan(context(LOCAL), load())
    hooks = [e for e in plan.entries if e.label.startswith("hook ")]
    assert hooks and all(
        e.file.as_posix() == "/PROJECT/.github/hooks/msd-hooks.json" for e in hooks
    )
    for entry in hooks:
        assert '-I -S "$COPILOT_PROJECT_DIR"/.github/hooks/msd-' in entry.value["bash"]
        assert entry.value["bash"].endswith(" --dialect copilot")
    assert {e.path[1] for e in hooks} == {"preToolUse", "postToolUse", "sessionStart"}
    mcp = next(e for e in plan.entries if e.key == "msd")
    assert mcp.file.as_posix() == "/PROJECT/.github/mcp.json" and mcp.fmt == "json"
    assert any("trusted folder" in n for n in plan.notes)


def test_copilot_home_relocates_the_global_root(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {"COPILOT_HOME": str(home / "cfg/copilot")}
    assert run_cli(["--copilot", "--global", "--yes"], home, **env).returncode == 0
    root = home / "cfg/copilot"
    assert (root / "skills/msd-help/SKILL.md").is_file()
    assert json.loads((root / "mcp-config.json").read_text())["mcpServers"]["msd"]
    assert (
        "@~/cfg/copilot/msd-core/workflows/help.md"
        in (root / "skills/msd-help/SKILL.md").read_text()
    )
    assert not (home / ".copilot").exists()
    assert run_cli(["--copilot", "--global", "--yes", "--uninstall"], home, **env).returncode == 0
    assert snapshot(home) == {}  # the root it created goes too


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    build(h, USER_FILES)
    return h


def test_global_round_trip_keeps_every_user_byte(home: Path) -> None:
    before = snapshot(home)
    proc = run_cli(["--copilot", "--global", "--yes"], home)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    root = home / ".copilot"
    mcp = (root / "mcp-config.json").read_bytes()
    assert mcp.startswith(b"// my servers\r\n") and b"db-mcp" in mcp and b'"msd"' in mcp
    assert b"\n" not in mcp.replace(b"\r\n", b"")
    assert (root / "hooks/mine.json").read_text() == USER_HOOKS
    hooks = json.loads((root / "hooks/msd-hooks.json").read_text())
    assert hooks["version"] == 1 and set(hooks["hooks"]) == {
        "preToolUse",
        "postToolUse",
        "sessionStart",
    }
    again = run_json(["--copilot", "--global", "--yes"], home)
    assert set(verbs(again)) == {"identical"}, verbs(again)
    assert run_cli(["--copilot", "--global", "--yes", "--uninstall"], home).returncode == 0
    assert snapshot(home) == before


def test_local_round_trip_and_home_untouched(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    build(
        project,
        {
            ".github/workflows/ci.yml": "on: push\n",
            ".github/copilot-instructions.md": "Be brief.\n",
            ".mcp.json": '{\n  "mcpServers": {"db": {"command": "db-mcp"}}\n}\n',
        },
    )
    home_before, project_before = snapshot(home), snapshot(project)
    doc = run_json(["--copilot", "--local", "--yes"], home, cwd=project)
    assert doc["exit_code"] == 0
    notes = "\n".join(doc["results"][0]["notes"])
    assert "trusted folder" in notes and ".mcp.json" in notes
    assert json.loads((project / ".github/mcp.json").read_text())["mcpServers"]["msd"]
    assert (project / ".mcp.json").read_bytes() == project_before[".mcp.json"][0]
    assert snapshot_but_registry(home) == home_before
    again = run_json(["--copilot", "--local", "--yes"], home, cwd=project)
    assert set(verbs(again)) == {"identical"}, verbs(again)
    assert (
        run_cli(["--copilot", "--local", "--yes", "--uninstall"], home, cwd=project).returncode == 0
    )
    assert snapshot(project) == project_before
    assert snapshot(home) == home_before


def test_dry_run_writes_nothing(home: Path) -> None:
    before = snapshot(home, stat=True)
    doc = run_json(["--copilot", "--global", "--yes", "--dry-run"], home)
    assert doc["results"][0]["dry_run"] is True and verbs(doc)["create"] > 50
    assert snapshot(home, stat=True) == before


@pytest.mark.parametrize(
    ("rel", "content", "message"),
    [
        (".copilot/mcp-config.json", '{"mcpServers": {\n', "unexpected end of file"),
        (".copilot/hooks/msd-hooks.json", '{"version": 1,}\n', "trailing comma"),
    ],
)
def test_a_config_it_cannot_parse_is_refused(
    home: Path, rel: str, content: str, message: str
) -> None:
    (home / rel).write_text(content)
    before = snapshot(home)
    proc = run_cli(["--copilot", "--global", "--yes"], home)
    assert proc.returncode == 4, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert str(home / rel) in lines[0] and message in lines[0]
    assert snapshot(home) == before


def test_workspace_mcp_file_must_stay_strict_json(tmp_path: Path) -> None:
    """Copilot skips a .github/mcp.json with a comment: never accept one to edit."""
    home, project = tmp_path / "home", tmp_path / "p"
    home.mkdir()
    build(project, {".github/mcp.json": '// mine\n{"mcpServers": {}}\n'})
    proc = run_cli(["--copilot", "--local", "--yes"], home, cwd=project)
    assert proc.returncode == 4 and "mcp.json" in proc.stderr


def test_a_hook_whose_script_is_not_ours_is_not_registered(home: Path) -> None:
    build(home, {".copilot/hooks/msd-secret-read-guard.py": "# my own script\n"})
    proc = run_cli(["--copilot", "--global", "--yes"], home)
    assert proc.returncode == 1
    assert "hook msd-secret-read-guard: not added" in proc.stdout
    hooks = (home / ".copilot/hooks/msd-hooks.json").read_text()
    assert "msd-secret-read-guard" not in hooks and "msd-prompt-guard" in hooks
    assert run_cli(["--copilot", "--global", "--yes", "--uninstall"], home).returncode == 0
    assert (home / ".copilot/hooks/msd-secret-read-guard.py").read_text() == "# my own script\n"


def test_detection_names_its_evidence(tmp_path: Path) -> None:
    from msd_install.installer.context import Context

    runtime = adapter("copilot")
    assert runtime is not None
    home, bin_dir = tmp_path / "home", tmp_path / "bin"
    (home / ".github").mkdir(parents=True)  # a repository's .github says nothing about Copilot
    bin_dir.mkdir()
    ctx = Context(home=home, cwd=home, env={"PATH": str(bin_dir)})
    assert runtime.detect(ctx).found is False
    (home / "cfg").mkdir()
    relocated = Context(home=home, cwd=home, env={"PATH": str(bin_dir), "COPILOT_HOME": "~/cfg"})
    assert runtime.detect(relocated).why == "~/cfg exists"
    tool = bin_dir / "copilot"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    assert runtime.detect(ctx).why == "copilot on PATH"


def test_agent_fields_are_converted_one_by_one_and_nothing_goes_silently() -> None:
    from msd_install.runtimes.copilot import _agent

    notes: list[str] = []
    meta = _agent(
        {"description": "d", "model": "opus", "color": "green"},
        "msd-x",
        ["Read", "Bash", "NotebookEdit", "Frobnicate"],
        notes,
    )
    assert meta == {"name": "msd-x", "description": "d", "tools": ["read", "execute"]}
    joined = "\n".join(notes)
    for word in ("NotebookEdit", "Frobnicate", "'opus'", "color dropped"):
        assert word in joined, joined
    # no tools field means every tool, in Copilot as in Claude Code: never an empty list
    assert "tools" not in _agent({"description": "d"}, "msd-y", [], [])
