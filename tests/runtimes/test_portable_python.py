"""What a project install's ``python3`` from the PATH may be, and where the server logs.

A committed install runs whatever ``python3`` the team member has: one older than 3.10 gets
one line on stderr, never a traceback, and the secret guard refuses the call (fail closed)
while advisory hooks let it pass. The server, started without ``MSD_AUDIT_LOG`` (a project
install registers none), logs to the state directory of the user running it, computed the
way ``platformdirs`` computes it for the installer.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import platformdirs
import pytest

from helpers import build, run_cli
from msd_install.msdcore.mcp.config import audit_default

ASK = "import os,sys;print(sys.version_info[1],os.path.realpath(sys.executable))"


def _old_pythons() -> list[str]:
    """Real interpreters older than 3.10 (a pyenv shim resolves through its own HOME)."""
    found: list[str] = []
    pyenv = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    candidates = [shutil.which(f"python3.{minor}") for minor in (9, 8, 7)]
    candidates += [str(p) for p in sorted(pyenv.glob("3.[789].*/bin/python3"), reverse=True)]
    for where in candidates:
        if where is None or found:
            continue
        asked = subprocess.run(
            [
                where,
                "-c",
                "import os,sys;print(sys.version_info[1],os.path.realpath(sys.executable))",
            ],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        minor, _, real = asked.stdout.strip().partition(" ")
        if asked.returncode == 0 and minor.isdigit() and 7 <= int(minor) < 10:
            found.append(real)
    return found


OLD = _old_pythons()
needs_old = pytest.mark.skipif(not OLD, reason="no python3 older than 3.10 on this machine")


def test_audit_default_per_platform() -> None:
    home = "/home/jane"
    assert audit_default({}, home, "linux") == "/home/jane/.local/state/msd/audit.jsonl"
    assert (
        audit_default({"XDG_STATE_HOME": "/x/state"}, home, "linux") == "/x/state/msd/audit.jsonl"
    )
    # a relative XDG_STATE_HOME is to be ignored (XDG base directory spec)
    assert audit_default({"XDG_STATE_HOME": "rel"}, home, "linux") == (
        "/home/jane/.local/state/msd/audit.jsonl"
    )
    assert audit_default({}, home, "darwin") == (
        "/home/jane/Library/Application Support/msd/audit.jsonl"
    )
    assert audit_default({}, None, "linux") is None
    assert audit_default({}, "relative", "linux") is None
    assert audit_default({}, home, "win32") is None  # no LOCALAPPDATA: no log, a warning


def test_audit_default_is_where_the_installer_puts_the_state(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    state = platformdirs.user_state_dir("msd", appauthor=False)
    assert audit_default({}, str(tmp_path), "linux") == str(Path(state) / "audit.jsonl")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    home, proj = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    build(proj, {"README.md": "# app\n", ".env": "SECRET=1\n"})
    (proj / ".git").mkdir()
    done = run_cli(["--claude", "--local", "--yes"], home, cwd=proj)
    assert done.returncode == 0, done.stderr
    return proj


def old_path(tmp_path: Path) -> str:
    """A PATH whose ``python3`` is older than 3.10."""
    bin_dir = tmp_path / "old-bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(OLD[0])
    return f"{bin_dir}:/usr/bin:/bin"


def registered(project: Path, script: str) -> str:
    settings = json.loads((project / ".claude/settings.json").read_text())
    for groups in settings["hooks"].values():
        for group in groups:
            for hook in group["hooks"]:
                if f"/{script}.py" in hook["command"]:
                    command: str = hook["command"]
                    return command
    raise AssertionError(script)


def run(command: str, stdin: object, project: Path, path: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", "-c", command],
        input=json.dumps(stdin),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=project,
        env={
            "PATH": path,
            "HOME": str(project.parent / "home"),
            "CLAUDE_PROJECT_DIR": str(project),
        },
    )


def read_of(project: Path, name: str, event: str = "PreToolUse") -> dict[str, object]:
    return {
        "session_id": "s1",
        "hook_event_name": event,
        "cwd": str(project),
        "tool_name": "Read",
        "tool_input": {"file_path": str(project / name)},
    }


@needs_old
def test_the_secret_guard_refuses_under_an_old_python3(tmp_path: Path, project: Path) -> None:
    command = registered(project, "msd-secret-read-guard")
    assert command.startswith("python3 -I -S ")
    ran = run(command, read_of(project, "README.md"), project, old_path(tmp_path))
    assert ran.returncode == 2 and ran.stdout == ""  # Claude: exit 2 blocks, stderr says why
    (line,) = ran.stderr.splitlines()
    assert "msd-secret-read-guard" in line and "needs Python 3.10 or newer" in line


@needs_old
def test_an_advisory_hook_passes_under_an_old_python3(tmp_path: Path, project: Path) -> None:
    command = registered(project, "msd-context-monitor")
    ran = run(command, read_of(project, "README.md", "PostToolUse"), project, old_path(tmp_path))
    assert ran.returncode == 0 and ran.stdout == ""
    (line,) = ran.stderr.splitlines()
    assert "msd-context-monitor" in line and "needs Python 3.10 or newer" in line


@needs_old
def test_the_server_says_so_in_one_line_under_an_old_python3(tmp_path: Path, project: Path) -> None:
    server = json.loads((project / ".mcp.json").read_text())["mcpServers"]["msd"]
    assert server["command"] == "python3" and "env" not in server
    ran = subprocess.run(
        [server["command"], *server["args"]],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        cwd=project,
        env={"PATH": old_path(tmp_path), "HOME": str(tmp_path / "home")},
    )
    assert ran.returncode == 2 and ran.stdout == ""
    (line,) = ran.stderr.splitlines()
    assert line.startswith("msd-mcp: needs Python 3.10 or newer")


def test_doctor_says_when_a_project_install_has_no_python3(tmp_path: Path, project: Path) -> None:
    """A project install's manifest names no interpreter: doctor checks the PATH instead."""
    home = project.parent / "home"
    manifest = json.loads((project / ".claude/msd-file-manifest.json").read_text())
    assert manifest["interpreter"] == ""
    ok = run_cli(["doctor", "--json"], home, cwd=project)
    assert ok.returncode == 0, ok.stdout
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    bad = run_cli(["doctor"], home, cwd=project, PATH=str(empty))
    assert bad.returncode == 1
    assert "python3 is not on your PATH: this project's hooks and MCP server run" in bad.stdout
