"""Codex through the real msd-install process: install, reinstall, uninstall, refusals.

The promise under test: after install + uninstall every file the user had (a commented, CRLF
``config.toml`` with their own MCP server, a ``hooks.json`` with their hook, their own skill)
is byte-identical and nothing new remains; tables the user adds after ours survive uninstall;
a reinstall writes nothing; a file msd-install cannot edit safely is refused with one line.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import tomlkit

from helpers import build, run_cli, run_json, snapshot, snapshot_but_registry, verbs
from msd_install import schemas

USER_CONFIG = (
    "# my codex settings\r\n"
    'model = "gpt-6.2-sol"  # the one I like\r\n'
    "\r\n"
    "[mcp_servers.db]\r\n"
    'command = "db-mcp"\r\n'
    'args = ["--ro"]\r\n'
    "\r\n"
    "# keep this\r\n"
    '[projects."/somewhere/else"]\r\n'
    'trust_level = "trusted"\r\n'
)
USER_HOOKS = (
    '{\n  "hooks": {\n    "PreToolUse": [\n      {\n        "matcher": "Bash",\n'
    '        "hooks": [{"type": "command", "command": "echo mine", "timeout": 5}]\n'
    "      }\n    ]\n  }\n}\n"
)
USER_FILES = {
    ".codex/config.toml": USER_CONFIG,
    ".codex/hooks.json": USER_HOOKS,
    ".codex/skills/my-skill/SKILL.md": "---\nname: my-skill\ndescription: mine\n---\nBody.\n",
    ".codex/agents/my-agent.toml": 'name = "my-agent"\ndescription = "m"\n'
    'developer_instructions = "x"\n',
}


@pytest.fixture()
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    build(h, USER_FILES)
    return h


def _config(root: Path) -> dict:
    return dict(tomlkit.parse((root / "config.toml").read_text()).unwrap())


def test_global_install_then_uninstall_gives_back_the_home(home: Path) -> None:
    before = snapshot(home)
    proc = run_cli(["--codex", "--global", "--yes"], home)
    assert proc.returncode == 0, proc.stderr
    root = home / ".codex"
    assert len(list(root.glob("skills/msd-*/SKILL.md"))) == 28
    assert len(list(root.glob("agents/msd-*.toml"))) == 10
    assert not (root / "prompts").exists()  # custom prompts are gone from Codex
    config = _config(root)
    assert config["model"] == "gpt-6.2-sol" and config["mcp_servers"]["db"]["command"] == "db-mcp"
    server = config["mcp_servers"]["msd"]
    assert server["args"] == ["-I", "-S", str(root / "msd-core/bin/msd-mcp")]
    text = (root / "config.toml").read_bytes()
    assert text.startswith(USER_CONFIG.encode()) and b"\n" not in text.replace(b"\r\n", b"")
    hooks = json.loads((root / "hooks.json").read_text())
    jsonschema.validate(hooks, schemas.load("codex-hooks"))
    assert hooks["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == "echo mine"
    assert "review and trust them" in proc.stdout  # never trusted on the user's behalf
    assert "hooks" not in config  # no trust state, no feature flag: nothing of Codex's own
    # the user adds a table after ours; uninstall keeps it and everything else they had
    with (root / "config.toml").open("ab") as f:
        f.write(b'\r\n[tui]\r\ntheme = "dark"\r\n')
    proc = run_cli(["--codex", "--global", "--uninstall", "--yes"], home)
    assert proc.returncode == 0, proc.stderr
    after = snapshot(home)
    config_after = after.pop(".codex/config.toml")[0]
    assert config_after == USER_CONFIG.encode() + b'\r\n[tui]\r\ntheme = "dark"\r\n'
    before.pop(".codex/config.toml")
    assert after == before


def test_local_install_then_uninstall_gives_back_the_project(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    build(project, {"src/app.py": "print('hi')\n", ".codex/config.toml": "# project\n"})
    home_before, project_before = snapshot(home), snapshot(project)
    proc = run_cli(["--codex", "--local", "--yes"], home, cwd=project)
    assert proc.returncode == 0, proc.stderr
    root = project / ".codex"
    assert _config(root)["mcp_servers"]["msd"]["command"]
    assert f"only in a trusted project: trust {project}" in " ".join(proc.stdout.split())
    skill = (root / "skills/msd-progress/SKILL.md").read_text()
    assert "`.codex/msd-core/workflows/progress.md`" in skill and str(project) not in skill
    assert snapshot_but_registry(home) == home_before  # no trust entry, nothing else in the home
    proc = run_cli(["--codex", "--local", "--uninstall", "--yes"], home, cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert snapshot(project) == project_before


def test_empty_home_round_trip_and_dry_run(tmp_path: Path) -> None:
    home = tmp_path / "empty"
    home.mkdir()
    doc = run_json(["--codex", "--global", "--yes", "--dry-run"], home)
    assert verbs(doc)["create"] > 100 and snapshot(home) == {}
    assert run_cli(["--codex", "--global", "--yes"], home).returncode == 0
    assert (home / ".codex/config.toml").read_text().startswith("[mcp_servers.msd]\n")
    assert run_cli(["--codex", "--global", "--yes", "--uninstall"], home).returncode == 0
    assert snapshot(home) == {}


def test_reinstall_writes_nothing(home: Path) -> None:
    assert run_cli(["--codex", "--global", "--yes"], home).returncode == 0
    before = snapshot(home, stat=True)
    doc = run_json(["--codex", "--global", "--yes"], home)
    assert set(verbs(doc)) <= {"identical", "skip"}, verbs(doc)
    assert snapshot(home, stat=True) == before


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('model = "o3"\n[mcp_servers\n', "invalid TOML"),
        ("mcp_servers = {}\n", "is mcp_servers written inline"),
        ("mcp_servers = 1\n", "mcp_servers is not a table"),
        ('\ufeffmodel = "o3"\n', "byte-order mark"),
    ],
)
def test_a_config_msd_cannot_edit_is_refused_with_one_line(
    home: Path, content: str, message: str
) -> None:
    (home / ".codex/config.toml").write_text(content, encoding="utf-8")
    before = snapshot(home)
    proc = run_cli(["--codex", "--global", "--yes"], home)
    assert proc.returncode == 4, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert str(home / ".codex/config.toml") in lines[0] and message in lines[0]
    assert snapshot(home) == before


def test_a_users_own_msd_server_is_a_conflict_and_kept(home: Path) -> None:
    mine = '[mcp_servers.msd]\ncommand = "my-msd"  # mine\n'
    (home / ".codex/config.toml").write_text(mine)
    proc = run_cli(["--codex", "--global", "--yes"], home)
    assert proc.returncode == 1 and "conflict" in proc.stdout
    assert (home / ".codex/config.toml").read_text() == mine


def test_codex_home_is_the_root_and_must_exist(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    missing = tmp_path / "nowhere/codex"
    proc = run_cli(["--codex", "--global", "--yes"], home, CODEX_HOME=str(missing))
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and f"CODEX_HOME is set to {missing}" in proc.stderr
    assert not missing.exists() and snapshot(home) == {}
    custom = tmp_path / "codex-home"
    custom.mkdir()
    assert run_cli(["--codex", "--global", "--yes"], home, CODEX_HOME=str(custom)).returncode == 0
    assert (custom / "skills/msd-help/SKILL.md").is_file() and not (home / ".codex").exists()
    workflow = (custom / "msd-core/workflows/plan-phase.md").read_text()
    assert f"python3 {custom}/msd-core/bin/msd-tools" in workflow and "~/.claude" not in workflow
    proc = run_cli(["--codex", "--global", "--yes", "--uninstall"], home, CODEX_HOME=str(custom))
    assert proc.returncode == 0, proc.stderr
    assert snapshot(custom) == {}


def test_installed_secret_guard_blocks_through_codex_registration(
    home: Path, tmp_path: Path
) -> None:
    import subprocess

    assert run_cli(["--codex", "--global", "--yes"], home).returncode == 0
    groups = json.loads((home / ".codex/hooks.json").read_text())["hooks"]["PreToolUse"]
    command = next(
        h["command"] for g in groups for h in g["hooks"] if "secret-read-guard" in h["command"]
    )
    project = tmp_path / "p"
    project.mkdir()
    event = {
        "session_id": "s",
        "turn_id": "t",
        "transcript_path": None,
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "model": "m",
        "permission_mode": "default",
        "tool_name": "Bash",
        "tool_input": {"command": "cat .env"},
        "tool_use_id": "c1",
    }
    # Codex runs a hook command with `$SHELL -lc <command>` in the session's cwd
    proc = subprocess.run(
        ["/bin/sh", "-lc", command],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        timeout=20,
        cwd=project,
    )
    assert proc.returncode == 2 and ".env" in proc.stderr
