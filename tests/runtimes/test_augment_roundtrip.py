"""Augment Code through the real ``msd-install`` process: install, reinstall, uninstall.

Auggie reads settings.json as JSONC (comments and trailing commas accepted), so the seeded
files have both, CRLF line ends, a user's own MCP server and hook: install -> uninstall must give
them back byte for byte, and a reinstall writes nothing.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from helpers import build, run_cli, run_json, snapshot, snapshot_but_registry, verbs

USER_SETTINGS = (
    "{\r\n"
    "  // my Auggie settings\r\n"
    '  "model": "sonnet4.5",\r\n'
    '  "mcpServers": {\r\n'
    '    "db": {"type": "stdio", "command": "db-mcp", "args": ["--ro"]}, /* read only */\r\n'
    "  },\r\n"
    '  "hooks": {\r\n'
    '    "PreToolUse": [\r\n'
    '      {"matcher": "launch-process", "hooks": [{"type": "command", "command": "my-guard.sh", '
    '"timeout": 5000}]},\r\n'
    "    ],\r\n"
    "  },\r\n"
    "}"
)
USER_FILES = {
    ".augment/settings.json": USER_SETTINGS,
    ".augment/commands/mine.md": "---\ndescription: my own\n---\nDo my thing.\n",
    ".augment/skills/my-skill/SKILL.md": "---\nname: my-skill\ndescription: mine\n---\nBody.\n",
    ".augment/agents/my-agent.md": "---\nname: my-agent\ndescription: mine\n---\nBody.\n",
    ".augment/session.json": '{"accessToken": "not-ours"}',
}


def jsonc(text: str) -> dict:
    """What Auggie would read (its parser drops comments and trailing commas)."""
    import re

    text = re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S)
    return json.loads(re.sub(r",(\s*[}\]])", r"\1", text))


@pytest.fixture()
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    build(h, USER_FILES)
    return h


def test_global_round_trip_keeps_every_user_byte(home: Path) -> None:
    before = snapshot(home)
    proc = run_cli(["--augment", "--global", "--yes"], home)
    assert proc.returncode == 0, proc.stderr
    root = home / ".augment"
    assert (root / "skills/msd-help/SKILL.md").is_file()
    assert (root / "agents/msd-planner.md").is_file()
    assert not (root / "commands/msd-help.md").exists()
    text = (root / "settings.json").read_bytes().decode()
    assert "// my Auggie settings" in text and "/* read only */" in text
    assert "\n" not in text.replace("\r\n", "")  # CRLF kept for our lines too
    settings = jsonc(text)
    assert settings["model"] == "sonnet4.5" and settings["mcpServers"]["db"]["command"] == "db-mcp"
    assert settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == "my-guard.sh"
    server = settings["mcpServers"]["msd"]
    assert server["type"] == "stdio" and server["args"][2] == str(root / "msd-core/bin/msd-mcp")
    ours = [g for groups in settings["hooks"].values() for g in groups if "msd-" in json.dumps(g)]
    scripts = set()
    for group in ours:
        argv = shlex.split(group["hooks"][0]["command"])
        assert argv[1:3] == ["-I", "-S"] and Path(argv[3]).is_file()
        assert argv[4:] == ["--dialect", "augment"]
        scripts.add(Path(argv[3]).stem)
    assert scripts == {  # the hooks whose answer Auggie passes on (see runtimes/augment.py)
        "msd-check-update",
        "msd-secret-read-guard",
        "msd-prompt-guard",
        "msd-validate-commit",
        "msd-read-injection-scanner",
        "msd-phase-boundary",
    }
    assert "note: account: Auggie offers custom subagents" in proc.stdout
    again = run_json(["--augment", "--global", "--yes"], home)
    assert set(verbs(again)) == {"identical"}, verbs(again)
    assert run_cli(["--augment", "--global", "--yes", "--uninstall"], home).returncode == 0
    assert snapshot(home) == before


def test_local_round_trip_touches_only_the_project(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    build(
        project,
        {
            ".augment/settings.json": '{\n  // shared with the team\n  "hooks": {},\n}\n',
            ".augment/settings.local.json": '{"model": "mine"}\n',
            "src/app.py": "print('hi')\n",
        },
    )
    home_before, project_before = snapshot(home), snapshot(project)
    proc = run_cli(["--augment", "--local", "--yes"], home, cwd=project)
    assert proc.returncode == 0, proc.stderr
    settings = jsonc((project / ".augment/settings.json").read_text())
    guard = settings["hooks"]["PreToolUse"][0]
    assert guard["matcher"] == "^(view|read|grep-search|grep|launch-process|bash)$"
    command = guard["hooks"][0]["command"]
    assert '-I -S "$AUGMENT_PROJECT_DIR"/.augment/hooks/msd-secret-read-guard.py' in command
    # committed with the project: relative to it, python3 from the PATH
    assert settings["mcpServers"]["msd"]["args"][2] == ".augment/msd-core/bin/msd-mcp"
    assert settings["mcpServers"]["msd"]["command"] == "python3"
    skill = (project / ".augment/skills/msd-progress/SKILL.md").read_text()
    assert "`.augment/msd-core/workflows/progress.md`" in skill and str(project) not in skill
    assert snapshot_but_registry(home) == home_before
    assert (
        run_cli(["--augment", "--local", "--yes", "--uninstall"], home, cwd=project).returncode == 0
    )
    assert snapshot(project) == project_before


def test_empty_home_dry_run_and_round_trip(tmp_path: Path) -> None:
    home = tmp_path / "empty"
    home.mkdir()
    doc = run_json(["--augment", "--global", "--yes", "--dry-run"], home)
    assert doc["results"][0]["dry_run"] is True and verbs(doc)["create"] > 100
    assert snapshot(home) == {}
    assert run_cli(["--augment", "--global", "--yes"], home).returncode == 0
    assert json.loads((home / ".augment/settings.json").read_text())["mcpServers"]["msd"]
    assert run_cli(["--augment", "--global", "--yes", "--uninstall"], home).returncode == 0
    assert snapshot(home) == {}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{\n  "mcpServers": {\n', "unexpected end of file"),  # Auggie silently ignores it
        ("[1, 2]\n", "top level is not a JSON object"),
    ],
)
def test_settings_auggie_cannot_parse_are_refused(home: Path, content: str, message: str) -> None:
    (home / ".augment/settings.json").write_text(content)
    before = snapshot(home)
    proc = run_cli(["--augment", "--global", "--yes"], home)
    assert proc.returncode == 4 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert str(home / ".augment/settings.json") in lines[0] and message in lines[0]
    assert snapshot(home) == before


def test_users_own_msd_server_is_a_conflict(home: Path) -> None:
    build(home, {".augment/settings.json": '{"mcpServers": {"msd": {"command": "my-msd"}}}'})
    before = snapshot(home)
    proc = run_cli(["--augment", "--global", "--yes"], home)
    assert proc.returncode == 1 and "conflict" in proc.stdout
    assert jsonc((home / ".augment/settings.json").read_text())["mcpServers"]["msd"] == {
        "command": "my-msd"
    }
    assert run_cli(["--augment", "--global", "--yes", "--uninstall"], home).returncode == 0
    assert snapshot(home) == before
