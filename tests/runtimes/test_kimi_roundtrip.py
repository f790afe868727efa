"""Kimi Code CLI through the real msd-install process: install, reinstall, uninstall, refusals.

The promise under test: every file the user had (a commented CRLF ``config.toml`` with their
provider, model and hook; an ``mcp.json`` with their server; their skill and agent) is
byte-identical after install + uninstall and nothing new remains; a table or hook the user adds
after ours survives uninstall; a reinstall writes nothing; ``mcp.json`` (strict JSON to Kimi)
and ``config.toml`` that msd-install cannot edit safely are refused with one line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tomlkit

from helpers import build, run_cli, run_json, snapshot, snapshot_but_registry, verbs

USER_CONFIG = (
    "# ~/.kimi-code/config.toml: mine\r\n"
    'default_model = "k2"  # the fast one\r\n'
    "\r\n"
    "[providers.moonshot]\r\n"
    'type = "kimi"\r\n'
    'api_key = "sk-mine"\r\n'
    "\r\n"
    "[models.k2]\r\n"
    'provider = "moonshot"\r\n'
    'model = "kimi-k2"\r\n'
    "max_context_size = 262144\r\n"
    "\r\n"
    "# my own guard\r\n"
    "[[hooks]]\r\n"
    'event = "PreToolUse"\r\n'
    'matcher = "Bash"\r\n'
    'command = "my-guard"\r\n'
)
USER_MCP = '{\n  "mcpServers": {\n    "db": {"command": "db-mcp", "args": ["--ro"]}\n  }\n}'
USER_FILES = {
    ".kimi-code/config.toml": USER_CONFIG,
    ".kimi-code/mcp.json": USER_MCP,
    ".kimi-code/skills/my-skill/SKILL.md": "---\nname: my-skill\ndescription: mine\n---\nBody.\n",
    ".kimi-code/agents/my-agent.md": "---\nname: my-agent\ndescription: mine\n---\nBe nice.\n",
}
LATER = (
    "\r\n[loop_control]\r\nmax_steps_per_turn = 80\r\n"
    '\r\n[[hooks]]\r\nevent = "Stop"\r\ncommand = "say done"\r\n'
)


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
    proc = run_cli(["--kimi", "--global", "--yes"], home)
    assert proc.returncode == 0, proc.stderr
    root = home / ".kimi-code"
    assert len(list(root.glob("skills/msd-*/SKILL.md"))) == 28
    assert len(list(root.glob("agents/msd-*.md"))) == 10
    text = (root / "config.toml").read_bytes()
    assert text.startswith(USER_CONFIG.encode()) and b"\n" not in text.replace(b"\r\n", b"")
    config = _config(root)
    assert config["default_model"] == "k2" and config["providers"]["moonshot"]["api_key"]
    hooks = config["hooks"]
    assert hooks[0] == {"event": "PreToolUse", "matcher": "Bash", "command": "my-guard"}
    assert [h["command"].split('"')[3].rsplit("/", 1)[1] for h in hooks[1:]] == [
        "msd-secret-read-guard.py",
        "msd-validate-commit.py",
    ]
    servers = json.loads((root / "mcp.json").read_text())["mcpServers"]
    assert servers["db"] == {"command": "db-mcp", "args": ["--ro"]}
    assert servers["msd"]["args"] == ["-I", "-S", str(root / "msd-core/bin/msd-mcp")]
    assert "does not trust" not in proc.stdout  # the global scope needs no trust
    # the user adds a table and a hook after ours; uninstall keeps them and all they had
    with (root / "config.toml").open("ab") as f:
        f.write(LATER.encode())
    proc = run_cli(["--kimi", "--global", "--uninstall", "--yes"], home)
    assert proc.returncode == 0, proc.stderr
    after = snapshot(home)
    assert after.pop(".kimi-code/config.toml")[0] == (USER_CONFIG + LATER).encode()
    before.pop(".kimi-code/config.toml")
    assert after == before


def test_local_install_then_uninstall_gives_back_the_project(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    claude_mcp = '{"mcpServers": {"web": {"type": "stdio", "command": "web-mcp"}}}\n'
    build(
        project,
        {
            ".git/HEAD": "ref: refs/heads/main\n",
            "src/app.py": "print('hi')\n",
            ".mcp.json": claude_mcp,
            ".kimi-code/mcp.json": '{"mcpServers": {}}\n',
            "AGENTS.md": "# rules\n",
        },
    )
    home_before, project_before = snapshot(home), snapshot(project)
    proc = run_cli(["--kimi", "--local", "--yes"], home, cwd=project)
    assert proc.returncode == 0, proc.stderr
    root = project / ".kimi-code"
    assert json.loads((root / "mcp.json").read_text())["mcpServers"]["msd"]["command"]
    assert not (root / "config.toml").exists() and not (root / "hooks").exists()
    said = " ".join(proc.stdout.split())
    assert "only in a trusted folder" in said and "a local install registers none" in said
    skill = (root / "skills/msd-progress/SKILL.md").read_text()
    assert "`.kimi-code/msd-core/workflows/progress.md`" in skill and str(project) not in skill
    assert (project / ".mcp.json").read_text() == claude_mcp  # Claude's file is not ours
    assert snapshot_but_registry(home) == home_before  # no trust record, nothing in the home
    proc = run_cli(["--kimi", "--local", "--uninstall", "--yes"], home, cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert snapshot(project) == project_before


def test_empty_home_round_trip_and_dry_run(tmp_path: Path) -> None:
    home = tmp_path / "empty"
    home.mkdir()
    doc = run_json(["--kimi", "--global", "--yes", "--dry-run"], home)
    assert verbs(doc)["create"] > 100 and snapshot(home) == {}
    assert run_cli(["--kimi", "--global", "--yes"], home).returncode == 0
    assert (home / ".kimi-code/config.toml").read_text().startswith("[[hooks]]\n")
    assert run_cli(["--kimi", "--global", "--yes", "--uninstall"], home).returncode == 0
    assert snapshot(home) == {}


def test_reinstall_writes_nothing(home: Path) -> None:
    assert run_cli(["--kimi", "--global", "--yes"], home).returncode == 0
    before = snapshot(home, stat=True)
    doc = run_json(["--kimi", "--global", "--yes"], home)
    assert set(verbs(doc)) <= {"identical", "skip"}, verbs(doc)
    assert snapshot(home, stat=True) == before


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("mcp.json", '{"mcpServers": {"db": {"command": "x"},}}', "mcp.json"),
        ("mcp.json", '// mine\n{"mcpServers": {}}', "mcp.json"),
        ("mcp.json", '{"mcpServers": []}', "mcpServers"),
        ("config.toml", 'default_model = "k2"\n[providers\n', "invalid TOML"),
        # Kimi's own hooks written inline: no [[hooks]] table can follow them
        ("config.toml", 'hooks = [{event = "Stop", command = "x"}]\n', "not be valid TOML"),
    ],
)
def test_a_file_msd_cannot_edit_is_refused_with_one_line(
    home: Path, name: str, content: str, message: str
) -> None:
    (home / ".kimi-code" / name).write_text(content, encoding="utf-8")
    before = snapshot(home)
    proc = run_cli(["--kimi", "--global", "--yes"], home)
    assert proc.returncode == 4, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert str(home / ".kimi-code" / name) in lines[0] and message in lines[0]
    assert snapshot(home) == before


def test_a_users_own_msd_server_is_a_conflict_and_kept(home: Path) -> None:
    mine = '{"mcpServers": {"msd": {"command": "my-msd"}}}\n'
    (home / ".kimi-code/mcp.json").write_text(mine)
    proc = run_cli(["--kimi", "--global", "--yes"], home)
    assert proc.returncode == 1 and "conflict" in proc.stdout
    assert (home / ".kimi-code/mcp.json").read_text() == mine


def test_kimi_code_home_is_the_root(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    custom = tmp_path / "kimi-home"
    env = {"KIMI_CODE_HOME": str(custom)}
    assert run_cli(["--kimi", "--global", "--yes"], home, **env).returncode == 0
    assert (custom / "skills/msd-help/SKILL.md").is_file() and not (home / ".kimi-code").exists()
    workflow = (custom / "msd-core/workflows/plan-phase.md").read_text()
    assert f"python3 {custom}/msd-core/bin/msd-tools" in workflow and "~/.claude" not in workflow
    assert str(custom / "hooks/msd-secret-read-guard.py") in (custom / "config.toml").read_text()
    proc = run_cli(["--kimi", "--global", "--yes", "--uninstall"], home, **env)
    assert proc.returncode == 0, proc.stderr
    assert snapshot(custom) == {} and snapshot(home) == {}
