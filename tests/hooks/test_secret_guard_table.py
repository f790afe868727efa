"""msd-secret-read-guard on Bash commands, per class, both directions, through the installed
hook exactly as registered: `python -I -S <hook>` with a Claude Code PreToolUse event whose
`cwd` is a project holding .env, .env.local, .env.example, .secrets/, a symlink and a hard
link to .env (cases marked `plain:` run in the same project without the links)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from guard_cases import all_cases, make_project
from hookkit import HOOKS_DIR, base_env, tool_event

HOOK = "msd-secret-read-guard.py"
CASES = all_cases()


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One runtime root with the hooks and two projects, shared: the hook only reads."""
    base = tmp_path_factory.mktemp("guard")
    shutil.copytree(HOOKS_DIR, base / "root" / "hooks")
    (base / "tmp").mkdir()
    return {
        "hook": base / "root" / "hooks" / HOOK,
        "tmp": base / "tmp",
        "proj": make_project(base / "proj"),
        "plain": make_project(base / "plain", links=False),
    }


def run_guard(tree: dict[str, Path], event: object, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-I", "-S", str(tree["hook"]), *args],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        timeout=30,
        env=base_env(tree["tmp"]),
    )


def bash_event(tree: dict[str, Path], case: str) -> dict[str, object]:
    project = tree["plain"] if case.startswith("plain:") else tree["proj"]
    command = case.removeprefix("plain:")
    return tool_event("PreToolUse", "Bash", {"command": command}, project)


@pytest.mark.parametrize(
    ("kind", "command", "blocked"),
    CASES,
    ids=[f"{'block' if b else 'allow'}:{c}" for _, c, b in CASES],
)
def test_guard_case(tree: dict[str, Path], kind: str, command: str, blocked: bool) -> None:
    result = run_guard(tree, bash_event(tree, command))
    if blocked:
        assert (result.returncode, result.stdout) == (2, ""), f"[{kind}] not blocked: {command!r}"
        assert result.stderr.startswith("msd-secret-read-guard: reading ")
        assert "is blocked" in result.stderr and result.stderr.count("\n") == 1
    else:
        assert (result.returncode, result.stdout, result.stderr) == (0, "", ""), (
            f"[{kind}] blocked: {command!r}"
        )


GEMINI = [
    ("cat .env*", True),
    ("cd config && cat settings", True),
    ("find . -name .env | xargs cat", True),
    ("python3 <<'EOF'\nprint(open('.env').read())\nEOF", True),
    ("timeout -s KILL 5 cat .env", True),
    ("grep -rn API_KEY .", True),
    ("python3 -c \"print('add .env to .gitignore')\"", False),
    ("cp .env.example .env", False),
    ("grep -rn foo src/", False),
]


@pytest.mark.parametrize(("command", "blocked"), GEMINI)
def test_gemini_dialect(tree: dict[str, Path], command: str, blocked: bool) -> None:
    event = tool_event("BeforeTool", "run_shell_command", {"command": command}, tree["proj"])
    event["timestamp"] = "2026-01-01T00:00:00Z"
    result = run_guard(tree, event, "--dialect", "gemini")
    assert (result.returncode, result.stderr) == (0, "")
    if blocked:
        answer = json.loads(result.stdout)
        assert answer["decision"] == "deny"
        assert answer["reason"].startswith("msd-secret-read-guard: reading ")
    else:
        assert result.stdout == ""


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("Read", {"file_path": "notes.txt"}),
        ("Read", {"file_path": "config/settings"}),
        ("Read", {"file_path": "vault/token"}),
        ("Grep", {"pattern": "KEY", "path": "notes.txt"}),
    ],
)
def test_links_to_secrets_are_secrets_for_file_tools(
    tree: dict[str, Path], tool: str, tool_input: dict[str, str]
) -> None:
    result = run_guard(tree, tool_event("PreToolUse", tool, tool_input, tree["proj"]))
    assert result.returncode == 2
    assert result.stderr.startswith("msd-secret-read-guard: reading ")


def test_every_class_has_cases_in_both_directions() -> None:
    kinds = {kind for kind, _, _ in CASES}
    for kind in kinds - {"programs given the path"}:
        assert {b for k, _, b in CASES if k == kind} == {True, False}, kind


P = "<project>"
TOOL_CASES = [  # (tool_name, tool_input, extra stdin fields, must block)
    ("Grep", {"pattern": "KEY", "glob": ".e[n]v"}, {}, True),
    ("Grep", {"pattern": "KEY", "glob": "*"}, {}, True),  # rg --glob overrides ignore rules
    ("Grep", {"pattern": "KEY", "glob": "**/.env.local"}, {}, True),
    ("Grep", {"pattern": "KEY", "glob": ".secrets/*"}, {}, True),
    ("Grep", {"pattern": "KEY", "glob": "*.py"}, {}, False),
    ("Grep", {"pattern": "KEY", "glob": "*", "path": "src"}, {}, False),
    ("Grep", {"pattern": "KEY", "paths": ["src", ".env"]}, {}, True),  # Copilot's grep
    ("read_many_files", {"paths": ["src"], "include": [".env"]}, {}, True),
    ("read_many_files", {"paths": [".e*"]}, {}, True),
    ("read_many_files", {"paths": ["src/*.py", "docs"]}, {}, False),
    ("run_shell_command", {"command": "cat settings", "dir_path": "config"}, {}, True),
    ("run_shell_command", {"command": "cat token", "dir_path": ".secrets"}, {}, True),
    ("run_shell_command", {"command": "cat app.yaml", "dir_path": "config"}, {}, False),
    ("launch-process", {"command": "cat settings", "cwd": f"{P}/config"}, {}, True),
    ("Bash", {"command": ["bash", "-lc", "cat .env"]}, {}, True),
    ("Bash", {"command": ["cat", "README.md"]}, {}, False),
]


@pytest.mark.parametrize(
    ("tool", "tool_input", "extra", "blocked"),
    TOOL_CASES,
    ids=[f"{'block' if b else 'allow'}:{t}:{json.dumps(i)}" for t, i, _, b in TOOL_CASES],
)
def test_tool_arguments(
    tree: dict[str, Path],
    tool: str,
    tool_input: dict[str, object],
    extra: dict[str, object],
    blocked: bool,
) -> None:
    # Each must-block case passed before: a Grep glob was checked by name only and never
    # without ".env" in it; read_many_files' include was ignored when paths was given;
    # Copilot's list of grep paths, a working directory in the tool's arguments and a
    # command given as a list of words were not looked at.
    project = str(tree["proj"])
    args = json.loads(json.dumps(tool_input).replace(P, project))
    result = run_guard(tree, tool_event("PreToolUse", tool, args, tree["proj"], **extra))
    if blocked:
        assert result.returncode == 2, result
        assert result.stderr.startswith("msd-secret-read-guard: reading ")
    else:
        assert (result.returncode, result.stderr) == (0, ""), result
