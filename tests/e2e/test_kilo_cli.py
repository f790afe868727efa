"""What the real ``kilo`` (7.7.7, an OpenCode fork) takes in after our install.

Global and local: ``kilo mcp list`` shows ``msd`` connected, ``kilo agent list`` our 10 agents
as subagents, ``kilo config check`` says ``No config warnings.``, ``kilo debug skill`` lists our
28 skills once each (Kilo's own copy, trusted where Kilo trusts it), and the server in
``kilo debug config`` answers ``initialize`` when started exactly as registered. Side by side
with Claude Code and OpenCode, Kilo's slash-command list holds every msd name once.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e_clis import require
from opencode_family import (
    FOLDER,
    LOCAL,
    MSD_SKILLS,
    agent_modes,
    cli,
    debug_json,
    initialize,
    install,
    mcp_status,
    msd_skills,
    only_runtime_leftovers,
    project,
    served_commands,
)

from helpers import build, run_cli, snapshot
from msd_install.payload import load

pytestmark = pytest.mark.e2e

USER_CONFIG = (
    '{\n  "$schema": "https://app.kilo.ai/config.json",\n  // mine\n'
    '  "mcp": {"tiny": {"type": "local", "command": ["true"], "enabled": false},},\n}\n'
)


def _check_loaded(home: Path, cwd: Path, root: Path, *, trusted: bool) -> None:
    assert cli("kilo", home, cwd, "config", "check").strip().endswith("No config warnings.")
    server = debug_json("kilo", home, cwd, "config")["mcp"]["msd"]
    launcher = root / "msd-core/bin/msd-mcp"  # a project's is relative to it (committed)
    named = launcher.relative_to(cwd).as_posix() if launcher.is_relative_to(cwd) else str(launcher)
    assert server["command"][1:] == ["-I", "-S", named]
    assert initialize(server, home, cwd)["result"]["serverInfo"]["name"]
    assert mcp_status("kilo", home, cwd)["msd"] == ["connected"]
    modes = agent_modes("kilo", home, cwd)
    assert {n: c for (n, m), c in modes.items() if n.startswith("msd-") and m == "subagent"} == {
        a.name: 1 for a in load().agents
    }
    skills = msd_skills("kilo", home, cwd)
    assert len(skills) == MSD_SKILLS == len({s["name"] for s in skills})
    assert {Path(s["location"]).parent.parent for s in skills} == {root / "skills"}
    assert {s["trusted"] for s in skills} == {trusted}


def test_global_install_is_loaded_by_kilo(tmp_path: Path) -> None:
    require("kilo")
    home, work = tmp_path / "home", project(tmp_path)
    build(home / FOLDER["kilo"], {"kilo.jsonc": USER_CONFIG})
    before = snapshot(home)
    install("kilo", "global", home, work)
    _check_loaded(home, work, home / FOLDER["kilo"], trusted=True)
    assert run_cli(["--kilo", "--global", "--yes", "--uninstall"], home).returncode == 0
    # Kilo's one-time migration adds permission.bash to the user's global file: its own edit
    after = snapshot(home)
    config = FOLDER["kilo"] + "/kilo.jsonc"
    assert b"msd" not in after.pop(config)[0]
    only_runtime_leftovers({k: v for k, v in before.items() if k != config}, after)


def test_local_install_is_loaded_by_kilo(tmp_path: Path) -> None:
    require("kilo")
    home, work = tmp_path / "home", project(tmp_path)
    home.mkdir()
    build(work, {"opencode.json": '{"$schema": "https://opencode.ai/config.json"}\n'})
    before = snapshot(work)
    install("kilo", "local", home, work)
    # project skills are untrusted in Kilo (they may only reach files inside the project)
    _check_loaded(home, work, work / LOCAL["kilo"], trusted=False)
    assert run_cli(["--kilo", "--local", "--yes", "--uninstall"], home, work).returncode == 0
    only_runtime_leftovers(before, snapshot(work))


def test_config_check_names_a_bad_agent(tmp_path: Path) -> None:
    """The check above can fail: a Claude-style tool string is reported, and only that agent
    is dropped (OpenCode would refuse every command instead)."""
    require("kilo")
    home, work = tmp_path / "home", project(tmp_path)
    install("kilo", "global", home, work)
    bad = home / FOLDER["kilo"] / "agents/user-agent.md"
    bad.write_text("---\ndescription: x\nmode: subagent\ntools: Read, Grep\n---\nA body.\n")
    out = cli("kilo", home, work, "config", "check", ok=False)
    assert f"Config file at {bad} is invalid" in out
    assert 'tools: Expected object | undefined, got "Read, Grep"' in out


def test_side_by_side_every_msd_command_is_listed_once(tmp_path: Path) -> None:
    """Kilo reads ``~/.claude/skills`` and lists a command and a same-named skill twice: with
    msd's commands installed as skills, its command list still has each msd name once, and
    the copies are Kilo's own (it loads skills in order and keeps the last, its own folder)."""
    require("kilo")
    home, work = tmp_path / "home", project(tmp_path)
    home.mkdir()
    for rt in ("claude", "opencode", "kilo"):
        install(rt, "global", home, work)
    claude_installed = snapshot(home / ".claude")
    root = home / FOLDER["kilo"]
    skills = msd_skills("kilo", home, work)
    assert len(skills) == MSD_SKILLS == len({s["name"] for s in skills})
    assert {Path(s["location"]).parent.parent for s in skills} == {root / "skills"}
    assert mcp_status("kilo", home, work) == {"msd": ["connected"]}
    commands = [c for c in served_commands("kilo", home, work) if c["name"].startswith("msd-")]
    assert sorted(c["name"] for c in commands) == sorted(s["name"] for s in skills)
    # OpenCode and Kilo go: Claude's install is untouched, and Kilo lists Claude's copies once
    for rt in ("opencode", "kilo"):
        assert run_cli([f"--{rt}", "--global", "--yes", "--uninstall"], home).returncode == 0
    assert snapshot(home / ".claude") == claude_installed
    skills = msd_skills("kilo", home, work)
    assert len(skills) == MSD_SKILLS == len({s["name"] for s in skills})
    assert {Path(s["location"]).parent.parent for s in skills} == {home / ".claude/skills"}
    # Kilo back, Claude goes: Kilo keeps every item, from its own folder, with a clean check
    install("kilo", "global", home, work)
    assert run_cli(["--claude", "--global", "--yes", "--uninstall"], home).returncode == 0
    skills = msd_skills("kilo", home, work)
    assert len(skills) == MSD_SKILLS
    assert {Path(s["location"]).parent.parent for s in skills} == {root / "skills"}
    assert cli("kilo", home, work, "config", "check").strip().endswith("No config warnings.")
