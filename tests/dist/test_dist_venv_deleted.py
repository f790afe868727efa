"""Delete the venv: msd-install from the wheel in a throw-away venv installs Claude (settings.json
hooks, ~/.claude.json server) and Codex (hooks.json, config.toml server), the venv is removed,
and everything the runtimes were told to run still runs from the command they were given:
each hook with a representative stdin of its event (the secret guard still blocks a read of
.env), the status line, and the MCP server (``initialize`` + ``tools/list``). Then a fresh venv
from the same wheel uninstalls, and the home is byte for byte what it was."""

from __future__ import annotations

import json
import shlex
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import tomlkit
from distkit import (
    USER_FILES,
    VENV_BY_PIP,
    VENV_BY_UV,
    WHEEL,
    Built,
    mentions,
    run,
    settings_hooks,
    tool_env,
    venv_from_wheel,
)

from e2e.e2e_clis import command_line, mcp_exchange
from helpers import build, snapshot
from hooks.hookkit import base_env, tool_event
from msd_install.payload import load

RUNTIMES = ("claude", "codex")
STATE = "---\nphase: 2\n---\n# State\n\n## Current Position\n\nPhase 2 of 4 (API): plan 1 of 3\n"
PATCH = "*** Begin Patch\n*** Update File: src/app.py\n@@\n-old\n+new\n*** End Patch\n"
TOOL_INPUT: dict[str, dict[str, Any]] = {
    "Read": {"file_path": ".env"},  # the secret guard must block this
    "Bash": {"command": "cat .env"},  # and this
    "Write": {"file_path": "src/app.py", "content": "print('hello')\n"},
    "apply_patch": {"command": PATCH},
}


def closed_port_url() -> str:
    """An update index that refuses connections: the update check stays on this machine."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/pypi/msd-install/json"


def stdin_for(runtime: str, event: str, matcher: str, project: Path) -> dict[str, Any]:
    """What the runtime writes on a hook's stdin for this registration: the event, and for a
    tool event the first tool its matcher names (Bash where it names none)."""
    codex = {"turn_id": "turn-1", "model": "gpt-5", "tool_use_id": "call_1"}
    extra = codex if runtime == "codex" else {}
    if event == "SessionStart":
        return {**tool_event(event, "", {}, project, source="startup", **extra)}
    tool = matcher.split("|")[0] or "Bash"
    tool_input = {
        k: str(project / v) if k == "file_path" else v for k, v in TOOL_INPUT[tool].items()
    }
    if event == "PostToolUse":
        extra = {**extra, "tool_response": {"success": True}}
    return tool_event(event, tool, tool_input, project, **extra)


def run_command(command: str, stdin: dict[str, Any], env: dict[str, str], cwd: Path) -> Any:
    """A registered command as a runtime runs it: through the shell, JSON on stdin."""
    return subprocess.run(
        command,
        shell=True,
        input=json.dumps(stdin),
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=30,
    )


def registrations(home: Path) -> dict[str, dict[str, Any]]:
    """The MCP server entry of each runtime, read back from the file the runtime reads."""
    claude = json.loads((home / ".claude.json").read_text())["mcpServers"]["msd"]
    codex = tomlkit.parse((home / ".codex/config.toml").read_text()).unwrap()
    return {"claude": claude, "codex": codex["mcp_servers"]["msd"]}


def test_hooks_and_mcp_server_run_after_the_venv_is_deleted(
    built: Built, tools: Path, tmp_path: Path
) -> None:
    home, project, hook_tmp = tmp_path / "home", tmp_path / "project", tmp_path / "hook-tmp"
    build(home, USER_FILES)
    build(project, {".git/HEAD": "ref: refs/heads/main\n", ".env": "API_KEY=s3cret\n"})
    build(project, {".planning/STATE.md": STATE, "src/app.py": "old\n"})
    hook_tmp.mkdir()
    before = snapshot(home)
    env = tool_env(tools, home)
    checkout = tmp_path / "checkout"
    (checkout / "dist").mkdir(parents=True)
    shutil.copy(built.wheel, checkout / "dist" / WHEEL)
    venv = venv_from_wheel(checkout, env, VENV_BY_PIP).parent
    for runtime in RUNTIMES:
        run(["msd-venv/bin/msd-install", f"--{runtime}", "--global", "--yes"], env, checkout)
    assert mentions(home, str(venv)) == []
    shutil.rmtree(venv)  # rm -rf msd-venv

    runtime_env = {
        **base_env(hook_tmp),
        "PATH": "/usr/bin:/bin",  # what a runtime started from a desktop may have
        "HOME": str(home),
        "MSD_UPDATE_URL": closed_port_url(),
    }
    claude_env = {**runtime_env, "CLAUDE_PROJECT_DIR": str(project)}
    settings = json.loads((home / ".claude/settings.json").read_text())
    status = run_command(
        settings["statusLine"]["command"],
        {
            **tool_event("Status", "", {}, project),
            "model": {"display_name": "Opus"},
            "workspace": {"current_dir": str(project)},
            "context_window": {"remaining_percentage": 22},
        },
        claude_env,
        project,
    )
    assert (status.returncode, status.stderr) == (0, "") and "Opus" in status.stdout
    ran: dict[str, list[str]] = {}
    for runtime, root, table in (
        ("claude", home / ".claude", settings),
        ("codex", home / ".codex", json.loads((home / ".codex/hooks.json").read_text())),
    ):
        for event, matcher, command in settings_hooks(table):
            if command == "echo mine":
                continue
            script = Path(shlex.split(command)[3])
            assert script.parent == root / "hooks", command
            stdin = stdin_for(runtime, event, matcher, project)
            proc = run_command(
                command, stdin, claude_env if runtime == "claude" else runtime_env, project
            )
            ran.setdefault(runtime, []).append(script.name)
            if script.name == "msd-secret-read-guard.py":
                assert (proc.returncode, proc.stdout) == (2, ""), (runtime, proc.stderr)
                assert proc.stderr.startswith("msd-secret-read-guard: "), proc.stderr
                assert ".env" in proc.stderr
                continue
            assert (proc.returncode, proc.stderr) == (0, ""), (runtime, command, proc.stderr)
            answer = json.loads(proc.stdout) if proc.stdout else {}
            if script.name == "msd-session-state.py":
                assert "Phase 2 of 4" in answer["hookSpecificOutput"]["additionalContext"]
            if script.name == "msd-context-monitor.py" and runtime == "claude":
                assert "CRITICAL" in answer["hookSpecificOutput"]["additionalContext"]
    # every hook the install put in a runtime's hooks folder to be registered was registered
    # and ran (Codex gets no hook that matches none of its tools)
    registrable = {h.script for h in load().hooks if h.event not in (None, "statusLine")}
    for runtime in RUNTIMES:
        installed = {p.name for p in (home / f".{runtime}/hooks").glob("msd-*.py")}
        assert sorted(ran[runtime]) == sorted(installed & registrable), runtime
        assert "msd-secret-read-guard.py" in ran[runtime]

    for runtime, entry in registrations(home).items():
        command, args, server_env = command_line(entry)
        started, tools_list = mcp_exchange(
            command, args, server_env, cwd=project, home=home, requests=[("tools/list", None)]
        )
        assert started["serverInfo"]["name"] == "msd-core", runtime
        names = {tool["name"] for tool in tools_list["tools"]}
        assert {"read_text_file", "workspace_info"} <= names, (runtime, names)

    # the update check each SessionStart started in the background has finished its work
    for runtime in RUNTIMES:
        cache = home / f".{runtime}/msd-core/cache/msd-update-check.json"
        deadline = time.monotonic() + 20
        while not cache.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert json.loads(cache.read_text())["failures"] == 1, runtime

    # a fresh venv, made by uv this time (the first one was pip's)
    venv_from_wheel(checkout, env, VENV_BY_UV)
    for runtime in RUNTIMES:
        uninstall = ["msd-venv/bin/msd-install", f"--{runtime}", "--global", "--uninstall"]
        run([*uninstall, "--yes"], env, checkout)
    assert snapshot(home) == before
