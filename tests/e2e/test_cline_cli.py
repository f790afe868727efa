"""What Cline (``cline`` 3.0.65) itself loads from our installs, offline.

Listings: ``cline config skills|agents|hooks|workflows|mcp --json`` (strict: exit 1 and an
``error`` line on anything it cannot read). What a session really takes in is seen through a
loopback OpenAI-compatible stub (``cline auth -p openai-compatible``): the first request offers
the ``skills`` tool naming every skill, one ``subagent_msd_*`` tool per agent and an
``msd__<tool>`` per tool of our MCP server (so Cline started it and listed its tools); a
scripted tool call then runs our hooks. Cline keeps a hub daemon per home on a port we choose
(``CLINE_HUB_PORT``); ``cline hub stop`` ends it, and any process left with the test's home is
stopped by pid.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_clis import mcp_initialize, require, run_tool
from openai_stub import OpenAIStub, tool_names, tool_spec

from helpers import build, run_cli, snapshot

pytestmark = pytest.mark.e2e

AGENTS = 10
SKILLS = 28  # 22 commands + 6 routers
LISTINGS = ("skills", "agents", "hooks", "workflows", "mcp")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def processes_of(home: Path) -> list[int]:
    """Pids whose environment has HOME=<home>: what this test started, nothing else."""
    mark = f"HOME={home}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if mark in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


class Cline:
    """The real CLI against one home; every call offline, no login."""

    def __init__(self, home: Path) -> None:
        self.home, self.port = home, str(free_port())

    def run(self, cwd: Path, *args: str, timeout: float = 90) -> Any:
        return run_tool(
            [str(require("cline")), *args], self.home, cwd, timeout, CLINE_HUB_PORT=self.port
        )

    def config(self, cwd: Path, target: str) -> list[dict[str, Any]]:
        proc = self.run(cwd, "config", target, "--json")
        # strict: no error line, exit 0, one JSON array
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert '"type":"error"' not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
        found: list[dict[str, Any]] = json.loads(proc.stdout)
        return found

    def ours(self, cwd: Path, target: str) -> Counter[str]:
        """How often each msd item is listed (hooks: our launchers, by file name)."""
        items = self.config(cwd, target)
        if target == "hooks":
            return Counter(Path(h["path"]).name for h in items if h["path"].endswith(".sh"))
        return Counter(str(i["name"]) for i in items if str(i["name"]).startswith("msd-"))

    def session(self, cwd: Path, trigger: str, tool: str, args: dict[str, Any]) -> OpenAIStub:
        """``cline --json "<trigger>"`` against the stub; its requests tell what was loaded."""
        with OpenAIStub(trigger, tool, args) as stub:
            auth = self.run(
                cwd, "auth", "-p", "openai-compatible", "-k", "dummy", "-b", stub.url,
                "-m", "test-model",
            )  # fmt: skip
            assert auth.returncode == 0, auth.stdout + auth.stderr
            proc = self.run(cwd, "--json", "--retries", "1", f"{trigger} please", timeout=180)
            assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        assert stub.requests, proc.stdout[-2000:]
        self.output = str(proc.stdout)
        return stub

    def stop(self) -> None:
        """``cline hub stop`` when something of this home still runs, then any process left
        with this home, by pid."""
        if processes_of(self.home):
            self.run(self.home, "hub", "stop")
        for pid in processes_of(self.home):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        while processes_of(self.home) and time.monotonic() < deadline:
            time.sleep(0.2)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    build(root, {".env": "SECRET=1\n", "notes.txt": "hello\n", "src/app.py": "print(1)\n"})
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


@pytest.fixture
def cline(home: Path) -> Iterator[Cline]:
    require("cline")
    runtime = Cline(home)
    yield runtime
    runtime.stop()
    assert processes_of(home) == []


def install(home: Path, *args: str, cwd: Path | None = None) -> None:
    proc = run_cli([*args, "--yes"], home, cwd=cwd)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def our_tool_names(server: dict[str, Any], cwd: Path, home: Path) -> list[str]:
    """The tools our server lists when started exactly as registered."""
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2024-11-05", "capabilities": {},
            "clientInfo": {"name": "e2e", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]  # fmt: skip
    proc = subprocess.run(
        [server["command"], *server["args"]],
        input="".join(json.dumps(r) + "\n" for r in requests),
        cwd=cwd,
        env={"PATH": "/usr/bin:/bin", "HOME": str(home), **server.get("env", {})},
        capture_output=True,
        text=True,
        timeout=30,
    )
    answers = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    listing = next(a for a in answers if a.get("id") == 2)
    return sorted(t["name"] for t in listing["result"]["tools"])


def assert_listings(cline: Cline, cwd: Path, where: Path, mcp: bool) -> None:
    skills = cline.config(cwd, "skills")
    ours = [s for s in skills if s["name"].startswith("msd-")]
    assert len(ours) == SKILLS and {Path(s["path"]).parent.parent for s in ours} == {
        where / "skills"
    }
    assert all(s["description"] for s in ours)
    agents = [a for a in cline.config(cwd, "agents") if a["name"].startswith("msd-")]
    assert len(agents) == AGENTS and all(a["path"].endswith(".yaml") for a in agents)
    hooks = cline.config(cwd, "hooks")
    assert sorted((h["fileName"], h["hookEventName"]) for h in hooks) == [
        ("PostToolUse", "tool_result"),
        ("PreToolUse", "tool_call"),
    ]
    assert {Path(h["path"]).parent for h in hooks} == {where / "hooks"}
    assert cline.config(cwd, "workflows") == []  # commands are skills, never also workflows
    servers = {s["name"]: s for s in cline.config(cwd, "mcp")}
    if mcp:
        assert servers["msd"]["transportType"] == "stdio" and servers["msd"]["disabled"] is False
    else:
        assert "msd" not in servers


def test_global_install_is_what_cline_loads(cline: Cline, home: Path, project: Path) -> None:
    install(home, "--cline", "--global")
    root = home / ".cline"
    assert_listings(cline, project, root, mcp=True)
    settings = json.loads((root / "data/settings/cline_mcp_settings.json").read_text())
    server = settings["mcpServers"]["msd"]
    info = mcp_initialize(server["command"], server["args"], server.get("env", {}), project, home)
    assert info["serverInfo"]["name"] == "msd-core"  # type: ignore[index]
    expected = our_tool_names(server, project, home)
    # the session: every skill, agent and MCP tool offered; then a read of .env is refused
    env = str(project / ".env")
    stub = cline.session(project, "read the env", "read_files", {"files": [{"path": env}]})
    first = stub.requests[0]
    names = tool_names(first)
    assert sorted(n[5:] for n in names if n.startswith("msd__")) == expected
    subagents = sorted(n for n in names if n.startswith("subagent_"))
    assert len(subagents) == AGENTS and "subagent_msd_planner" in subagents
    planner = tool_spec(first, "subagent_msd_planner")
    assert list(planner["parameters"]["properties"]) == ["prompt"]
    listed = tool_spec(first, "skills")["description"].rsplit("Available skills: ", 1)[1]
    assert sorted(s.strip(" .") for s in listed.split(",")) == sorted(
        p.name for p in (root / "skills").iterdir()
    )
    # the secret guard ended the run before the file was read, and said why
    assert "SECRET=1" not in json.dumps(stub.requests) and len(stub.requests) == 1
    assert '"finishReason":"aborted"' in cline.output
    log = (root / "data/logs/cline.log").read_text()
    assert "msd-secret-read-guard: reading " in log


def test_local_install_is_what_cline_loads(cline: Cline, home: Path, project: Path) -> None:
    install(home, "--cline", "--local", cwd=project)
    root = project / ".cline"
    assert_listings(cline, project, root, mcp=False)
    # an edit of a file the session has not read: the read guard's advice reaches the agent
    edit = {"path": str(project / "notes.txt"), "old_text": "hello", "new_text": "bye"}
    stub = cline.session(project, "edit the notes", "editor", edit)
    first, last = stub.requests[0], stub.requests[-1]
    assert len([n for n in tool_names(first) if n.startswith("subagent_msd_")]) == AGENTS
    assert "msd-plan-phase" in tool_spec(first, "skills")["description"]
    said = json.dumps(last["messages"])
    assert "MSD read guard (advisory): notes.txt exists but has not been read" in said
    assert (project / "notes.txt").read_text() == "bye\n"


def claude_paths(home: Path, project: Path) -> dict[str, Any]:
    tree = {f"~/{k}": v for k, v in snapshot(home).items() if k.startswith(".claude")}
    tree |= {k: v for k, v in snapshot(project).items() if k.startswith((".claude", ".mcp"))}
    return tree


@pytest.mark.parametrize("scope", ["--global", "--local"])
def test_side_by_side_with_claude_code(cline: Cline, home: Path, project: Path, scope: str) -> None:
    """Cline reads nothing of Claude Code's (``.claude/``, ``.mcp.json``): every msd item is
    listed once with Claude installed too, still once without it, and Claude's install is
    whole after Cline's goes."""
    install(home, "--claude", scope, cwd=project)
    claude = claude_paths(home, project)
    assert claude
    install(home, "--cline", scope, cwd=project)

    def once() -> None:
        for target, count in (("skills", SKILLS), ("agents", AGENTS), ("hooks", 2)):
            found = cline.ours(project, target)
            assert len(found) == count and set(found.values()) == {1}, (target, found)
        mcp = [s["name"] for s in cline.config(project, "mcp")]
        assert mcp == (["msd"] if scope == "--global" else [])

    once()
    install(home, "--claude", scope, "--uninstall", cwd=project)
    once()
    install(home, "--claude", scope, cwd=project)
    install(home, "--cline", scope, "--uninstall", cwd=project)
    assert claude_paths(home, project) == claude
    assert cline.ours(project, "skills") == Counter()


def test_a_users_own_hook_file_runs_beside_ours(cline: Cline, home: Path, project: Path) -> None:
    build(home, {".cline/hooks/PreToolUse": "#!/bin/sh\ncat > /dev/null\necho '{}'\n"})
    (home / ".cline/hooks/PreToolUse").chmod(0o755)
    install(home, "--cline", "--global")
    paths = sorted(Path(h["path"]).name for h in cline.config(project, "hooks"))
    assert paths == ["PostToolUse.sh", "PreToolUse", "PreToolUse.sh"]
    install(home, "--cline", "--global", "--uninstall")
    assert sorted(Path(h["path"]).name for h in cline.config(project, "hooks")) == ["PreToolUse"]


def test_both_scopes_list_each_item_once(cline: Cline, home: Path, project: Path) -> None:
    install(home, "--cline", "--global")
    install(home, "--cline", "--local", cwd=project)
    skills, agents = cline.ours(project, "skills"), cline.ours(project, "agents")
    assert len(skills) == SKILLS and set(skills.values()) == {1}
    assert len(agents) == AGENTS and set(agents.values()) == {1}
    # both scopes' launchers run; the global one defers to the project's (test_cline_dispatch)
    assert cline.ours(project, "hooks") == Counter({"PreToolUse.sh": 2, "PostToolUse.sh": 2})
