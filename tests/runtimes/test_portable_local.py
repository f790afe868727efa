"""A committed ``--local`` install works on another clone, for another user (issue 10.8).

For every runtime with a project scope: install into a git project at P1 under HOME-A, check
that no file of the project names P1, HOME-A or the installing interpreter, commit, move the
project to P2, delete HOME-A and take HOME-B. Then every hook command is started exactly as
registered (a shell line, the runtime's project variable, cwd = P2, and a subfolder for the
runtimes whose hooks find their script from the working directory), with a ``python3`` on the
PATH that is not the installing interpreter's path; the MCP server is started from its
registered command, args and env in P2 and answers ``initialize``, ``tools/list`` and a write,
whose audit record lands in HOME-B's state directory. Finally uninstall, run in P2 under
HOME-B, leaves the project exactly as it was before the install.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import tomllib

from helpers import build, run_cli, snapshot
from msd_install.installer.context import resolved_interpreter
from msd_install.installer.jsonparse import parse
from msd_install.runtimes import ADAPTERS

LOCAL = sorted(name for name, a in ADAPTERS.items() if "local" in a.scopes)
# the variable each runtime sets for its hooks (the registered commands name it)
PROJECT_VARS = {
    "claude": ("CLAUDE_PROJECT_DIR",),
    "codebuddy": ("CODEBUDDY_PROJECT_DIR", "CLAUDE_PROJECT_DIR"),
    "copilot": ("COPILOT_PROJECT_DIR",),
    "augment": ("AUGMENT_PROJECT_DIR",),
    "gemini": ("GEMINI_PROJECT_DIR",),
    "qwen": ("QWEN_PROJECT_DIR",),
}
# no project variable: the registered command finds its script from the working directory up
WALK_UP = {"codex", "cursor", "windsurf", "antigravity"}
# CodeBuddy keeps even a project's server in the user's ~/.codebuddy.json (keyed by the
# project's absolute path), so HOME-B has none; Windsurf and Cline read no project server
NO_PROJECT_SERVER = {"codebuddy", "windsurf", "cline"}
SERVER_MAPS = ("mcpServers", "mcp", "mcp_servers")
PROBE = "portable-probe.txt"


def git(project: Path, *args: str) -> str:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(project),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    done = subprocess.run(
        ["git", *args], cwd=project, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def path_with_python3(bin_dir: Path) -> str:
    """A PATH whose ``python3`` is a link (another name than the one installed with)."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    (bin_dir / "python3").symlink_to(resolved_interpreter())
    return f"{bin_dir}:/usr/bin:/bin"


def config_files(project: Path) -> list[Path]:
    return [
        p
        for p in sorted(project.rglob("*"))
        if ".git" not in p.relative_to(project).parts
        and p.is_file()
        and p.suffix in (".json", ".jsonc", ".toml")
        and p.name != "msd-file-manifest.json"
    ]


def load(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".toml":
        return tomllib.loads(text)
    return parse(text, jsonc=True).value


def walk(value: Any) -> Any:
    yield value
    children = value.values() if isinstance(value, dict) else value
    if isinstance(value, (dict, list)):
        for child in children:
            yield from walk(child)


def hook_commands(project: Path) -> list[str]:
    """Every shell command line registered for a hook script of ours."""
    found: list[str] = []
    for path in config_files(project):
        for node in walk(load(path)):
            if not isinstance(node, dict):
                continue
            for key in ("command", "bash"):
                line = node.get(key)
                if isinstance(line, str) and re.search(r"hooks/msd-[a-z-]+\.py", line):
                    found.append(line)
    return sorted(set(found))


def server_of(project: Path) -> dict[str, Any]:
    found = []
    for path in config_files(project):
        for node in walk(load(path)):
            if isinstance(node, dict):
                found += [
                    node[key]["msd"]
                    for key in SERVER_MAPS
                    if isinstance(node.get(key), dict) and "msd" in node[key]
                ]
    assert len(found) == 1, found
    server: dict[str, Any] = found[0]
    return server


def stdin_for(name: str, project: Path, path: str) -> dict[str, Any]:
    """A read of ``path`` as the runtime describes a tool call (the fields every hook reads)."""
    target = str(project / path)
    return {
        "session_id": "portable-1",
        "conversation_id": "portable-1",
        "hook_event_name": "PreToolUse",
        "cwd": str(project),
        "workspace_roots": [str(project)],
        "tool_name": "Read",
        "tool_input": {"file_path": target, "path": target},
        "toolName": "view",
        "toolArgs": json.dumps({"path": target}),
        "agent_action_name": "pre_read_code",
        "tool_info": {"file_path": target},
        "toolCall": {"name": "view_file", "args": {"AbsolutePath": target}},  # Antigravity
    }


def run_hook(line: str, stdin: dict[str, Any], cwd: Path, env: dict[str, str]) -> Any:
    return subprocess.run(
        ["sh", "-c", line],
        input=json.dumps(stdin),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        env=env,
    )


def mcp_session(server: dict[str, Any], name: str, cwd: Path, env: dict[str, str]) -> list[Any]:
    command = server["command"]
    argv = command if isinstance(command, list) else [command, *server.get("args", [])]
    if name == "augment":  # Auggie joins the words and runs the line with /bin/sh -c
        argv = ["sh", "-c", " ".join(argv)]
    extra = server.get("env") or server.get("environment") or {}
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "portable", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "write_file", "arguments": {"path": PROBE, "content": "x\n"}},
        },
    ]
    done = subprocess.run(
        argv,
        input="".join(json.dumps(r) + "\n" for r in requests),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        env={**env, **extra},
    )
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert [a.get("id") for a in answers] == [1, 2, 3], (done.returncode, done.stderr[-800:])
    return answers


@pytest.mark.parametrize("name", LOCAL)
def test_a_moved_committed_install_runs_for_another_user(tmp_path: Path, name: str) -> None:
    home_a, p1 = tmp_path / "home-a", tmp_path / "first" / "proj"
    home_a.mkdir()
    build(p1, {"README.md": "# app\n", "src/app.py": "a = 1\n", ".env": "SECRET=1\n"})
    git(p1, "init", "-q")
    git(p1, "add", "-A")
    git(p1, "commit", "-qm", "before msd")
    before = snapshot(p1)
    done = run_cli([f"--{name}", "--local", "--yes"], home_a, cwd=p1)
    assert done.returncode == 0, done.stderr

    # nothing of this machine in any file of the project (the manifest included)
    python = {str(resolved_interpreter()), os.path.realpath(sys.executable)}
    for rel, value in snapshot(p1).items():
        if rel.startswith(".git/") or not isinstance(value, tuple) or value[0] == "link":
            continue
        if name == "codebuddy" and rel == ".codebuddy/msd-file-manifest.json":
            continue  # it records the server's entry in ~/.codebuddy.json, keyed by P1
        text = value[0].decode("utf-8", "replace")
        for machine in (str(p1), str(home_a), *python):
            assert machine not in text, f"{name}: {rel} names {machine}"
    git(p1, "add", "-A")
    git(p1, "commit", "-qm", "msd, committed")

    p2, home_b = tmp_path / "second" / "place" / "proj", tmp_path / "home-b"
    p2.parent.mkdir(parents=True)
    shutil.move(p1, p2)
    shutil.rmtree(home_a)
    home_b.mkdir()
    env = {
        "PATH": path_with_python3(tmp_path / "bin-b"),
        "HOME": str(home_b),
        "TMPDIR": str(home_b),
        "MSD_UPDATE_URL": "http://127.0.0.1:9/pypi/msd-install/json",  # never the network
    }

    # every hook, started as registered, runs its script (a missing one is "can't open file")
    lines = hook_commands(p2)
    if name in ("claude", "codex", "cursor", "windsurf", "antigravity", "copilot", "gemini"):
        assert lines, f"{name} registered no hook"
    hook_env = {**env, **{var: str(p2) for var in PROJECT_VARS.get(name, ())}}
    where = [p2, p2 / "src"] if name in WALK_UP else [p2]
    guards = 0
    for line in lines:
        assert not line.startswith('"/'), line  # python3 from the PATH, nothing absolute
        for cwd in where:
            ran = run_hook(line, stdin_for(name, p2, "README.md"), cwd, hook_env)
            assert "Traceback" not in ran.stderr and "can't open file" not in ran.stderr, (
                line,
                ran.stderr[-800:],
            )
            assert ran.returncode == 0, (line, ran.stderr[-800:])
            if "msd-secret-read-guard" in line:
                guards += 1
                secret = run_hook(line, stdin_for(name, p2, ".env"), cwd, hook_env)
                said = secret.stdout + secret.stderr
                assert secret.returncode == 2 or re.search(r"deny|block|cancel", said), said
                assert ".env" in said, said
    if name in ("claude", "codex", "cursor", "windsurf", "copilot", "gemini", "qwen"):
        assert guards, f"{name}: the secret guard was not among {lines}"
    for script in sorted((p2 / ".cline" / "hooks").glob("*.sh")):  # Cline runs the files
        ran = run_hook(str(script), {"preToolUse": {"toolName": "read_file"}}, p2, env)
        assert "Traceback" not in ran.stderr and "can't open" not in ran.stderr, ran.stderr

    # the MCP server, as registered, answers; its audit log is HOME-B's
    if name not in NO_PROJECT_SERVER:
        answers = mcp_session(server_of(p2), name, p2, env)
        assert answers[0]["result"]["serverInfo"]["name"] == "msd-core"
        assert {"read_text_file", "write_file"} <= {
            t["name"] for t in answers[1]["result"]["tools"]
        }
        assert answers[2]["result"]["isError"] is False, answers[2]
        audit = home_b / ".local" / "state" / "msd" / "audit.jsonl"
        assert PROBE in audit.read_text(encoding="utf-8")
        (p2 / PROBE).unlink()

    moved = snapshot(p2)
    # HOME-B's msd-install never wrote this manifest: it is foreign, and removes only what
    # still hashes as msd's; here that is all of it, so the project is as before
    gone = run_cli([f"--{name}", "--local", "--uninstall", "--yes"], home_b, cwd=p2)
    if name == "codebuddy":
        # its manifest records the server's entry in HOME-A's ~/.codebuddy.json, a file this
        # user's CodeBuddy does not use: the manifest is refused as a whole, in one line,
        # and nothing is touched (issue 10.6's baseline scan is the way out)
        assert gone.returncode != 0 and "Traceback" not in gone.stderr
        (line,) = [ln for ln in gone.stderr.splitlines() if "msd-file-manifest.json" in ln]
        assert "not a config file this runtime uses" in line, gone.stderr
        assert snapshot(p2) == moved
        return
    assert gone.returncode == 0, gone.stdout + gone.stderr
    after = {k: v for k, v in snapshot(p2).items() if not k.startswith(".git/")}
    assert after == {k: v for k, v in before.items() if not k.startswith(".git/")}
    git(p2, "add", "-A")  # committing the uninstall gives the tree from before msd, exactly
    assert git(p2, "diff", "--cached", "--name-status", "HEAD~1") == ""
