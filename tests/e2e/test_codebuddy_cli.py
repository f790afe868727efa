"""What CodeBuddy Code (``codebuddy-headless`` 2.163.0) itself loads from our installs, offline.

Listings: ``mcp list`` (a real health check), ``config get hooks`` (the merged user and
project hooks), and the ``system/init`` line of ``-p ... --output-format stream-json
--verbose`` (``slash_commands``, ``mcp_servers``, ``tools``). Skills and agents have no
listing: a loopback stub model (``openai_stub``, via ``CODEBUDDY_API_KEY`` /
``CODEBUDDY_BASE_URL``) stands in, the first request's ``Skill`` and ``Agent`` tools name every
skill and agent the CLI loaded, and scripted tool calls show a hook blocking, the Skill tool
running one of our commands and the Agent tool starting one of our agents. The CLI exits 0
even on errors, so every check reads what it printed and logged.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from e2e_clis import mcp_initialize, py_bin_dir, run_tool
from openai_stub import OpenAIStub, text_answer, tool_answer, tool_spec

from helpers import build, run_cli, snapshot

pytestmark = pytest.mark.e2e

COMMANDS = 22
ROUTERS = 6
AGENTS = 10
HOOKS = 10
OFF = {"CODEBUDDY_CONFIG_DIR": ""}
TRIGGER = "go-go msd check"
# the log lines of a config CodeBuddy could not read (it exits 0 and goes on without it)
LOADER_ERROR = re.compile(
    r"parse error|read failed|Invalid agent|Unable to (load|inspect)|Failed to parse|"
    r"unsafe agent name|invalid public metadata",
    re.I,
)


def codebuddy() -> Path:
    """The standalone binary inside the PyPI package (scripts/install-clis puts it there)."""
    found = sorted(
        py_bin_dir().parent.glob(
            "lib/python3*/site-packages/codebuddy_agent_sdk/bin/codebuddy-headless"
        )
    )
    if not found:
        message = f"codebuddy-headless is not installed under {py_bin_dir().parent}"
        if os.environ.get("MSD_E2E_REQUIRED") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return found[-1]


class ScriptedStub(OpenAIStub):
    """Answers the main conversation with one scripted tool call per turn, then text.

    A request belongs to the main conversation when a user message holds the trigger; an
    agent's own requests never do, and get a text answer.
    """

    def __init__(self, calls: list[tuple[str, dict[str, Any]]]) -> None:
        super().__init__()
        self.calls = calls

    def answer(self, request: dict[str, Any]) -> bytes:
        messages = request.get("messages", [])
        said = json.dumps([m.get("content") for m in messages if m.get("role") == "user"])
        turn = sum(1 for m in messages if m.get("role") == "tool")
        if TRIGGER in said and turn < len(self.calls):
            return tool_answer(*self.calls[turn])
        return text_answer("stub: ok")

    def main_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if TRIGGER in json.dumps(r.get("messages"))]


class CodeBuddy:
    """The real CLI against one home; every call offline, no login."""

    def __init__(self, home: Path) -> None:
        self.home = home

    def run(self, cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        proc = run_tool([str(codebuddy()), *args], self.home, cwd, timeout=120, **env)
        # exit 0 even on errors: what it printed and logged must show none
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "parse error" not in (proc.stdout + proc.stderr).lower(), proc.stdout + proc.stderr
        return proc

    def mcp_list(self, cwd: Path) -> list[str]:
        """The msd lines of ``mcp list`` (a server waiting for approval is told on stderr)."""
        proc = self.run(cwd, "mcp", "list")
        lines = (proc.stdout + "\n" + proc.stderr).splitlines()
        return [line for line in lines if line.startswith("msd")]

    def hooks(self, cwd: Path) -> dict[str, Any]:
        out = self.run(cwd, "config", "get", "hooks").stdout
        # first the node-inspect form, then the same value as JSON
        found: dict[str, Any] = json.loads(out[out.index("\n{") + 1 :])
        return found

    def session(self, cwd: Path, calls: list[tuple[str, dict[str, Any]]]) -> Session:
        with ScriptedStub(calls) as stub:
            proc = self.run(
                cwd,
                "-p",
                TRIGGER,
                "--output-format",
                "stream-json",
                "--verbose",
                "-y",
                CODEBUDDY_API_KEY="dummy",
                CODEBUDDY_BASE_URL=stub.url.removesuffix("/v1"),
            )
        init = json.loads(proc.stdout.splitlines()[0])
        assert init["type"] == "system" and init["subtype"] == "init", proc.stdout[:500]
        assert stub.main_requests(), proc.stdout[-2000:]
        return Session(init, stub)

    def logged_errors(self) -> list[str]:
        logs = self.home / ".codebuddy/logs"
        lines = []
        for log in sorted(logs.rglob("*.log")) if logs.is_dir() else []:
            lines += [
                ln for ln in log.read_text(errors="replace").splitlines() if LOADER_ERROR.search(ln)
            ]
        return lines


class Session:
    def __init__(self, init: dict[str, Any], stub: ScriptedStub) -> None:
        self.init, self.stub = init, stub
        self.first = stub.main_requests()[0]

    def commands(self) -> Counter[str]:
        return Counter(c for c in self.init["slash_commands"] if c.startswith("msd-"))

    def servers(self) -> list[dict[str, Any]]:
        return [s for s in self.init["mcp_servers"] if s["name"] == "msd"]

    def mcp_tools(self) -> list[str]:
        return [t for t in self.init["tools"] if t.startswith("mcp__msd__")]

    def skills(self) -> dict[str, Counter[str]]:
        """folder -> msd skill names listed to the model under it."""
        text = tool_spec(self.first, "Skill")["description"]
        out: dict[str, Counter[str]] = {}
        folder = ""
        for line in text.splitlines():
            if line.startswith("skills under folder: "):
                folder = line.removeprefix("skills under folder: ")
            elif line.startswith("- msd-"):
                out.setdefault(folder, Counter())[line[2:].split(":")[0]] += 1
        return out

    def agents(self) -> dict[str, str]:
        """msd agent -> its listing line in the Agent tool."""
        text = tool_spec(self.first, "Agent")["description"]
        lines = [ln for ln in text.splitlines() if ln.startswith("- msd-")]
        names = Counter(ln[2:].split(":")[0] for ln in lines)
        assert all(n == 1 for n in names.values()), names
        return {ln[2:].split(":")[0]: ln for ln in lines}

    def said(self) -> str:
        return json.dumps([r.get("messages") for r in self.stub.main_requests()])

    def tool_results(self) -> list[str]:
        """The tool results of the main conversation, in order (from its last request)."""
        last = self.stub.main_requests()[-1]["messages"]
        found = [m.get("content") for m in last if m.get("role") == "tool"]
        return [c if isinstance(c, str) else json.dumps(c) for c in found]


def assert_once(counts: Counter[str], expected: int) -> None:
    assert len(counts) == expected and set(counts.values()) == {1}, counts


def spawn_as_registered(server: dict[str, Any], cwd: Path, home: Path) -> None:
    info = mcp_initialize(server["command"], server["args"], server.get("env", {}), cwd, home)
    assert info["serverInfo"]["name"] == "msd-core"  # type: ignore[index]


def our_hook_scripts(hooks: dict[str, Any]) -> Counter[str]:
    commands = [h["command"] for groups in hooks.values() for g in groups for h in g["hooks"]]
    return Counter(m.group(0) for c in commands for m in [re.search(r"\S*msd-[a-z-]+\.py", c)] if m)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    build(
        project,
        {
            ".env": "API_KEY=SECRET-VALUE-99\n",
            ".planning/STATE.md": "---\nstatus: executing\n---\n# State\n\n"
            "## Current Position\n\nPhase 3 of 5: MARKER-POSITION-77\n",
        },
    )
    return project


def calls(project: Path) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("Read", {"file_path": str(project / ".env")}),
        ("Skill", {"skill": "msd-help"}),
        ("Agent", {"subagent_type": "msd-codebase-mapper", "description": "Map", "prompt": "go"}),
    ]


def check_session(session: Session, root: Path, scope: str) -> None:
    """Everything a session loaded from one install whose root is ``root``."""
    assert_once(session.commands(), COMMANDS)
    assert session.servers() == [{"name": "msd", "status": "connected"}]
    assert len(session.mcp_tools()) > 20
    skills = session.skills()
    assert list(skills) == [str(root / "skills")], skills
    assert_once(skills[str(root / "skills")], ROUTERS)
    agents = session.agents()
    assert len(agents) == AGENTS
    assert all(f"({scope})(Tools:" in line for line in agents.values()), agents
    assert "(Tools:Read,Write,Bash,Glob,Grep,WebFetch," in agents["msd-planner"]
    # SessionStart hook: the project's position reached the model
    assert "MARKER-POSITION-77" in session.said()
    results = session.tool_results()
    # PreToolUse hook: the secret guard blocked the Read, and the agent was told why
    assert "msd-secret-read-guard" in results[0] and "SECRET-VALUE-99" not in session.said()
    # the Skill tool ran our command, with its @-referenced workflow inlined
    assert "<command-name>/msd-help</command-name>" in results[1]
    assert "msd-install doctor" in results[1]
    # the Agent tool started our agent, with its own instructions and tools
    mapper = [r for r in session.stub.requests if "MSD Core codebase mapper" in json.dumps(r)]
    assert mapper, "msd-codebase-mapper never ran"
    names = {t["function"]["name"] for t in mapper[0]["tools"]}
    assert {"Read", "Write", "Bash", "Glob", "Grep"} <= names and "Agent" not in names


def test_global_install_is_what_codebuddy_loads(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    assert run_cli(["--codebuddy", "--global", "--yes"], home, cwd=project, **OFF).returncode == 0
    cli = CodeBuddy(home)
    root = home / ".codebuddy"
    launcher = root / "msd-core/bin/msd-mcp"
    (line,) = cli.mcp_list(project)
    assert line.endswith(f"-I -S {launcher} - ✓ Connected"), line
    scripts = our_hook_scripts(cli.hooks(project))
    assert len(scripts) == HOOKS and set(scripts.values()) == {1}, scripts
    assert all(s.startswith(f'"{root}/hooks/') for s in scripts), scripts
    check_session(cli.session(project, calls(project)), root, "user")
    server = json.loads((root / ".mcp.json").read_text())["mcpServers"]["msd"]
    spawn_as_registered(server, project, home)
    assert cli.logged_errors() == []


def test_local_install_is_what_codebuddy_loads(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    assert run_cli(["--codebuddy", "--local", "--yes"], home, cwd=project, **OFF).returncode == 0
    cli = CodeBuddy(home)
    root = project / ".codebuddy"
    (line,) = cli.mcp_list(project)
    assert line.endswith(f"-I -S {root}/msd-core/bin/msd-mcp - ✓ Connected"), line  # no approval
    scripts = our_hook_scripts(cli.hooks(project))
    assert len(scripts) == HOOKS and set(scripts.values()) == {1}, scripts
    assert all(s.startswith('"$CODEBUDDY_PROJECT_DIR"/.codebuddy/hooks/') for s in scripts)
    check_session(cli.session(project, calls(project)), root, "project")
    local = json.loads((home / ".codebuddy.json").read_text())["projects"][str(project)]
    spawn_as_registered(local["mcpServers"]["msd"], project, home)
    assert cli.logged_errors() == []
    # another directory is another local scope: nothing of ours there
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert cli.mcp_list(elsewhere) == []


@pytest.mark.parametrize("scope", ["--global", "--local"])
def test_side_by_side_with_claude_every_item_once(
    tmp_path: Path, project: Path, scope: str
) -> None:
    """Claude Code installed globally and locally next to one CodeBuddy install: CodeBuddy reads
    none of Claude's folders, so each msd item is listed once, before and after Claude goes;
    uninstalling CodeBuddy leaves Claude's install as it was."""
    home = tmp_path / "home"
    home.mkdir()
    for args in (["--claude", "--global"], ["--claude", "--local"], ["--codebuddy", scope]):
        proc = run_cli([*args, "--yes"], home, cwd=project, **OFF)
        assert proc.returncode == 0 and "conflict" not in proc.stdout, proc.stdout
    root = home / ".codebuddy" if scope == "--global" else project / ".codebuddy"
    cli = CodeBuddy(home)
    if scope == "--local":  # CodeBuddy's local scope wins over Claude's .mcp.json by name
        (line,) = cli.mcp_list(project)
        assert line.endswith(f"{root}/msd-core/bin/msd-mcp - ✓ Connected"), line
    else:  # the open question: Claude's project entry hides ours until approved
        assert cli.mcp_list(project) == ["msd: Needs approval"]
    hooks = our_hook_scripts(cli.hooks(project))
    assert len(hooks) == HOOKS and ".claude" not in json.dumps(list(hooks)), hooks
    session = cli.session(project, [])
    assert_once(session.commands(), COMMANDS)
    assert list(session.skills()) == [str(root / "skills")]
    assert_once(session.skills()[str(root / "skills")], ROUTERS)
    assert len(session.agents()) == AGENTS

    claude = snapshot(home / ".claude"), snapshot(project / ".claude")
    claude_config = (home / ".claude.json").read_bytes(), (project / ".mcp.json").read_bytes()
    out = run_cli(["--codebuddy", scope, "--uninstall", "--yes"], home, cwd=project, **OFF)
    assert out.returncode == 0, out.stderr
    assert (snapshot(home / ".claude"), snapshot(project / ".claude")) == claude
    assert ((home / ".claude.json").read_bytes(), (project / ".mcp.json").read_bytes()) == (
        claude_config
    )
    assert run_cli(["--codebuddy", scope, "--yes"], home, cwd=project, **OFF).returncode == 0
    for claude_scope in ("--global", "--local"):
        out = run_cli(["--claude", claude_scope, "--uninstall", "--yes"], home, cwd=project)
        assert out.returncode == 0, out.stderr
    (line,) = cli.mcp_list(project)
    assert line.endswith(f"{root}/msd-core/bin/msd-mcp - ✓ Connected"), line
    again = cli.session(project, [])
    assert_once(again.commands(), COMMANDS)
    assert_once(again.skills()[str(root / "skills")], ROUTERS)
    assert len(again.agents()) == AGENTS and again.servers()
    out = run_cli(["--codebuddy", scope, "--uninstall", "--yes"], home, cwd=project, **OFF)
    assert out.returncode == 0, out.stderr
    assert not (home / ".claude").exists() and not (project / ".mcp.json").exists()
    assert not (root / "commands").exists() and not (home / ".codebuddy.json").exists()


def test_global_install_beside_claudes_project_server(tmp_path: Path, project: Path) -> None:
    """The open question of runtimes/codebuddy.py, as the CLI shows it: Claude's local
    install puts ``msd`` into .mcp.json, which hides CodeBuddy's user server by name until the
    user approves it (this test approves it, as the user would); then it runs, once."""
    home = tmp_path / "home"
    home.mkdir()
    for runtime in ("--claude", "--codebuddy"):
        scope = "--local" if runtime == "--claude" else "--global"
        assert run_cli([runtime, scope, "--yes"], home, cwd=project, **OFF).returncode == 0
    cli = CodeBuddy(home)
    assert cli.mcp_list(project) == ["msd: Needs approval"]
    build(project, {".codebuddy/settings.local.json": '{"enabledMcpjsonServers": ["msd"]}'})
    (line,) = cli.mcp_list(project)
    # Claude's committed entry: python3 and a launcher relative to the project
    assert line.endswith("python3 -I -S .claude/msd-core/bin/msd-mcp - ✓ Connected"), line


def test_mcp_get_rewrites_the_file_and_ours_stays_ours(tmp_path: Path, project: Path) -> None:
    """Trap: ``mcp get NAME`` rewrites the user MCP file (``type`` added where missing,
    ``"disabledMcpServers": []`` beside ``mcpServers``). Our entry already has ``type``, so
    uninstall still recognises and removes it; CodeBuddy's own member stays."""
    home = tmp_path / "home"
    home.mkdir()
    assert run_cli(["--codebuddy", "--global", "--yes"], home, cwd=project, **OFF).returncode == 0
    mcp = home / ".codebuddy/.mcp.json"
    ours = json.loads(mcp.read_text())["mcpServers"]["msd"]
    out = CodeBuddy(home).run(project, "mcp", "get", "msd").stdout
    assert "Status: ✓ Connected" in out, out
    rewritten = json.loads(mcp.read_text())
    assert rewritten == {"mcpServers": {"msd": ours}, "disabledMcpServers": []}
    done = run_cli(["--codebuddy", "--global", "--uninstall", "--yes"], home, cwd=project, **OFF)
    assert done.returncode == 0 and "changed by you" not in done.stdout, done.stdout
    assert json.loads(mcp.read_text()) == {"disabledMcpServers": []}
