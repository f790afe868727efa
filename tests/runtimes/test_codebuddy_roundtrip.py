"""CodeBuddy Code through the real ``msd-install`` process: install, reinstall, uninstall.

CodeBuddy parses settings.json and its MCP files as JSONC, so the seeded files carry comments,
trailing commas and CRLF line ends, a user's own MCP server and hook; the user MCP file is the
first existing of three, and a local install writes into ``~/.codebuddy.json``'s ``projects``.
Install -> uninstall must give every file back byte for byte, leave the other MCP files alone
and a reinstall writes nothing.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from helpers import build, run_cli, run_json, snapshot, verbs

OFF = {"CODEBUDDY_CONFIG_DIR": ""}  # whatever the machine running the tests has set
SETTINGS = (
    "{\r\n"
    "  // my CodeBuddy settings\r\n"
    '  "model": "deep-model",\r\n'
    '  "hooks": {\r\n'
    '    "PreToolUse": [\r\n'
    '      {"matcher": "Bash", "hooks": [{"type": "command", "command": "my-guard.sh"}]},\r\n'
    "    ],\r\n"
    "  },\r\n"
    "}\r\n"
)
USER_MCP = (
    "{\r\n"
    "  /* my servers */\r\n"
    '  "mcpServers": {\r\n'
    '    "db": {"type": "stdio", "command": "db-mcp", "args": ["--ro"]},\r\n'
    "  },\r\n"
    "}\r\n"
)
HOME_JSON = (
    '{\n  // CodeBuddy\'s local scope\n  "projects": {\n    "/src/other": {"mcpServers": '
    '{"x": {"type": "stdio", "command": "x-mcp"}}, "disabledMcpServers": []}\n  }\n}\n'
)
USER_FILES = {
    ".codebuddy/settings.json": SETTINGS,
    ".codebuddy/commands/mine.md": "---\ndescription: my own\n---\nDo my thing.\n",
    ".codebuddy/skills/my-skill/SKILL.md": "---\nname: my-skill\ndescription: mine\n---\nBody.\n",
    ".codebuddy/agents/my-agent.md": "---\nname: my-agent\ndescription: mine\n---\nBody.\n",
    ".codebuddy/user-state.json": '{"not": "ours"}',
}


def jsonc(text: str) -> Any:
    """What CodeBuddy would read (its parser drops comments and trailing commas)."""
    text = re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S)
    return json.loads(re.sub(r",(\s*[}\]])", r"\1", text))


def install(home: Path, *args: str, cwd: Path | None = None) -> Any:
    proc = run_cli(["--codebuddy", *args, "--yes"], home, cwd=cwd, **OFF)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


@pytest.fixture()
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    build(h, USER_FILES)
    return h


def test_global_round_trip_keeps_every_user_byte(home: Path) -> None:
    build(home, {".codebuddy/.mcp.json": USER_MCP, ".codebuddy.json": HOME_JSON})
    before = snapshot(home)
    proc = install(home, "--global")
    root = home / ".codebuddy"
    assert (root / "commands/msd-help.md").is_file() and (root / "agents/msd-planner.md").is_file()
    assert (root / "skills/msd-workflow/SKILL.md").is_file()
    assert not (root / "skills/msd-help").exists()
    text = (root / "settings.json").read_bytes().decode()
    assert "// my CodeBuddy settings" in text and "\n" not in text.replace("\r\n", "")
    settings = jsonc(text)
    assert settings["model"] == "deep-model"
    assert settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == "my-guard.sh"
    assert len(settings["hooks"]["PreToolUse"]) == 6 and "statusLine" in settings
    mcp = (root / ".mcp.json").read_bytes().decode()
    assert "/* my servers */" in mcp and "\n" not in mcp.replace("\r\n", "")
    servers = jsonc(mcp)["mcpServers"]
    assert servers["db"]["command"] == "db-mcp"
    assert servers["msd"]["args"][2] == str(root / "msd-core/bin/msd-mcp")
    assert (home / ".codebuddy.json").read_text() == HOME_JSON  # never read: never touched
    assert "note: mcp: in a project whose .mcp.json names an msd server" in proc.stdout
    again = run_json(["--codebuddy", "--global", "--yes"], home, **OFF)
    assert set(verbs(again)) == {"identical"}, verbs(again)
    assert run_cli(["--codebuddy", "--global", "--uninstall", "--yes"], home, **OFF).returncode == 0
    assert snapshot(home) == before


@pytest.mark.parametrize(
    ("existing", "chosen"),
    [
        ((), ".codebuddy/.mcp.json"),
        ((".codebuddy/mcp.json",), ".codebuddy/mcp.json"),
        ((".codebuddy.json",), ".codebuddy.json"),
        ((".codebuddy/mcp.json", ".codebuddy.json"), ".codebuddy/mcp.json"),
        (
            (".codebuddy/.mcp.json", ".codebuddy/mcp.json", ".codebuddy.json"),
            ".codebuddy/.mcp.json",
        ),
    ],
)
def test_server_goes_into_the_first_existing_user_file_only(
    home: Path, existing: tuple[str, ...], chosen: str
) -> None:
    build(home, {rel: USER_MCP for rel in existing})
    before = snapshot(home)
    install(home, "--global")
    after = snapshot(home)
    for rel in (".codebuddy/.mcp.json", ".codebuddy/mcp.json", ".codebuddy.json"):
        if rel == chosen:
            servers = jsonc((home / rel).read_text())["mcpServers"]
            assert set(servers) == ({"db", "msd"} if existing else {"msd"})
        elif rel in existing:
            assert after[rel] == before[rel], rel  # CodeBuddy never reads it: left alone
        else:
            assert rel not in after, rel
    assert run_cli(["--codebuddy", "--global", "--uninstall", "--yes"], home, **OFF).returncode == 0
    assert snapshot(home) == before


def test_local_round_trip_touches_the_project_and_codebuddys_local_scope(
    home: Path, tmp_path: Path
) -> None:
    build(home, {".codebuddy.json": HOME_JSON})
    project = tmp_path / "project"
    build(
        project,
        {
            ".codebuddy/settings.json": '{\n  // shared with the team\n  "hooks": {},\n}\n',
            ".codebuddy/settings.local.json": '{"enabledMcpjsonServers": ["db"]}\n',
            ".mcp.json": '{"mcpServers": {"db": {"command": "db-mcp"}}}\n',
            "CODEBUDDY.md": "# rules\n",
        },
    )
    home_before, project_before = snapshot(home), snapshot(project)
    proc = install(home, "--local", cwd=project)
    root = project / ".codebuddy"
    settings = jsonc((root / "settings.json").read_text())
    command = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    assert '-I -S "$CODEBUDDY_PROJECT_DIR"/.codebuddy/hooks/msd-secret-read-guard.py' in command
    local = jsonc((home / ".codebuddy.json").read_text())["projects"]
    assert set(local) == {"/src/other", str(project)}
    assert local[str(project)]["mcpServers"]["msd"]["args"][2] == str(root / "msd-core/bin/msd-mcp")
    text = (home / ".codebuddy.json").read_text()
    assert text.startswith("{\n  // CodeBuddy's local scope\n")
    for rel in (".mcp.json", ".codebuddy/settings.local.json", "CODEBUDDY.md"):
        assert snapshot(project)[rel] == project_before[rel], rel  # not ours to change
    assert "local scope for" in proc.stdout
    command_text = (root / "commands/msd-progress.md").read_text()
    assert "@.codebuddy/msd-core/workflows/progress.md" in command_text
    assert str(project) not in command_text
    again = run_json(["--codebuddy", "--local", "--yes"], home, cwd=project, **OFF)
    assert set(verbs(again)) == {"identical"}, verbs(again)
    done = run_cli(["--codebuddy", "--local", "--uninstall", "--yes"], home, cwd=project, **OFF)
    assert done.returncode == 0, done.stderr
    assert snapshot(project) == project_before
    assert snapshot(home) == home_before


def test_empty_home_dry_run_and_round_trips(tmp_path: Path) -> None:
    home, project = tmp_path / "empty", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    doc = run_json(["--codebuddy", "--global", "--yes", "--dry-run"], home, **OFF)
    assert doc["results"][0]["dry_run"] is True and verbs(doc)["create"] > 100
    assert snapshot(home) == {}
    install(home, "--local", cwd=project)
    assert set(jsonc((home / ".codebuddy.json").read_text())["projects"]) == {str(project)}
    install(home, "--global", cwd=project)
    # the local install made ~/.codebuddy.json the first existing user file: CodeBuddy reads
    # the user's servers there now, so the global server goes there too
    assert not (home / ".codebuddy/.mcp.json").exists()
    assert "msd" in jsonc((home / ".codebuddy.json").read_text())["mcpServers"]
    for scope in ("--global", "--local"):
        done = run_cli(["--codebuddy", scope, "--uninstall", "--yes"], home, cwd=project, **OFF)
        assert done.returncode == 0, done.stderr
    assert snapshot(home) == {} and snapshot(project) == {}


@pytest.mark.parametrize(
    ("rel", "content", "message"),
    [
        (".codebuddy/settings.json", '{\n  "hooks": {\n', "unexpected end of file"),
        (".codebuddy/settings.json", "[1, 2]\n", "top level is not a JSON object"),
        (".codebuddy/.mcp.json", '{"mcpServers": {"db": }}', "unexpected"),
    ],
)
def test_config_codebuddy_cannot_parse_is_refused(
    home: Path, rel: str, content: str, message: str
) -> None:
    """CodeBuddy itself drops a broken user settings.json silently (and exits 0)."""
    build(home, {rel: content})
    before = snapshot(home)
    proc = run_cli(["--codebuddy", "--global", "--yes"], home, **OFF)
    assert proc.returncode == 4 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert str(home / rel) in lines[0] and message in lines[0]
    assert snapshot(home) == before


def test_broken_local_scope_file_is_refused(home: Path, tmp_path: Path) -> None:
    build(home, {".codebuddy.json": '{"projects": {'})
    project = tmp_path / "project"
    project.mkdir()
    before = snapshot(home)
    proc = run_cli(["--codebuddy", "--local", "--yes"], home, cwd=project, **OFF)
    assert proc.returncode == 4 and str(home / ".codebuddy.json") in proc.stderr
    assert snapshot(home) == before and snapshot(project) == {}


def test_users_own_msd_server_is_a_conflict(home: Path) -> None:
    build(home, {".codebuddy/mcp.json": '{"mcpServers": {"msd": {"command": "my-msd"}}}'})
    before = snapshot(home)
    proc = run_cli(["--codebuddy", "--global", "--yes"], home, **OFF)
    assert proc.returncode == 1 and "conflict" in proc.stdout
    assert jsonc((home / ".codebuddy/mcp.json").read_text())["mcpServers"]["msd"] == {
        "command": "my-msd"
    }
    assert run_cli(["--codebuddy", "--global", "--uninstall", "--yes"], home, **OFF).returncode == 0
    assert snapshot(home) == before


def test_config_dir_env_relocates_everything(tmp_path: Path) -> None:
    home, elsewhere = tmp_path / "home", tmp_path / "cb"
    home.mkdir()
    env = {"CODEBUDDY_CONFIG_DIR": str(elsewhere)}
    proc = run_cli(["--codebuddy", "--global", "--yes"], home, **env)
    assert proc.returncode == 0, proc.stderr
    assert (elsewhere / "commands/msd-help.md").is_file()
    assert "msd" in jsonc((elsewhere / ".mcp.json").read_text())["mcpServers"]
    assert not (home / ".codebuddy").exists() and not (home / ".codebuddy.json").exists()
    assert run_cli(["--codebuddy", "--global", "--uninstall", "--yes"], home, **env).returncode == 0
    assert not elsewhere.exists() or snapshot(elsewhere) == {}


def test_side_by_side_with_claude_each_keeps_its_own_server(tmp_path: Path) -> None:
    """Claude Code's local install owns the project's .mcp.json; CodeBuddy's never touches it."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    for runtime in ("--claude", "--codebuddy"):
        proc = run_cli([runtime, "--local", "--yes"], home, cwd=project, **OFF)
        assert proc.returncode == 0 and "conflict" not in proc.stdout, proc.stdout
    claude = json.loads((project / ".mcp.json").read_text())["mcpServers"]["msd"]
    assert claude["args"][2] == ".claude/msd-core/bin/msd-mcp"  # committed: project-relative
    ours = jsonc((home / ".codebuddy.json").read_text())["projects"][str(project)]["mcpServers"]
    assert ours["msd"]["args"][2] == str(project / ".codebuddy/msd-core/bin/msd-mcp")
    claude_files = snapshot(project / ".claude")
    mcp_json = (project / ".mcp.json").read_bytes()
    done = run_cli(["--codebuddy", "--local", "--uninstall", "--yes"], home, cwd=project, **OFF)
    assert done.returncode == 0
    assert snapshot(project / ".claude") == claude_files
    assert (project / ".mcp.json").read_bytes() == mcp_json
    assert (
        run_cli(["--claude", "--local", "--uninstall", "--yes"], home, cwd=project).returncode == 0
    )
    assert snapshot(project) == {} and snapshot(home) == {}
