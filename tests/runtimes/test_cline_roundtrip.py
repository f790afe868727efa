"""Cline through the real ``msd-install`` process: install, reinstall, uninstall.

Seeded with what a Cline user has: a strict-JSON ``cline_mcp_settings.json`` (CRLF, four-space
indent, a server of theirs in Cline's nested ``transport`` form), their own ``PreToolUse`` hook
file, skills, agents, rules and workflows of theirs; locally a git project with ``.clinerules/``
and its own ``.cline/hooks``. Install -> uninstall must give every byte back (``git status``
clean), a reinstall writes nothing, and a settings file Cline cannot parse is refused.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from helpers import build, run_cli, run_json, snapshot, snapshot_but_registry, verbs

MCP = ".cline/data/settings/cline_mcp_settings.json"
USER_MCP = (
    "{\r\n"
    '    "mcpServers": {\r\n'
    '        "db": {\r\n'
    '            "transport": {"type": "stdio", "command": "db-mcp", "args": ["--ro"]}\r\n'
    "        }\r\n"
    "    }\r\n"
    "}\r\n"
)
USER_FILES: dict[str, str | bytes] = {
    MCP: USER_MCP,
    ".cline/data/settings/providers.json": '{"version": 1, "providers": {}}\n',
    ".cline/hooks/PreToolUse": "#!/bin/sh\necho '{}'\n",
    ".cline/skills/my-skill/SKILL.md": "---\nname: my-skill\ndescription: mine\n---\nMine.\n",
    ".cline/agents/my-agent.yaml": "---\nname: my-agent\ndescription: mine\n---\nMy agent.\n",
    ".cline/rules/my-rule.md": "Always answer in French.\n",
    ".cline/workflows/my-flow.md": "Run the tests.\n",
}


@pytest.fixture()
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    build(h, USER_FILES)
    (h / ".cline/hooks/PreToolUse").chmod(0o755)
    return h


def test_global_round_trip_keeps_every_user_byte(home: Path) -> None:
    before = snapshot(home)
    proc = run_cli(["--cline", "--global", "--yes"], home)
    assert proc.returncode == 0, proc.stderr
    root = home / ".cline"
    assert (root / "skills/msd-help/SKILL.md").is_file()
    assert (root / "agents/msd-planner.yaml").is_file()
    assert (root / "hooks/PreToolUse.sh").is_file() and (root / "hooks/PostToolUse.sh").is_file()
    assert (
        not (root / "workflows/msd-help.md").exists()
        and not (root / "agents/msd-planner.md").exists()
    )
    raw = (home / MCP).read_bytes().decode()
    assert "\n" not in raw.replace("\r\n", "")  # CRLF kept for our lines too
    settings = json.loads(raw)  # strict JSON: what Cline parses
    assert settings["mcpServers"]["db"]["transport"]["command"] == "db-mcp"
    server = settings["mcpServers"]["msd"]
    assert server["args"] == ["-I", "-S", str(root / "msd-core/bin/msd-mcp")]
    assert (home / ".cline/hooks/PreToolUse").read_bytes() == b"#!/bin/sh\necho '{}'\n"
    assert "note: workflows: a Cline subagent runs on its agent file's model" in proc.stdout
    again = run_json(["--cline", "--global", "--yes"], home)
    assert set(verbs(again)) == {"identical"}, verbs(again)
    assert run_cli(["--cline", "--global", "--yes", "--uninstall"], home).returncode == 0
    assert snapshot(home) == before


def git(project: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def test_local_round_trip_leaves_the_git_project_clean(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    build(
        project,
        {
            ".clinerules/style.md": "Use tabs.\n",
            ".clinerules/workflows/release.md": "Tag and push.\n",
            ".cline/hooks/PostToolUse": "#!/bin/sh\necho '{}'\n",
            "AGENTS.md": "# Agents\n",
            "src/app.py": "print('hi')\n",
        },
    )
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "init")
    home_before, project_before = snapshot(home), snapshot(project)
    proc = run_cli(["--cline", "--local", "--yes"], home, cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert "registers none" in proc.stdout  # no project MCP file in Cline
    changed = {line[3:] for line in git(project, "status", "--porcelain", "-uall").splitlines()}
    assert changed and all(path.startswith(".cline/") for path in changed)
    assert ".cline/hooks/PreToolUse.sh" in changed and ".cline/skills/msd-help/SKILL.md" in changed
    skill = (project / ".cline/skills/msd-progress/SKILL.md").read_text()
    assert "`.cline/msd-core/workflows/progress.md`" in skill and str(project) not in skill
    assert snapshot_but_registry(home) == home_before
    again = run_json(["--cline", "--local", "--yes"], home, cwd=project)
    assert set(verbs(again)) == {"identical"}, verbs(again)
    proc = run_cli(["--cline", "--local", "--yes", "--uninstall"], home, cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert git(project, "status", "--porcelain", "--ignored") == ""
    assert snapshot(project) == project_before


def test_empty_home_dry_run_and_round_trip(tmp_path: Path) -> None:
    home = tmp_path / "empty"
    home.mkdir()
    doc = run_json(["--cline", "--global", "--yes", "--dry-run"], home)
    assert doc["results"][0]["dry_run"] is True and verbs(doc)["create"] > 100
    assert snapshot(home) == {}
    assert run_cli(["--cline", "--global", "--yes"], home).returncode == 0
    assert json.loads((home / MCP).read_text())["mcpServers"]["msd"]["command"]
    assert run_cli(["--cline", "--global", "--yes", "--uninstall"], home).returncode == 0
    assert snapshot(home) == {}


def test_clines_own_overrides_move_everything(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    cline_dir, settings = tmp_path / "cline-dir", tmp_path / "mcp/servers.json"
    env = {"CLINE_DIR": str(cline_dir), "CLINE_MCP_SETTINGS_PATH": str(settings)}
    assert run_cli(["--cline", "--global", "--yes"], home, **env).returncode == 0
    assert (cline_dir / "skills/msd-help/SKILL.md").is_file() and not (home / ".cline").exists()
    assert json.loads(settings.read_text())["mcpServers"]["msd"]["args"][2] == str(
        cline_dir / "msd-core/bin/msd-mcp"
    )
    assert run_cli(["--cline", "--global", "--yes", "--uninstall"], home, **env).returncode == 0
    assert not cline_dir.exists() and not settings.exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{\n  // mine\n  "mcpServers": {}\n}\n', "comment"),  # Cline: Unrecognized token '/'
        ('{"mcpServers": {"db": {"command": "x"},}}\n', ""),  # Cline: Property name must be...
        ('{\n  "mcpServers": {\n', ""),
        ("[1, 2]\n", "top level is not a JSON object"),
    ],
)
def test_settings_cline_cannot_parse_are_refused(home: Path, content: str, message: str) -> None:
    (home / MCP).write_text(content)
    before = snapshot(home)
    proc = run_cli(["--cline", "--global", "--yes"], home)
    assert proc.returncode == 4 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert str(home / MCP) in lines[0] and message in lines[0]
    assert snapshot(home) == before


def test_users_own_msd_server_and_launcher_are_conflicts(home: Path) -> None:
    build(
        home,
        {
            MCP: '{"mcpServers": {"msd": {"command": "my-msd"}}}',
            ".cline/hooks/PreToolUse.sh": "#!/bin/sh\necho '{}'\n",
        },
    )
    before = snapshot(home)
    proc = run_cli(["--cline", "--global", "--yes"], home)
    assert proc.returncode == 1 and proc.stdout.count("conflict") >= 2, proc.stdout
    assert json.loads((home / MCP).read_text())["mcpServers"]["msd"] == {"command": "my-msd"}
    assert (home / ".cline/hooks/PreToolUse.sh").read_text() == "#!/bin/sh\necho '{}'\n"
    assert (home / ".cline/hooks/PostToolUse.sh").is_file()
    assert run_cli(["--cline", "--global", "--yes", "--uninstall"], home).returncode == 0
    assert snapshot(home) == before
