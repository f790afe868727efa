"""Review 2: real user journeys, run from the installed tree exactly as the runtime runs them.

Install with the real CLI into a home whose path holds spaces, quotes, ``$``, backticks,
unicode or a trailing newline; then run every hook command from settings.json through
``bash -c`` (as Claude Code does), the ``python3 ~/.claude/msd-core/bin/msd-tools ...`` lines
the installed workflows contain, and the MCP server command from ``~/.claude.json`` with the
env given there; then uninstall: the home must come back exactly (run-time caches included).
Journeys that expose a bug assert the correct behaviour and are ``xfail(strict=True)``.
"""

from __future__ import annotations

import http.server
import json
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers import build, cli_env, run_cli, snapshot

GLOBAL = ["--claude", "--global", "--yes"]
UNINSTALL = [*GLOBAL, "--uninstall"]

ODD_HOMES = {
    "spaces-quotes-dollar": 'Jane "JD" O\'Neil $HOME `id` $(id)',
    "unicode": "José Müller 日本語 ☃",
    "backslash-bang-glob": "back\\slash !bang *glob? [x]",
    "trailing-newline": "trail\n",
    "leading-dash-tilde": "-rf ~tilde",
}

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "review", "version": "1"},
    },
}


def odd_home(tmp_path: Path, name: str) -> Path:
    home = tmp_path / name
    home.mkdir()
    return home


def cli(args: list[str], home: Path, cwd: Path | None = None, **env: str) -> Any:
    tmp = home.parent / "tmp"
    tmp.mkdir(exist_ok=True)
    return run_cli(args, home, cwd, TMPDIR=str(tmp), **env)


def hook_commands(home: Path) -> dict[str, str]:
    settings = json.loads((home / ".claude/settings.json").read_text())
    out = {"statusLine": settings["statusLine"]["command"]}
    for event, groups in settings["hooks"].items():
        for group in groups:
            for hook in group["hooks"]:
                name = re.findall(r"msd-[a-z-]+\.py", hook["command"])[-1]
                out[f"{event}:{name}"] = hook["command"]
    return out


def bash(command: str, home: Path, cwd: Path, stdin: str = "", **env: str) -> Any:
    tmp = home.parent / "tmp"
    tmp.mkdir(exist_ok=True)
    return subprocess.run(
        ["bash", "-c", command],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=cli_env(home, TMPDIR=str(tmp), **env),
        timeout=30,
    )


def mcp_initialize(home: Path, cwd: Path, config: Path) -> Any:
    server = json.loads(config.read_text())["mcpServers"]["msd"]
    env = cli_env(home)
    env.update(server.get("env", {}))
    return subprocess.run(
        [server["command"], *server["args"]],
        input=json.dumps(INITIALIZE) + "\n",
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=30,
    )


class _Latest(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = json.dumps({"info": {"version": "99.0.0"}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.fixture()
def update_url() -> Iterator[str]:
    """A loopback stand-in for PyPI, so the update worker runs for real without the network."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Latest)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/pypi/msd-install/json"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("name", list(ODD_HOMES.values()), ids=list(ODD_HOMES))
def test_every_installed_hook_runs_through_bash_from_an_odd_home(
    tmp_path: Path, name: str, update_url: str
) -> None:
    home = odd_home(tmp_path, name)
    project = tmp_path / "project dir"
    build(project, {".env": "SECRET=1\n", "src/app.py": "x = 1\n"})
    before = snapshot(home)
    assert cli(GLOBAL, home).returncode == 0
    commands = hook_commands(home)
    assert len(commands) == 11
    env = {"CLAUDE_PROJECT_DIR": str(project), "MSD_UPDATE_URL": update_url}
    read_env = json.dumps(
        {
            "session_id": "s1",
            "cwd": str(project),
            "hook_event_name": "PreToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": str(project / ".env")},
        }
    )
    for label, command in commands.items():
        proc = bash(command, home, project, read_env, **env)
        assert "Traceback" not in proc.stderr, (label, proc.stderr)
        assert "No such file" not in proc.stderr, (label, proc.stderr)
        if label == "PreToolUse:msd-secret-read-guard.py":
            assert proc.returncode == 2, (label, proc.stderr)  # blocked: the hook really ran
            assert ".env" in proc.stderr
        else:
            assert proc.returncode == 0, (label, proc.returncode, proc.stderr)
    # the SessionStart hook started the detached worker, which wrote the cache in our root
    cache = home / ".claude/msd-core/cache/msd-update-check.json"
    deadline = time.monotonic() + 15
    while not cache.is_file() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert json.loads(cache.read_text())["latest"] == "99.0.0"
    start = json.dumps({"session_id": "s1", "cwd": str(project), "hook_event_name": "SessionStart"})
    proc = bash(commands["SessionStart:msd-check-update.py"], home, project, start, **env)
    assert proc.returncode == 0 and "99.0.0" in proc.stdout, proc.stdout
    assert cli(UNINSTALL, home).returncode == 0
    assert snapshot(home) == before


@pytest.mark.parametrize("name", list(ODD_HOMES.values()), ids=list(ODD_HOMES))
def test_workflow_msd_tools_lines_run_as_written_from_an_odd_home(
    tmp_path: Path, name: str
) -> None:
    home = odd_home(tmp_path, name)
    project = tmp_path / "my project"
    project.mkdir()
    before = snapshot(home)
    assert cli(GLOBAL, home).returncode == 0
    workflows = home / ".claude/msd-core/workflows"
    lines = {
        line.strip()
        for f in workflows.glob("*.md")
        for line in f.read_text().splitlines()
        if line.strip().startswith("python3 ") and "msd-tools" in line
    }
    fill = next(x for x in lines if "template fill project.md" in x)
    analyze = next(x for x in lines if x.endswith("msd-tools roadmap analyze"))
    assert fill.startswith("python3 ~/.claude/msd-core/bin/msd-tools ")
    proc = bash(fill.replace('"<name>"', '"Demo App"'), home, project)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["path"] == ".planning/PROJECT.md"
    assert "Demo App" in (project / ".planning/PROJECT.md").read_text()
    proc = bash(analyze, home, project)
    assert proc.returncode == 1 and json.loads(proc.stdout)["error"]["code"] == "no_roadmap"
    assert cli(UNINSTALL, home).returncode == 0
    assert snapshot(home) == before


@pytest.mark.parametrize(
    "name",
    [ODD_HOMES["unicode"], ODD_HOMES["trailing-newline"], 'O\'Neil "x" `y` spaced'],
    ids=["unicode", "trailing-newline", "quotes"],
)
def test_mcp_server_from_claude_json_answers_initialize(tmp_path: Path, name: str) -> None:
    home = odd_home(tmp_path, name)
    project = tmp_path / "projeto ação"
    project.mkdir()
    before = snapshot(home)
    assert cli(GLOBAL, home).returncode == 0
    proc = mcp_initialize(home, project, home / ".claude.json")
    assert proc.returncode == 0, proc.stderr
    reply = json.loads(proc.stdout.splitlines()[0])
    assert reply["id"] == 1 and reply["result"]["serverInfo"]["name"] == "msd-core"
    assert cli(UNINSTALL, home).returncode == 0
    assert snapshot(home) == before


def test_local_install_hooks_and_mcp_run_from_a_project_path_with_spaces(tmp_path: Path) -> None:
    home = odd_home(tmp_path, "home")
    project = tmp_path / "Projects/O'Neil & Co (2024) ☃"
    build(project, {".env": "K=1\n", "README.md": "x\n"})
    before = snapshot(project)
    assert cli(["--claude", "--local", "--yes"], home, project).returncode == 0
    settings = json.loads((project / ".claude/settings.json").read_text())
    guard = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    assert "$CLAUDE_PROJECT_DIR" in guard
    event = {
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": "Read",
        "tool_input": {"file_path": str(project / ".env")},
    }
    proc = bash(guard, home, project, json.dumps(event), CLAUDE_PROJECT_DIR=str(project))
    assert proc.returncode == 2, proc.stderr
    proc = mcp_initialize(home, project, project / ".mcp.json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[0])["result"]["serverInfo"]["name"] == "msd-core"
    assert cli(["--claude", "--local", "--yes", "--uninstall"], home, project).returncode == 0
    assert snapshot(project) == before


def test_mcp_server_starts_in_a_project_whose_path_holds_a_dollar(tmp_path: Path) -> None:
    home = odd_home(tmp_path, "home")
    project = tmp_path / "$work"
    project.mkdir()
    assert cli(GLOBAL, home).returncode == 0
    proc = mcp_initialize(home, project, home / ".claude.json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[0])["id"] == 1


def test_mcp_server_starts_for_a_home_whose_path_holds_a_dollar(tmp_path: Path) -> None:
    home = odd_home(tmp_path, "me $USER")
    project = tmp_path / "project"
    project.mkdir()
    assert cli(GLOBAL, home).returncode == 0
    proc = mcp_initialize(home, project, home / ".claude.json")
    assert proc.returncode == 0, proc.stderr


def test_a_config_dir_with_a_space_outside_home_is_refused_cleanly(tmp_path: Path) -> None:
    """Lead's decision: payload shell lines name the root unquoted; a root outside the home
    whose path a shell would split is refused up front (exit 2) instead of half-working."""
    home = odd_home(tmp_path, "home")
    config = tmp_path / "Shared Config/claude"
    before = snapshot(home)
    proc = cli(GLOBAL, home, CLAUDE_CONFIG_DIR=str(config))
    assert proc.returncode == 2
    assert "would break them" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert snapshot(home) == before and not (tmp_path / "Shared Config").exists()


def test_local_in_a_symlinked_home_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real-home"
    real.mkdir()
    home = tmp_path / "home"
    home.symlink_to(real)
    assert cli(GLOBAL, home).returncode == 0
    before = snapshot(real)
    proc = cli(["--claude", "--local", "--yes"], home, home)  # cd ~ (getcwd gives the real path)
    assert proc.returncode == 2, proc.stdout
    assert snapshot(real) == before
