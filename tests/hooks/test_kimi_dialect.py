"""The blocking hooks under Kimi Code CLI: its stdin, tool and argument names, its answers.

Kimi 2.1.0 sends Claude's snake_case fields (``hook_event_name``, ``session_id``, ``cwd``,
``tool_name``, ``tool_input``, plus ``client_type``, ``session_title``, ``tool_call_id``), names
its tools as Claude does (``Read``, ``Grep``, ``Bash``...) with its own argument names
(``Read``/``Grep``: ``path``; ``Bash``: ``command`` and an optional ``cwd`` of its own), runs
the hook command with a shell in the session's directory, and blocks on exit 2 with the
stderr text as the reason. The event below is the one Kimi sent to a recording hook in
tests/e2e/test_kimi_cli.py's setup (only the session id and paths differ).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hookkit import RunHook, base_env

KIMI = ("--dialect", "kimi")
GUARD = "msd-secret-read-guard.py"


def kimi_event(cwd: Path, tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {
        "hook_event_name": "PreToolUse",
        "session_id": "session_781edc00-6d70-41f5-a49e-96df9a5283a8",
        "cwd": str(cwd),
        "client_type": "kimi_code_cli",
        "session_title": "TRIGGER",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_call_id": "call_stub_1",
    }


@pytest.fixture
def project(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    (proj / "app" / "conf").mkdir(parents=True)
    (proj / "app" / "conf" / ".env").write_text("TOKEN=1\n")
    (proj / ".env.example").write_text("TOKEN=\n")
    (proj / "docs").mkdir()
    (proj / "docs" / "notes.md").write_text("hello\n")
    return proj


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("Read", {"path": "app/conf/.env"}),
        ("Read", {"path": "app/conf/.env", "line_offset": 1, "n_lines": 5}),
        ("Grep", {"pattern": "TOKEN", "path": "app/conf/.env"}),
        ("Grep", {"pattern": "TOKEN", "path": "app", "glob": ".env*"}),
        ("Bash", {"command": "cat app/conf/.env"}),
        ("Bash", {"command": "cat .env", "cwd": "app/conf"}),
    ],
)
def test_secret_guard_blocks_kimi_reads_with_exit_2(
    run_hook: RunHook, project: Path, tool: str, args: dict[str, Any]
) -> None:
    result = run_hook(GUARD, kimi_event(project, tool, args), args=KIMI)
    assert result.code == 2 and result.stdout == ""
    assert result.stderr.startswith("msd-secret-read-guard: reading ")


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("Read", {"path": ".env.example"}),
        ("Read", {"path": "docs/notes.md"}),
        ("Grep", {"pattern": "hello", "path": "docs"}),
        ("Bash", {"command": "grep -r hello .", "cwd": "docs"}),
        ("Bash", {"command": "ls -la", "cwd": "app/conf"}),
    ],
)
def test_secret_guard_lets_other_kimi_calls_through(
    run_hook: RunHook, project: Path, tool: str, args: dict[str, Any]
) -> None:
    result = run_hook(GUARD, kimi_event(project, tool, args), args=KIMI)
    assert (result.code, result.stdout, result.stderr) == (0, "", "")


@pytest.mark.parametrize("where", ["relative", "absolute", "tilde"])
def test_a_bash_call_is_judged_where_kimi_runs_it(
    run_hook: RunHook, project: Path, where: str
) -> None:
    """``grep -r`` reads what is in its directory: Kimi's Bash ``cwd``, not the session's."""
    folder = {
        "relative": "app",
        "absolute": str(project / "app"),
        "tilde": "~/app",
    }[where]
    event = kimi_event(project / "docs", "Bash", {"command": "grep -r TOKEN .", "cwd": folder})
    if where == "relative":
        event["cwd"] = str(project)
    env = {"HOME": str(project)}
    blocked = run_hook(GUARD, event, args=KIMI, env=env)
    assert blocked.code == 2 and "reading ./conf/.env" in blocked.stderr
    # read as Claude's input too, a tool's own working directory is where the command runs
    if where != "relative":
        assert run_hook(GUARD, event, env=env).code == 2


def test_a_call_without_its_own_cwd_is_judged_in_the_session_folder(
    run_hook: RunHook, project: Path
) -> None:
    event = kimi_event(project / "app", "Bash", {"command": "grep -r TOKEN ."})
    assert run_hook(GUARD, event, args=KIMI).code == 2
    quiet = kimi_event(project / "docs", "Bash", {"command": "grep -r TOKEN .", "cwd": ""})
    assert run_hook(GUARD, quiet, args=KIMI).code == 0


def test_validate_commit_blocks_in_the_folder_kimi_commits_in(
    run_hook: RunHook, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    (repo / ".planning").mkdir(parents=True)
    (repo / ".planning" / "config.json").write_text('{"hooks": {"validate_commit": true}}')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    call = {"command": 'git commit -m "update stuff"', "cwd": str(repo)}
    result = run_hook("msd-validate-commit.py", kimi_event(elsewhere, "Bash", call), args=KIMI)
    assert result.code == 2 and result.stderr.startswith("msd-validate-commit: ")
    good = {**call, "command": 'git commit -m "feat: add login"'}
    assert (
        run_hook("msd-validate-commit.py", kimi_event(elsewhere, "Bash", good), args=KIMI).code == 0
    )


def test_the_registered_command_runs_as_kimi_runs_it(
    hook_tmp: Path, runtime_root: Path, project: Path
) -> None:
    """Kimi spawns the ``command`` string with ``shell: true`` in the session's cwd and writes
    the event to its stdin: the exact line msd registers, through ``/bin/sh -c``."""
    import sys

    from msd_install.installer.context import GLOBAL, Context
    from msd_install.payload import load
    from msd_install.runtimes import adapter

    kimi = adapter("kimi")
    assert kimi is not None
    ctx = Context(
        home=runtime_root.parent,
        cwd=project,
        scope=GLOBAL,
        config_dir=runtime_root,
        interpreter=Path(sys.executable),
    )
    commands = [e.value["command"] for e in kimi.plan(ctx, load()).entries if e.path == ("hooks",)]
    assert len(commands) == 2
    for command in commands:
        event = kimi_event(project, "Bash", {"command": "cat app/conf/.env"})
        proc = subprocess.run(
            ["/bin/sh", "-c", command],
            input=json.dumps(event),
            capture_output=True,
            text=True,
            timeout=20,
            cwd=project,
            env=base_env(hook_tmp),
        )
        if "secret-read-guard" in command:
            assert proc.returncode == 2 and "reading app/conf/.env" in proc.stderr
        else:  # validate-commit: no commit here, nothing to say
            assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
