"""What the real ``opencode`` (1.18.33) takes in after our install, in a throw-away home.

Global and local: ``opencode mcp list`` shows ``msd`` connected, ``opencode agent list`` our 10
agents as subagents, ``opencode debug skill`` our 28 skills (22 commands + 6 routers) once
each, ``opencode debug config`` resolves with no error and holds our server exactly as
registered, which then answers ``initialize``; ``opencode debug agent`` shows the tools each
agent gets. Side by side with Claude Code every msd name is listed once, before and after
either is uninstalled. The traps of issue 8 are shown to be real with the same CLI.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from e2e_clis import require
from opencode_family import (
    FOLDER,
    LOCAL,
    MSD_AGENTS,
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
    '{\n  "$schema": "https://opencode.ai/config.json",\n'
    "  // mine, with a trailing comma OpenCode accepts\n"
    '  "mcp": {"tiny": {"type": "local", "command": ["true"], "enabled": false},},\n}\n'
)
# granted OpenCode tools per Claude tool (debug agent shows write and edit separately)
GRANTS = {"Read": {"read"}, "Write": {"write", "edit"}, "Edit": {"write", "edit"},
          "Bash": {"bash"}, "Glob": {"glob"}, "Grep": {"grep"}, "WebFetch": {"webfetch"},
          "WebSearch": {"websearch"}}  # fmt: skip


def _check_loaded(home: Path, cwd: Path, root: Path) -> None:
    """Every msd agent, skill and the server, loaded once from ``root``, with no error."""
    config = debug_json("opencode", home, cwd, "config")
    server = config["mcp"]["msd"]
    launcher = root / "msd-core/bin/msd-mcp"  # a project's is relative to it (committed)
    named = launcher.relative_to(cwd).as_posix() if launcher.is_relative_to(cwd) else str(launcher)
    assert server["command"][1:] == ["-I", "-S", named]
    assert not [c for c in config.get("command", {}) if c.startswith("msd-")]  # skills only
    answer = initialize(server, home, cwd)
    assert answer["result"]["serverInfo"]["name"], answer
    assert mcp_status("opencode", home, cwd)["msd"] == ["connected"]

    modes = agent_modes("opencode", home, cwd)
    ours = {name: n for (name, mode), n in modes.items() if name.startswith("msd-")}
    assert ours == {a.name: 1 for a in load().agents}
    assert all(mode == "subagent" for (name, mode) in modes if name.startswith("msd-"))

    skills = msd_skills("opencode", home, cwd)
    names = [s["name"] for s in skills]
    assert len(names) == MSD_SKILLS == len(set(names))
    assert {Path(s["location"]).parent.parent for s in skills} == {root / "skills"}

    for agent in load().agents:
        shown = debug_json("opencode", home, cwd, "agent", agent.name)
        granted = {tool for tool, on in shown["tools"].items() if on and tool != "invalid"}
        want = set().union(*(GRANTS[t] for t in agent.tools))
        assert granted == want, agent.name
        assert re.fullmatch(r"#[0-9A-F]{6}", shown["color"]) and shown.get("model") is None
        break  # one agent is enough here: every agent's frontmatter is pinned by unit tests


def test_global_install_is_loaded_by_opencode(tmp_path: Path) -> None:
    require("opencode")
    home, work = tmp_path / "home", project(tmp_path)
    build(home / FOLDER["opencode"], {"opencode.jsonc": USER_CONFIG})
    before = snapshot(home)
    install("opencode", "global", home, work)
    root = home / FOLDER["opencode"]
    assert "tiny" in debug_json("opencode", home, work, "config")["mcp"]  # the user's is kept
    _check_loaded(home, work, root)
    assert run_cli(["--opencode", "--global", "--yes", "--uninstall"], home).returncode == 0
    only_runtime_leftovers(before, snapshot(home))
    assert "msd" not in debug_json("opencode", home, work, "config").get("mcp", {})


def test_local_install_is_loaded_by_opencode(tmp_path: Path) -> None:
    require("opencode")
    home, work = tmp_path / "home", project(tmp_path)
    home.mkdir()
    build(work, {"opencode.json": '{"$schema": "https://opencode.ai/config.json"}\n'})
    before = snapshot(work)
    install("opencode", "local", home, work)
    _check_loaded(home, work, work / LOCAL["opencode"])
    assert run_cli(["--opencode", "--local", "--yes", "--uninstall"], home, work).returncode == 0
    only_runtime_leftovers(before, snapshot(work))


@pytest.mark.parametrize(
    ("front", "message"),
    [
        ("tools: [read, grep]", 'Expected object | undefined, got ["read","grep"]'),
        ("tools: Read, Grep", 'Expected object | undefined, got "Read, Grep"'),
        ("color: green", "Expected a string matching the RegExp ^#[0-9a-fA-F]{6}$"),
    ],
)
def test_the_agent_traps_fail_every_opencode_command(
    tmp_path: Path, front: str, message: str
) -> None:
    """Why our agents carry a permission map and a hex colour: one agent with a tool list, a
    Claude tool string or a colour word stops every opencode command (and our checks see it)."""
    require("opencode")
    home, work = tmp_path / "home", project(tmp_path)
    install("opencode", "global", home, work)
    bad = home / FOLDER["opencode"] / "agents/user-agent.md"
    bad.write_text(f"---\ndescription: x\nmode: subagent\n{front}\n---\nA body of text.\n")
    commands = [("mcp", "list"), ("agent", "list")] if "[" in front else [("agent", "list")]
    for args in commands:
        out = cli("opencode", home, work, *args, ok=False)
        assert f"Configuration is invalid at {bad}" in out and message in out, out[-1500:]


def test_a_claude_model_tier_becomes_a_broken_model(tmp_path: Path) -> None:
    """Why the model tier is dropped: ``model: opus`` is accepted and names no provider."""
    require("opencode")
    home, work = tmp_path / "home", project(tmp_path)
    build(
        home / FOLDER["opencode"],
        {"agents/tiered.md": "---\ndescription: x\nmode: subagent\nmodel: opus\n---\nBody text.\n"},
    )
    shown = debug_json("opencode", home, work, "agent", "tiered")
    assert shown["model"] == {"providerID": "opus", "modelID": ""}


def _claude_copy_works(skill: dict[str, object], home: Path) -> None:
    """A skill OpenCode took from ``~/.claude/skills``: its ``@`` files are Claude's install."""
    text = str(skill["content"])
    refs = re.findall(r"^@(~/\S+)$", text, re.M)
    for ref in refs:
        assert (home / ref[2:]).is_file(), ref


def test_side_by_side_with_claude_every_msd_item_is_listed_once(tmp_path: Path) -> None:
    """OpenCode reads ``~/.claude/skills`` too: a name found twice is listed once (the copy
    that wins varies from run to run), and either copy works while its install is there."""
    require("opencode")
    home, work = tmp_path / "home", project(tmp_path)
    home.mkdir()
    assert run_cli(["--claude", "--global", "--yes"], home).returncode == 0
    claude_before = snapshot(home / ".claude")
    install("opencode", "global", home, work)
    root = home / FOLDER["opencode"]
    skills = msd_skills("opencode", home, work)
    assert sorted(s["name"] for s in skills) == sorted({s["name"] for s in skills})
    assert len(skills) == MSD_SKILLS
    for skill in skills:
        if str(skill["location"]).startswith(str(home / ".claude")):
            _claude_copy_works(skill, home)
        else:
            assert str(skill["location"]).startswith(str(root))
    assert mcp_status("opencode", home, work) == {"msd": ["connected"]}
    commands = [c for c in served_commands("opencode", home, work) if c["name"].startswith("msd-")]
    assert sorted(c["name"] for c in commands) == sorted(s["name"] for s in skills)
    assert {c["source"] for c in commands} == {"skill"}

    # Claude goes: OpenCode keeps every item, now all from its own folder
    assert run_cli(["--claude", "--global", "--yes", "--uninstall"], home).returncode == 0
    skills = msd_skills("opencode", home, work)
    assert len(skills) == MSD_SKILLS
    assert {Path(s["location"]).parent.parent for s in skills} == {root / "skills"}
    agents = [n for (n, _m) in agent_modes("opencode", home, work) if n.startswith("msd-")]
    assert len(agents) == MSD_AGENTS

    # Claude back, OpenCode goes: Claude's install is untouched and still listed once
    assert run_cli(["--claude", "--global", "--yes"], home).returncode == 0
    assert run_cli(["--opencode", "--global", "--yes", "--uninstall"], home).returncode == 0
    assert snapshot(home / ".claude") == claude_before
    skills = msd_skills("opencode", home, work)
    assert len(skills) == MSD_SKILLS
    assert {Path(s["location"]).parent.parent for s in skills} == {home / ".claude/skills"}


def test_local_side_by_side_with_claude_and_kilo(tmp_path: Path) -> None:
    """One project with Claude, OpenCode and Kilo installed locally: OpenCode lists every msd
    item once, and its server stays out of Kilo (it lives in ``.opencode/``, which Kilo does
    not read, not in the root ``opencode.json``, which it does)."""
    require("opencode")
    require("kilo")
    home, work = tmp_path / "home", project(tmp_path)
    home.mkdir()
    before = snapshot(work)
    for rt in ("claude", "opencode", "kilo"):
        install(rt, "local", home, work)
    skills = msd_skills("opencode", home, work)
    assert len(skills) == MSD_SKILLS == len({s["name"] for s in skills})
    assert mcp_status("opencode", home, work) == {"msd": ["connected"]}
    kilo = mcp_status("kilo", home, work)
    assert kilo == {"msd": ["connected"]}
    resolved = debug_json("kilo", home, work, "config")["mcp"]["msd"]["command"]
    assert resolved[-1] == ".kilo/msd-core/bin/msd-mcp"  # committed: relative to the project
    assert run_cli(["--opencode", "--local", "--yes", "--uninstall"], home, work).returncode == 0
    skills = msd_skills("kilo", home, work)  # Kilo never used anything of OpenCode's
    assert len(skills) == MSD_SKILLS == len({s["name"] for s in skills})
    assert {Path(s["location"]).parent.parent for s in skills} == {work / ".kilo/skills"}
    for rt in ("kilo", "claude"):
        assert run_cli([f"--{rt}", "--local", "--yes", "--uninstall"], home, work).returncode == 0
    only_runtime_leftovers(before, snapshot(work))
