"""Every hook command the Gemini CLI and Qwen Code installs registers, run as that runtime runs
it: through bash, with its stdin shape, its project-dir variable (Gemini substitutes
``$GEMINI_PROJECT_DIR`` in the command text with a shell-quoted path; Qwen exports
``$QWEN_PROJECT_DIR``), and answered in its format: Gemini a JSON ``decision``, Qwen Claude's
exit 2 + stderr. The project path has a space in it on purpose."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from helpers import build, run_cli
from msd_install.installer.jsonparse import parse

FOLDER = {"gemini": ".gemini", "qwen": ".qwen"}
# a tool call per hook kind, as each CLI passes it (tool names and argument names)
TOOL_CALLS = {
    "read_file": {"file_path": "README.md"},
    "read_many_files": {"include": ["README.md"]},
    "grep_search": {"pattern": "x", "dir_path": "."},
    "run_shell_command": {"command": "git status"},
    "write_file": {"file_path": ".planning/notes.md", "content": "hello\n"},
    "replace": {"file_path": "README.md", "old_string": "a", "new_string": "b"},
    "edit": {"file_path": "README.md", "old_string": "a", "new_string": "b"},
}


def _installed(tmp_path: Path, name: str, scope: str) -> tuple[Path, Path, dict[str, Any]]:
    home, project = tmp_path / "home", tmp_path / "my project"
    home.mkdir()
    build(
        project,
        {
            "README.md": "a\n",
            ".env": "TOKEN=1\n",
            ".planning/STATE.md": "# State\n\nPhase: 1 of 2 (Setup)\nStatus: planning\n",
            ".planning/config.json": json.dumps(
                {"hooks": {"workflow_guard": True, "validate_commit": True}}
            ),
        },
    )
    proc = run_cli([f"--{name}", scope, "--yes"], home, cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    root = (home if scope == "--global" else project) / FOLDER[name]
    settings = parse((root / "settings.json").read_text(), jsonc=True).value
    return home, project, settings


def _event(name: str, event: str, tool: str | None, project: Path) -> dict[str, Any]:
    data: dict[str, Any] = {
        "session_id": "0c1d2e3f-4a5b-6c7d-8e9f-0a1b2c3d4e5f",
        "transcript_path": str(project / "t.jsonl"),
        "cwd": str(project),
        "hook_event_name": event,
    }
    if event == "SessionStart":
        return {**data, "source": "startup"}
    tool = tool or "read_file"  # a hook without a matcher sees every tool
    data["tool_name"] = tool
    data["tool_input"] = TOOL_CALLS[tool]
    if name == "qwen":
        data.update(permission_mode="default", tool_use_id="call_1")
    else:
        data["timestamp"] = "2026-11-30T12:00:00.000Z"
    if event in ("AfterTool", "PostToolUse"):
        data["tool_response"] = {"llmContent": "a\n", "returnDisplay": "a"}
    return data


def _run(name: str, command: str, event: dict[str, Any], project: Path) -> Any:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(project.parent / "home")}
    env["TMPDIR"] = str(project.parent)
    if name == "gemini":
        # GEMINI's hook runner: text substitution with the shell-quoted cwd, and exports
        command = command.replace("$GEMINI_PROJECT_DIR", shlex.quote(str(project)))
        env.update(GEMINI_PROJECT_DIR=str(project), CLAUDE_PROJECT_DIR=str(project))
    else:
        env.update(QWEN_PROJECT_DIR=str(project), CLAUDE_PROJECT_DIR=str(project))
    return subprocess.run(
        ["bash", "-c", command],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        cwd=project,
        env=env,
        timeout=30,
    )


def _registered(settings: dict[str, Any]) -> list[tuple[str, str | None, str]]:
    out = []
    for event, groups in settings["hooks"].items():
        for group in groups:
            matcher = group.get("matcher")
            tools = (
                re.fullmatch(r"\^\((.*)\)\$", matcher).group(1).split("|") if matcher else [None]
            )
            for hook in group["hooks"]:
                out += [(event, tool, hook["command"]) for tool in tools]
    return out


@pytest.mark.parametrize("scope", ["--global", "--local"])
@pytest.mark.parametrize("name", ["gemini", "qwen"])
def test_every_registered_hook_runs_and_answers_in_the_runtimes_format(
    tmp_path: Path, name: str, scope: str
) -> None:
    _home, project, settings = _installed(tmp_path, name, scope)
    calls = _registered(settings)
    assert len({c for _e, _t, c in calls}) >= 8
    for event, tool, command in calls:
        proc = _run(name, command, _event(name, event, tool, project), project)
        where = f"{event} {tool} {command}"
        if proc.returncode == 2:  # a block, in Claude's protocol: Qwen only
            assert name == "qwen" and proc.stderr.strip(), where
            continue
        assert proc.returncode == 0, (where, proc.stderr)
        if proc.stdout.strip():
            answer = json.loads(proc.stdout)
            assert isinstance(answer, dict), where
            if name == "gemini" and "hookSpecificOutput" in answer:
                assert answer["hookSpecificOutput"]["hookEventName"] == event, where
    if name == "qwen":  # the status line, with qwen's own stdin (startInteractiveUI)
        status = {
            "session_id": "s1",
            "version": "0.24.4",
            "model": {"display_name": "qwen3-coder"},
            "context_window": {
                "context_window_size": 1000,
                "used_percentage": 42.0,
                "remaining_percentage": 58.0,
                "current_usage": 420,
            },
            "workspace": {"current_dir": str(project)},
        }
        proc = _run(name, settings["ui"]["statusLine"]["command"], status, project)
        assert proc.returncode == 0 and "qwen3-coder" in proc.stdout, proc.stderr


@pytest.mark.parametrize("scope", ["--global", "--local"])
@pytest.mark.parametrize("name", ["gemini", "qwen"])
def test_the_secret_guard_blocks_in_the_runtimes_format(
    tmp_path: Path, name: str, scope: str
) -> None:
    _home, project, settings = _installed(tmp_path, name, scope)
    event = "BeforeTool" if name == "gemini" else "PreToolUse"
    (command,) = [c for e, t, c in _registered(settings) if "secret-read-guard" in c and
                  t == "read_file" and e == event]  # fmt: skip
    data = _event(name, event, "read_file", project)
    data["tool_input"] = {"file_path": str(project / ".env")}
    proc = _run(name, command, data, project)
    if name == "gemini":
        assert proc.returncode == 0, proc.stderr
        answer = json.loads(proc.stdout)
        assert answer["decision"] == "deny" and ".env" in answer["reason"]
    else:
        assert proc.returncode == 2 and ".env" in proc.stderr and proc.stdout == ""
    data["tool_input"] = {"file_path": str(project / "README.md")}
    allowed = _run(name, command, data, project)
    assert allowed.returncode == 0 and allowed.stdout == ""
