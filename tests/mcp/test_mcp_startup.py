"""Fail-closed startup (workspace root, audit path) and the installed launcher layout."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SERVER
from mcp_raw import RawServer

import msd_install.msdcore as msdcore_pkg
from msd_install.msdcore.mcp.config import ConfigError, workspace_root

LAUNCHER = (
    Path(msdcore_pkg.__file__).parent.parent / "payload" / "data" / "core" / "bin" / "msd-mcp"
)
REAL_PYTHON = os.path.realpath(sys.executable)  # the base interpreter, as the installer registers


def start(
    env: dict[str, str], cwd: Path, extra: list[str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        SERVER + (extra or []),
        env=env,
        cwd=cwd,
        input="",
        capture_output=True,
        text=True,
        timeout=20,
    )


def bare_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MSD_")}
    env["HOME"] = str(tmp_path / "home")
    (tmp_path / "home").mkdir(exist_ok=True)
    return env


@pytest.mark.parametrize(
    "value",
    [
        "relative/dir",
        "${WORKSPACE_FOLDER}",
        "$PROJECT_DIR/x",
        "%USERPROFILE%",
        "",
        "/",
        "/no/such/dir",
        "FILE",
    ],
)
def test_bad_workspace_refuses_to_start_with_one_line(tmp_path: Path, value: str) -> None:
    env = bare_env(tmp_path)
    (tmp_path / "file").write_text("not a dir")
    env["MSD_WORKSPACE"] = str(tmp_path / "file") if value == "FILE" else value
    done = start(env, tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("msd-mcp: refusing to start:")


def test_nul_in_the_root_is_refused() -> None:
    with pytest.raises(ConfigError):
        workspace_root({"MSD_WORKSPACE": "/tmp/a\x00b"}, "/", None)


def test_unset_workspace_uses_cwd_but_never_home_or_filesystem_root(
    tmp_path: Path, ws: Path
) -> None:
    env = bare_env(tmp_path)
    assert start(env, tmp_path / "home").returncode == 2
    assert "home directory" in start(env, tmp_path / "home").stderr
    assert start(env, Path("/")).returncode == 2
    server = RawServer(SERVER, env, tmp_path / "err.log", cwd=ws)
    server.initialize()
    info = server.call("workspace_info", {})["structuredContent"]
    assert info == {"root": str(ws), "project_path": ".", "has_planning": False}
    assert server.close() == 0


def test_symlinked_root_is_resolved_once(tmp_path: Path, ws: Path) -> None:
    (tmp_path / "link").symlink_to(ws)
    env = {**bare_env(tmp_path), "MSD_WORKSPACE": str(tmp_path / "link")}
    server = RawServer(SERVER, env, tmp_path / "err.log")
    server.initialize()
    assert server.call("workspace_info", {})["structuredContent"]["root"] == str(ws)
    assert server.close() == 0


@pytest.mark.parametrize("where", ["inside", "via_link", "relative", "unexpanded"])
def test_audit_log_inside_the_workspace_is_refused(tmp_path: Path, ws: Path, where: str) -> None:
    (tmp_path / "alias").symlink_to(ws)
    value = {
        "inside": str(ws / "audit.jsonl"),
        "via_link": str(tmp_path / "alias" / "logs" / "audit.jsonl"),
        "relative": "audit.jsonl",
        "unexpanded": "${XDG_STATE_HOME}/audit.jsonl",
    }[where]
    env = {**bare_env(tmp_path), "MSD_WORKSPACE": str(ws), "MSD_AUDIT_LOG": value}
    done = start(env, tmp_path)
    assert done.returncode == 2 and "MSD_AUDIT_LOG" in done.stderr
    assert not (ws / "audit.jsonl").exists()


def test_unknown_arguments_print_usage(tmp_path: Path, ws: Path) -> None:
    env = {**bare_env(tmp_path), "MSD_WORKSPACE": str(ws)}
    done = start(env, tmp_path, ["--bogus"])
    assert done.returncode == 2 and "usage: msd-mcp" in done.stderr and done.stdout == ""


def test_unset_audit_log_goes_to_the_users_state_dir(tmp_path: Path, ws: Path) -> None:
    """A project install registers no MSD_AUDIT_LOG: the log of whoever runs the server."""
    env = {k: v for k, v in bare_env(tmp_path).items() if k != "XDG_STATE_HOME"}
    server = RawServer(SERVER, {**env, "MSD_WORKSPACE": str(ws)}, tmp_path / "err.log")
    server.initialize()
    assert server.call("write_file", {"path": "n.txt", "content": "x"})["isError"] is False
    assert server.close() == 0
    log = tmp_path / "home" / ".local" / "state" / "msd" / "audit.jsonl"
    assert "n.txt" in log.read_text(encoding="utf-8")
    assert "not be audited" not in server.stderr()


def test_xdg_state_home_is_followed_when_absolute(tmp_path: Path, ws: Path) -> None:
    state = tmp_path / "state"
    env = {**bare_env(tmp_path), "MSD_WORKSPACE": str(ws), "XDG_STATE_HOME": str(state)}
    server = RawServer(SERVER, env, tmp_path / "err.log")
    server.initialize()
    assert server.call("write_file", {"path": "n.txt", "content": "x"})["isError"] is False
    assert server.close() == 0
    assert "n.txt" in (state / "msd" / "audit.jsonl").read_text(encoding="utf-8")


def test_no_audit_log_and_no_home_is_a_warning_and_mutations_still_work(
    tmp_path: Path, ws: Path
) -> None:
    env = {k: v for k, v in bare_env(tmp_path).items() if k != "HOME"}
    server = RawServer(SERVER, {**env, "MSD_WORKSPACE": str(ws)}, tmp_path / "err.log")
    server.initialize()
    assert server.call("write_file", {"path": "n.txt", "content": "x"})["isError"] is False
    assert server.close() == 0
    assert server.stderr().count("file changes will not be audited") == 1


@pytest.fixture
def installed(tmp_path: Path) -> Path:
    """A runtime root laid out as the installer does: msd-core/bin + msd-core/lib/msdcore."""
    core = tmp_path / "runtime" / "msd-core"
    (core / "bin").mkdir(parents=True)
    shutil.copy2(LAUNCHER, core / "bin" / "msd-mcp")
    shutil.copytree(
        Path(msdcore_pkg.__file__).parent,
        core / "lib" / "msdcore",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    return core / "bin" / "msd-mcp"


def test_installed_launcher_serves_with_isolated_interpreter(
    installed: Path, server_env: dict[str, str], tmp_path: Path, audit_path: Path
) -> None:
    cmd = [REAL_PYTHON, "-I", "-S", str(installed)]
    server = RawServer(cmd, server_env, tmp_path / "err.log")
    assert server.initialize()["result"]["serverInfo"]["name"] == "msd-core"
    assert len(server.request("tools/list")["result"]["tools"]) >= 10
    assert (
        server.call("write_file", {"path": "via-launcher.txt", "content": "hi\n"})["isError"]
        is False
    )
    assert server.close() == 0
    verify = subprocess.run(
        [*cmd[:-1], str(installed), "verify-audit", str(audit_path)],
        capture_output=True,
        text=True,
        timeout=20,
    )
    # one intent record before the write, one outcome record after the call
    assert (verify.returncode, verify.stdout) == (0, "ok: 2 records, chain intact\n")


def test_installed_launcher_guards_stdout_against_rogue_tools(
    installed: Path, server_env: dict[str, str], tmp_path: Path
) -> None:
    env = {**server_env, "MSD_MCP_TEST_TOOLS": str(Path(__file__).with_name("rogue_tools.py"))}
    server = RawServer([REAL_PYTHON, "-I", "-S", str(installed)], env, tmp_path / "err.log")
    server.initialize()
    assert server.call("rogue_output", {})["structuredContent"] == {"stolen_bytes": 0}
    assert server.request("ping")["result"] == {}
    assert server.close() == 0
    assert "ROGUE import-time print" in server.stderr()


def test_installed_launcher_refuses_bad_workspace(installed: Path, tmp_path: Path) -> None:
    env = {**bare_env(tmp_path), "MSD_WORKSPACE": "${workspaceFolder}"}
    done = subprocess.run(
        [REAL_PYTHON, "-I", "-S", str(installed)],
        env=env,
        input="",
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert done.returncode == 2 and done.stdout == "" and "unexpanded" in done.stderr


def test_console_script_serves(server_env: dict[str, str], tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("msd-mcp")
    if not script.exists():
        pytest.skip("msd-mcp console script not installed in this environment")
    server = RawServer([str(script)], server_env, tmp_path / "err.log")
    assert server.initialize()["result"]["protocolVersion"] == "2025-11-25"
    assert server.close() == 0


def test_log_file_and_level(server_env: dict[str, str], tmp_path: Path) -> None:
    logfile = tmp_path / "logs" / "mcp.log"
    logfile.parent.mkdir()
    env = {**server_env, "MSD_MCP_LOG": str(logfile), "MSD_MCP_LOG_LEVEL": "debug"}
    server = RawServer(SERVER, env, tmp_path / "err.log")
    server.initialize()
    assert server.call("read_text_file", {"path": "../nope"})["isError"] is True
    assert server.close() == 0
    text = logfile.read_text()
    assert "DEBUG serving" in text and "WARNING read_text_file refused" in text
    assert "WARNING read_text_file refused" in server.stderr()
    bad = start({**server_env, "MSD_MCP_LOG_LEVEL": "chatty"}, tmp_path)
    assert bad.returncode == 2 and "MSD_MCP_LOG_LEVEL" in bad.stderr


def test_broken_test_tools_fail_tool_requests_not_the_handshake(
    server_env: dict[str, str], tmp_path: Path
) -> None:
    plugin = tmp_path / "plugin.py"
    plugin.write_text("TOOLS = 'not a list'\n")
    server = RawServer(
        SERVER, {**server_env, "MSD_MCP_TEST_TOOLS": str(plugin)}, tmp_path / "e.log"
    )
    assert "result" in server.initialize()
    reply = server.request("tools/list")
    assert reply["error"]["code"] == -32603 and "TOOLS" in reply["error"]["message"]
    assert server.close() == 0
