"""What Qwen Code itself reports after our install: MCP connected (a project server once
approved), every agent, skill and command taken in by its own loaders (the loopback stub
model and ``qwen --debug``), hooks answering in its dialect, side by side with Claude's
``.mcp.json``, and the traps of real-clients.md."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from gemini_kit import initialize, jsonc, output, qwen, server_lines
from model_stub_apis import OpenAIStub
from stub_turns import QwenTurn

from helpers import build, run_cli, snapshot
from msd_install import schemas
from msd_install.payload import load

pytestmark = pytest.mark.e2e

AGENTS = sorted(a.name for a in load().agents)
SKILLS = sorted(s.name for s in load().skills)
COMMANDS = sorted(c.name for c in load().commands)
# the published schema predates these keys, which qwen 0.24.4 reads
STALE_SCHEMA_GAPS = ("'hooks'", "'statusLine'")
USER_SETTINGS = (
    "{\n"
    "  // my own settings, comments and all\n"
    '  "mcpServers": {"mine": {"command": "python3", "args": ["-c", "pass"]}}, /* mine */\n'
    '  "$version": 4\n'
    "}\n"
)


def _install(home: Path, cwd: Path, *flags: str) -> str:
    proc = run_cli(["--qwen", *flags, "--yes"], home, cwd=cwd)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def _stale_schema_errors(settings: object) -> list[str]:
    validator = jsonschema.Draft7Validator(schemas.load("qwen-code-settings"))
    return [
        e.message
        for e in validator.iter_errors(settings)
        if not all(gap in STALE_SCHEMA_GAPS for gap in _unexpected(e.message))
    ]


def _unexpected(message: str) -> list[str]:
    """The keys of an "Additional properties are not allowed ('a', 'b' were unexpected)"."""
    if "were unexpected" not in message and "was unexpected" not in message:
        return ["<other>"]
    inside = message[message.index("(") + 1 : message.rindex(" w")]
    return [k.strip() for k in inside.split(",")]


def test_global_install_as_qwen_sees_it(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    build(home, {".qwen/settings.json": USER_SETTINGS})
    build(project, {"README.md": "hi\n"})
    before = snapshot(home)
    _install(home, project, "--global")
    settings = jsonc(home / ".qwen/settings.json")
    assert _stale_schema_errors(settings) == []
    server = settings["mcpServers"]["msd"]

    listed = qwen(home, project, "mcp", "list")
    assert listed.returncode == 0, output(listed)
    command = " ".join([server["command"], *server["args"]])
    assert server_lines(output(listed)) == [f"✓ msd: {command} (stdio) - Connected"]
    assert initialize(server, project, home)["result"]["serverInfo"]["name"]

    with OpenAIStub() as stub:
        turn = QwenTurn(home, project, "/msd-help XYZ", stub)
    assert turn.loader_errors() == []
    assert turn.agents() == AGENTS
    assert turn.offered() == sorted(SKILLS + COMMANDS)  # each once: commands only as commands
    assert "<arguments>\nXYZ\n" in turn.user and "# MSD Core" in turn.user
    assert "{{args}}" not in turn.user and "@{" not in turn.user
    assert "$ARGUMENTS" not in turn.user

    _install(home, project, "--global", "--uninstall")
    after = snapshot(home)
    assert not [p for p in after if "msd" in p], [p for p in after if "msd" in p]
    for path, content in before.items():
        assert after[path] == content, path  # qwen adds its own files, never changes ours


def test_local_install_waits_for_approval(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "my project"
    home.mkdir()
    build(project, {"README.md": "hi\n", ".env.production": "TOKEN=1\n"})
    before = snapshot(project)
    report = _install(home, project, "--local")
    assert "qwen mcp approve msd" in report
    assert not (home / ".qwen/mcpApprovals.json").exists()  # never approved for the user

    pending = output(qwen(home, project, "mcp", "list"))
    assert [ln.endswith("- Pending approval") for ln in server_lines(pending)] == [True]
    approve = qwen(home, project, "mcp", "approve", "msd")  # what the user is told to run
    assert approve.returncode == 0, output(approve)
    connected = output(qwen(home, project, "mcp", "list"))
    assert [ln.endswith("- Connected") for ln in server_lines(connected)] == [True]
    server = jsonc(project / ".qwen/settings.json")["mcpServers"]["msd"]
    assert initialize(server, project, home)["result"]

    secret = project / ".env.production"
    with OpenAIStub("PLEASE-READ", "read_file", {"file_path": str(secret)}) as stub:
        turn = QwenTurn(home, project, "PLEASE-READ the file", stub)
        results = stub.tool_results()
    assert turn.loader_errors() == []
    assert turn.agents() == AGENTS and turn.offered() == sorted(SKILLS + COMMANDS)
    # the PreToolUse hook ran through "$QWEN_PROJECT_DIR" (a path with a space) and blocked
    assert len(results) == 1 and "msd-secret-read-guard" in results[0], results
    assert "TOKEN=1" not in results[0]

    _install(home, project, "--local", "--uninstall")
    after = snapshot(project)
    # qwen stamped its settings version into the file on its first start: that edit is its
    # own and stays; everything of ours is gone
    assert jsonc(project / ".qwen/settings.json") == {"$version": 4}
    left = {k: v for k, v in after.items() if not k.startswith(".qwen/") and k != ".qwen/"}
    assert left == before


@pytest.mark.parametrize("scope", ["--global", "--local"])
def test_side_by_side_with_claude_every_item_once(tmp_path: Path, scope: str) -> None:
    """Locally both write an ``msd`` server where qwen looks (``.qwen/settings.json`` and
    Claude's ``.mcp.json``): qwen lists it once, its own entry first, Claude's after ours goes."""
    home, project = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    project.mkdir()
    ours = f"{home if scope == '--global' else project}/.qwen/msd-core/bin/msd-mcp"
    claude = f"{home if scope == '--global' else project}/.claude"
    # a project's servers name their launcher relative to it (committed with the project)
    theirs = f"{claude}/msd-core/bin/msd-mcp"
    if scope == "--local":
        ours, theirs = ".qwen/msd-core/bin/msd-mcp", ".claude/msd-core/bin/msd-mcp"
    assert run_cli(["--claude", scope, "--yes"], home, cwd=project).returncode == 0
    _install(home, project, scope)
    if scope == "--local":
        assert "msd" in json.loads((project / ".mcp.json").read_text())["mcpServers"]

    def once(path: str) -> None:
        lines = server_lines(output(qwen(home, project, "mcp", "list")))
        assert len(lines) == 1 and path in lines[0], lines

    once(ours)
    with OpenAIStub() as stub:
        turn = QwenTurn(home, project, "/msd-help XYZ", stub)
    assert turn.agents() == AGENTS and turn.offered() == sorted(SKILLS + COMMANDS)
    assert ".claude/" not in turn.agent_tool
    assert run_cli(["--claude", scope, "--yes", "--uninstall"], home, cwd=project).returncode == 0
    once(ours)
    assert run_cli(["--claude", scope, "--yes"], home, cwd=project).returncode == 0
    claude_before = snapshot(Path(claude)), snapshot(project)
    _install(home, project, scope, "--uninstall")
    claude_after = snapshot(Path(claude)), snapshot(project)
    assert claude_after[0] == claude_before[0]  # Claude's install is untouched
    if scope == "--local":
        assert claude_after[1][".mcp.json"] == claude_before[1][".mcp.json"]
        once(theirs)  # Claude's server, and it works for qwen too


def test_the_traps_qwen_sets(tmp_path: Path) -> None:
    """Hand-made files the way a naive converter would write them, and what qwen does."""
    home, project = tmp_path / "home", tmp_path / "proj"
    build(
        home,
        {
            ".qwen/agents/zz-short.md": "---\nname: zz-short\ndescription: x\n---\nShort\n",
            ".qwen/commands/zz-dollar.md": "---\ndescription: d\n---\nArgs: $ARGUMENTS.\n",
        },
    )
    project.mkdir()
    with OpenAIStub() as stub:
        turn = QwenTurn(home, project, "/zz-dollar XYZ", stub)
    assert "zz-short" not in turn.agent_tool
    assert turn.loader_errors()  # the marker the other tests look for does show up
    assert any("System prompt must be at least 10 characters" in ln for ln in turn.log.splitlines())
    assert "Args: $ARGUMENTS." in turn.user  # never replaced; the typed args are appended
