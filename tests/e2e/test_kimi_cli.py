"""What the real Kimi Code CLI (npm ``@moonshot-ai/kimi-code`` 2.1.0) takes in from our installs.

``kimi doctor config`` validates the config.toml we edited (exit 1 on an invalid one); over
``kimi acp`` (see kimi_acp.py) the ``available_commands_update`` lists the skills, ``/mcp``
the state of each MCP server, and a loopback stub model the agents (``Agent`` tool), the skills
of the system prompt and a real tool call that our PreToolUse hook blocks. The MCP server Kimi
started is found among the live processes and compared with the registered command line and
env. Kimi logs skipped skills and agents as WARN in ``logs/kimi-code.log``: none may appear.
Kimi writes its own state (sessions, logs, caches) into the home it runs in; none of it is ours.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from e2e_clis import mcp_initialize
from kimi_acp import AcpSession, mcp_status, run_kimi, running
from openai_stub import OpenAIStub, system_prompt, tool_names, tool_spec

from helpers import build, run_cli, snapshot

pytestmark = pytest.mark.e2e

SKILLS = 28  # 22 commands + 6 routers
AGENTS = 10
CAT_ENV = {"command": "cat .env"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    proj.mkdir()
    subprocess.run(["git", "init", "-q", str(proj)], check=True)
    (proj / ".env").write_text("TOKEN=secret\n")
    return proj


def trust(home: Path, folder: Path) -> None:
    """The record Kimi's own "Trust this folder" writes (``workspace-trust/wd_<slug>_<sha>``).
    The test trusts the folder; msd-install never does."""
    root = folder.as_posix().rstrip("/")
    slug = re.sub(r"^-+|-+$", "", re.sub(r"[^a-z0-9._-]+", "-", folder.name.lower()))[:40]
    key = f"wd_{slug or 'workspace'}_{hashlib.sha256(root.encode()).hexdigest()[:12]}"
    record = home / ".kimi-code/workspace-trust" / key
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(json.dumps({"root": root, "trustedAt": int(time.time() * 1000)}))


def assert_once(found: Counter[str], count: int) -> None:
    ours = {name: n for name, n in found.items() if name.startswith("msd-")}
    assert len(ours) == count and set(ours.values()) == {1}, ours


def log_warnings(home: Path) -> list[str]:
    log = home / ".kimi-code/logs/kimi-code.log"
    lines = log.read_text().splitlines() if log.is_file() else []
    return [line for line in lines if " WARN " in line or " ERROR " in line]


def servers(root: Path) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((root / "mcp.json").read_text())["mcpServers"]
    return found


def started_as_registered(server: dict[str, Any]) -> None:
    """The live msd process Kimi started has exactly the registered argv and env values."""
    launcher = server["args"][-1]
    procs = running(launcher)
    assert len(procs) == 1, procs
    argv, env = procs[0]
    assert argv == [server["command"], *server["args"]]
    assert all(env.get(k) == v for k, v in server.get("env", {}).items()), env


def connected(session: AcpSession) -> dict[str, str]:
    """``/mcp`` once every server has settled (a stdio start can take a moment)."""
    status = mcp_status(session.prompt("/mcp"))
    for _ in range(10):
        if not any(s.startswith(("connecting", "pending")) for s in status.values()):
            break
        time.sleep(1)
        status = mcp_status(session.prompt("/mcp"))
    return status


def agent_types(request: dict[str, Any]) -> Counter[str]:
    text = tool_spec(request, "Agent")["description"].split("Available agent types", 1)[1]
    return Counter(re.findall(r"^- ([a-z0-9-]+):", text, re.M))


def prompt_skills(request: dict[str, Any]) -> Counter[str]:
    return Counter(re.findall(r"^- (msd-[a-z-]+): ", system_prompt(request), re.M))


def test_global_install_is_what_kimi_loads(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    assert run_cli(["--kimi", "--global", "--yes"], home).returncode == 0
    root = home / ".kimi-code"
    doctor = run_kimi(home, project, "doctor", "config")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert f"OK config.toml  {root / 'config.toml'}" in doctor.stdout
    # the check can fail: a hook table with a key Kimi does not know
    broken = tmp_path / "broken.toml"
    broken.write_text((root / "config.toml").read_text() + 'fail_mode = "open"\n')
    refused = run_kimi(home, project, "doctor", "config", str(broken))
    assert refused.returncode == 1 and 'Unrecognized key: "failMode"' in refused.stderr

    with OpenAIStub("TRIGGER", "Bash", CAT_ENV) as stub, AcpSession(home, project, stub) as kimi:
        assert_once(kimi.skills(), SKILLS)
        status = connected(kimi)
        assert list(status) == ["msd"] and re.match(r"connected, \d+ tools$", status["msd"])
        started_as_registered(servers(root)["msd"])
        kimi.prompt("TRIGGER: show me the .env file")
    first = stub.requests[0]
    assert_once(agent_types(first), AGENTS)
    assert_once(prompt_skills(first), SKILLS)
    assert "mcp__msd__state_load" in tool_names(first)
    # our PreToolUse guard really runs in Kimi: it blocked the model's read of .env
    (result,) = stub.tool_results()
    assert "msd-secret-read-guard: reading .env is blocked" in result
    assert log_warnings(home) == []
    server = servers(root)["msd"]
    answer = mcp_initialize(server["command"], server["args"], server.get("env", {}), project, home)
    assert answer["serverInfo"]["name"] == "msd-core"


def test_local_install_is_what_kimi_loads_in_a_trusted_folder(
    tmp_path: Path, project: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    before = snapshot(project)
    proc = run_cli(["--kimi", "--local", "--yes"], home, cwd=project)
    assert proc.returncode == 0 and "only in a trusted folder" in " ".join(proc.stdout.split())
    with OpenAIStub() as stub:
        with AcpSession(home, project, stub) as kimi:
            assert_once(kimi.skills(), SKILLS)  # project skills load without trust
            assert connected(kimi) == {}  # not the MCP server: the report said so
        trust(home, project)
        with AcpSession(home, project, stub) as kimi:
            status = connected(kimi)
            assert list(status) == ["msd"] and status["msd"].startswith("connected")
            started_as_registered(servers(project / ".kimi-code")["msd"])
            kimi.prompt("hello")
    assert_once(agent_types(stub.requests[0]), AGENTS)
    assert_once(prompt_skills(stub.requests[0]), SKILLS)
    assert log_warnings(home) == []
    assert run_cli(["--kimi", "--local", "--yes", "--uninstall"], home, cwd=project).returncode == 0
    assert snapshot(project) == before


def test_side_by_side_with_claude_globally(tmp_path: Path, project: Path) -> None:
    """Kimi reads nothing of ~/.claude: our items once, before and after Claude goes."""
    home = tmp_path / "home"
    home.mkdir()
    for runtime in ("--claude", "--kimi"):
        assert run_cli([runtime, "--global", "--yes"], home).returncode == 0
    with OpenAIStub() as stub:
        with AcpSession(home, project, stub) as kimi:
            assert_once(kimi.skills(), SKILLS)
            assert list(connected(kimi)) == ["msd"]
            kimi.prompt("hello")
        assert_once(agent_types(stub.requests[0]), AGENTS)
        claude = {k: v for k, v in snapshot(home).items() if k.startswith(".claude")}
        assert run_cli(["--kimi", "--global", "--yes", "--uninstall"], home).returncode == 0
        assert {k: v for k, v in snapshot(home).items() if k.startswith(".claude")} == claude
        assert run_cli(["--kimi", "--global", "--yes"], home).returncode == 0
        assert run_cli(["--claude", "--global", "--yes", "--uninstall"], home).returncode == 0
        with AcpSession(home, project, stub) as kimi:
            assert_once(kimi.skills(), SKILLS)
            status = connected(kimi)
            assert list(status) == ["msd"] and status["msd"].startswith("connected")
            started_as_registered(servers(home / ".kimi-code")["msd"])


def test_side_by_side_with_claude_in_one_trusted_project(tmp_path: Path, project: Path) -> None:
    """Kimi reads Claude's .mcp.json too (later layers win by name): one msd, Kimi's own while
    both are installed, Claude's once Kimi's is gone; skills never from .claude/."""
    home = tmp_path / "home"
    home.mkdir()
    before = snapshot(project)
    for runtime in ("--claude", "--kimi"):
        assert run_cli([runtime, "--local", "--yes"], home, cwd=project).returncode == 0
    trust(home, project)
    claude_server = json.loads((project / ".mcp.json").read_text())["mcpServers"]["msd"]
    with OpenAIStub() as stub:
        with AcpSession(home, project, stub) as kimi:
            assert_once(kimi.skills(), SKILLS)
            assert list(connected(kimi)) == ["msd"]
            started_as_registered(servers(project / ".kimi-code")["msd"])
            assert running(claude_server["args"][-1]) == []
        claude = {k: v for k, v in snapshot(project).items() if "claude" in k or "mcp" in k}
        assert (
            run_cli(["--claude", "--local", "--yes", "--uninstall"], home, cwd=project).returncode
            == 0
        )
        with AcpSession(home, project, stub) as kimi:
            assert_once(kimi.skills(), SKILLS)
            assert list(connected(kimi)) == ["msd"]
            started_as_registered(servers(project / ".kimi-code")["msd"])
        assert run_cli(["--claude", "--local", "--yes"], home, cwd=project).returncode == 0
        assert (
            run_cli(["--kimi", "--local", "--yes", "--uninstall"], home, cwd=project).returncode
            == 0
        )
        assert {k: v for k, v in snapshot(project).items() if "claude" in k or "mcp" in k} == {
            k: v for k, v in claude.items() if ".kimi-code" not in k
        }
        with AcpSession(home, project, stub) as kimi:
            assert kimi.skills() == Counter()
            status = connected(kimi)
            assert list(status) == ["msd"] and status["msd"].startswith("connected")
            started_as_registered({**claude_server, "env": claude_server.get("env", {})})
    assert (
        run_cli(["--claude", "--local", "--yes", "--uninstall"], home, cwd=project).returncode == 0
    )
    assert snapshot(project) == before


def test_uninstall_after_kimi_rewrote_its_config(tmp_path: Path, project: Path) -> None:
    """Kimi edits config.toml itself (``kimi provider remove``); uninstall still takes out
    exactly our hook tables and leaves Kimi's edit and the user's text."""
    home = tmp_path / "home"
    user = (
        '# mine\ndefault_model = "k2"\n\n[providers.moonshot]\ntype = "kimi"\napi_key = "sk-1"\n'
        '\n[providers.other]\ntype = "openai"\napi_key = "sk-2"\n\n[models.k2]\n'
        'provider = "moonshot"\nmodel = "kimi-k2"\nmax_context_size = 262144\n'
    )
    build(home, {".kimi-code/config.toml": user})
    assert run_cli(["--kimi", "--global", "--yes"], home).returncode == 0
    removed = run_kimi(home, project, "provider", "remove", "other")
    assert removed.returncode == 0 and 'Removed provider "other"' in removed.stdout
    config = (home / ".kimi-code/config.toml").read_text()
    assert "[providers.other]" not in config and config.count("[[hooks]]") == 2
    assert run_cli(["--kimi", "--global", "--yes", "--uninstall"], home).returncode == 0
    left = (home / ".kimi-code/config.toml").read_text()
    assert left == user.replace('\n[providers.other]\ntype = "openai"\napi_key = "sk-2"\n', "\n")
    assert run_kimi(home, project, "doctor", "config").returncode == 0


def test_kimi_drops_what_advisory_hooks_print(tmp_path: Path, project: Path) -> None:
    """Why only the blocking guards are registered: Kimi runs SessionStart, PreToolUse and
    PostToolUse hooks but none of what they print (Claude's ``additionalContext``, Kimi's own
    ``message``, plain text) reaches the model. The hooks here are the test's own."""
    home = tmp_path / "home"
    ran = tmp_path / "ran.txt"
    said = {
        "hookSpecificOutput": {"additionalContext": "MARK-CONTEXT", "message": "MARK-INNER"},
        "message": "MARK-MESSAGE",
        "systemMessage": "MARK-SYSTEM",
    }
    script = tmp_path / "advise.py"
    script.write_text(
        "import json, sys\n"
        f"open({str(ran)!r}, 'a').write(json.load(sys.stdin)['hook_event_name'] + '\\n')\n"
        f"print(json.dumps({said!r}))\n"
    )
    tables = "".join(
        f'[[hooks]]\nevent = "{event}"\ncommand = "python3 {script}"\ntimeout = 10\n\n'
        for event in ("SessionStart", "PreToolUse", "PostToolUse")
    )
    build(home, {".kimi-code/config.toml": tables})
    build(project, {"README.md": "# hello\n"})
    assert run_kimi(home, project, "doctor", "config").returncode == 0
    with (
        OpenAIStub("TRIGGER", "Read", {"path": "README.md"}) as stub,
        AcpSession(home, project, stub) as kimi,
    ):
        kimi.prompt("TRIGGER: read the README")
    # PostToolUse hooks are started and not awaited (and killed with the tool call's signal:
    # in some runs here one never got to write), so only these two are certain
    assert {"SessionStart", "PreToolUse"} <= set(ran.read_text().split()), ran.read_text()
    assert len(stub.requests) == 2  # the tool call and the answer after its result
    assert "# hello" in stub.tool_results()[0]
    assert "MARK" not in json.dumps(stub.requests)


def test_both_scopes_list_each_item_once(tmp_path: Path, project: Path) -> None:
    """Installed globally and in the project: Kimi keys skills, agents and servers by name
    (the project's win), so each msd item is listed once and the project's server runs."""
    home = tmp_path / "home"
    home.mkdir()
    assert run_cli(["--kimi", "--global", "--yes"], home).returncode == 0
    assert run_cli(["--kimi", "--local", "--yes"], home, cwd=project).returncode == 0
    trust(home, project)
    with OpenAIStub() as stub, AcpSession(home, project, stub) as kimi:
        assert_once(kimi.skills(), SKILLS)
        assert list(connected(kimi)) == ["msd"]
        started_as_registered(servers(project / ".kimi-code")["msd"])
        kimi.prompt("hello")
    assert_once(agent_types(stub.requests[0]), AGENTS)
    assert_once(prompt_skills(stub.requests[0]), SKILLS)
    assert f"Path: {project}/.kimi-code/skills/msd-help/SKILL.md" in system_prompt(stub.requests[0])
