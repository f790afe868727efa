"""A pack's hooks in three languages, registered by the runtimes' own hook machinery and run
exactly as the runtime would run them: the command text from its config file, through a
shell, with the event on stdin."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from packkit import make_pack

from helpers import run_cli

NODE = shutil.which("node")


def _commands(config: Path) -> dict[str, str]:
    """Each acme hook's command in a Claude-shaped hooks config, by script name."""
    doc = json.loads(config.read_text())
    out = {}
    for groups in doc["hooks"].values():
        for group in groups:
            for hook in group["hooks"]:
                for script in ("acme-guard.py", "acme-format.sh", "acme-banner.js"):
                    if script in hook["command"]:
                        out[script] = hook["command"]
    return out


def _run(command: str, event: dict, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", "-c", command],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **env},
        timeout=30,
    )


BAD = {"tool_name": "Bash", "tool_input": {"command": "rm -rf / --no-preserve-root"}}
FINE = {"tool_name": "Bash", "tool_input": {"command": "ls"}}


def _exercise(commands: dict[str, str], cwd: Path, **env: str) -> None:
    assert set(commands) == {"acme-guard.py", "acme-format.sh", "acme-banner.js"}
    refused = _run(commands["acme-guard.py"], BAD, cwd, **env)
    assert (refused.returncode, refused.stderr) == (2, "refused by acme guard\n")
    assert _run(commands["acme-guard.py"], FINE, cwd, **env).returncode == 0
    formatted = _run(commands["acme-format.sh"], {"tool_name": "Edit"}, cwd, **env)
    assert (formatted.returncode, formatted.stderr) == (0, "formatted\n")  # its helper sourced
    if NODE:
        banner = _run(commands["acme-banner.js"], {"hook_event_name": "SessionStart"}, cwd, **env)
        assert banner.returncode == 0, banner.stderr
        out = json.loads(banner.stdout)["hookSpecificOutput"]["additionalContext"]
        assert out == "acme pack loaded"


def test_claude_global_hooks_run(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    pack = make_pack(tmp_path / "acme")
    assert run_cli(["--claude", "--global", "--yes", "--payload", str(pack)], home).returncode == 0
    commands = _commands(home / ".claude/settings.json")
    assert commands["acme-format.sh"].startswith(f'"{shutil.which("bash")}" ')
    if NODE:
        assert commands["acme-banner.js"].startswith(f'"{NODE}" ')
    assert " -I -S " in commands["acme-guard.py"]
    _exercise(commands, home)


def test_claude_local_hooks_are_portable_and_run(tmp_path: Path) -> None:
    home = tmp_path / "home"
    project = home / "proj"
    project.mkdir(parents=True)
    pack = make_pack(tmp_path / "acme")
    proc = run_cli(["--claude", "--local", "--yes", "--payload", str(pack)], home, project)
    assert proc.returncode == 0, proc.stderr
    commands = _commands(project / ".claude/settings.json")
    assert commands["acme-format.sh"] == 'bash "$CLAUDE_PROJECT_DIR"/.claude/hooks/acme-format.sh'
    assert str(home) not in json.dumps(commands)
    _exercise(commands, project, CLAUDE_PROJECT_DIR=str(project))


@pytest.mark.parametrize("runtime", ["codex", "cursor"])
def test_local_hooks_found_from_a_subfolder(tmp_path: Path, runtime: str) -> None:
    """Codex and Cursor set no project variable for hooks: the script is found by walking up
    from the working directory, then run by its own interpreter."""
    home = tmp_path / "home"
    project = home / "proj"
    (project / "src/deep").mkdir(parents=True)
    pack = make_pack(tmp_path / "acme")
    proc = run_cli([f"--{runtime}", "--local", "--yes", "--payload", str(pack)], home, project)
    assert proc.returncode == 0, proc.stderr
    config = project / f".{runtime}" / "hooks.json"
    if runtime == "cursor":
        doc = json.loads(config.read_text())
        commands = {
            s: h["command"]
            for hooks in doc["hooks"].values()
            for h in hooks
            for s in ("acme-guard.py", "acme-format.sh", "acme-banner.js")
            if s in h["command"]
        }
        # Cursor's events: a session start hook is registered, the shell guard too
        assert "acme-guard.py" in commands
        refused = _run(commands["acme-guard.py"], BAD, project / "src/deep")
        assert refused.returncode == 2
        return
    commands = _commands(config)
    assert str(home) not in json.dumps(commands)
    _exercise(commands, project / "src/deep")
