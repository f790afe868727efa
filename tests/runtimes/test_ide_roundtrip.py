"""Cursor, Windsurf, Google Antigravity and Trae through the real ``msd-install`` process.

Per runtime and scope, a home and a project seeded with what a user of that runtime has (their
own MCP servers, hooks, rules, skills and workflows, CRLF line ends, a neighbouring runtime's
files): install keeps every byte of theirs and adds ours, a reinstall writes nothing, uninstall
gives back the seeded trees byte for byte, a dry run writes nothing, and a config file the
runtime could not parse is refused with one line (exit 4).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers import build, run_cli, run_json, snapshot, verbs

CRLF_MCP = (
    '{\r\n  "mcpServers": {\r\n    "db": {"command": "db-mcp", "args": ["--ro"]}\r\n  }\r\n}\r\n'
)
SHARED_SKILL = "---\nname: shared\ndescription: read by many runtimes\n---\nBody.\n"

# runtime -> scope -> (files in the home, files in the project)
SEEDS: dict[str, dict[str, tuple[dict[str, str], dict[str, str]]]] = {
    "cursor": {
        "global": (
            {
                ".cursor/mcp.json": CRLF_MCP,
                ".cursor/hooks.json": json.dumps(
                    {
                        "version": 1,
                        "hooks": {
                            "preToolUse": [{"command": "./hooks/my-guard.sh", "matcher": "Shell"}],
                            "stop": [{"command": "notify-send done"}],
                        },
                    },
                    indent=2,
                ),
                ".cursor/skills/my-skill/SKILL.md": "---\nname: my-skill\ndescription: mine\n---\n",
                ".cursor/commands/mine.md": "# Mine\nDo my thing.\n",
                ".cursor/agents/my-agent.md": "---\nname: my-agent\ndescription: mine\n---\n",
                ".cursor/cli-config.json": '{"permissions": {"allow": ["Shell(ls)"]}}',
            },
            {},
        ),
        "local": (
            {".cursor/mcp.json": CRLF_MCP},
            {
                ".cursor/mcp.json": '{"mcpServers": {"team": {"url": "http://127.0.0.1:9/mcp"}}}',
                ".cursor/hooks.json": (
                    '{"version": 1, "hooks": {"afterFileEdit": [{"command": "fmt"}]}}'
                ),
                ".cursor/rules/team.mdc": (
                    "---\ndescription: team\nalwaysApply: true\n---\nBe nice.\n"
                ),
                "AGENTS.md": "# Team rules\n",
                ".agents/skills/shared/SKILL.md": SHARED_SKILL,
            },
        ),
    },
    "windsurf": {
        "global": (
            {
                ".codeium/windsurf/mcp_config.json": CRLF_MCP,
                ".codeium/windsurf/hooks.json": json.dumps(
                    {
                        "hooks": {
                            "pre_run_command": [{"command": "my-guard", "show_output": True}],
                            "post_write_code": [{"command": "prettier --write"}],
                        }
                    }
                ),
                ".codeium/windsurf/memories/global_rules.md": "Always answer in English.\n",
                ".codeium/windsurf/global_workflows/deploy.md": "---\ndescription: d\n---\nGo.\n",
                ".codeium/windsurf/skills/mine/SKILL.md": "---\nname: mine\ndescription: m\n---\n",
            },
            {},
        ),
        "local": (
            {".codeium/windsurf/mcp_config.json": CRLF_MCP},
            {
                ".windsurf/hooks.json": '{"hooks": {"pre_read_code": [{"command": "audit"}]}}',
                ".windsurf/rules/team.md": "---\ntrigger: always_on\n---\nBe nice.\n",
                ".windsurf/workflows/deploy.md": "---\ndescription: d\n---\nGo.\n",
                ".windsurfrules": "legacy rules\n",
                ".agents/skills/shared/SKILL.md": SHARED_SKILL,
            },
        ),
    },
    "antigravity": {
        "global": (
            {
                ".gemini/config/hooks.json": json.dumps(
                    {
                        "audit": {
                            "PreToolUse": [
                                {"matcher": "*", "hooks": [{"type": "command", "command": "log"}]}
                            ]
                        }
                    },
                    indent=2,
                ),
                ".gemini/config/mcp_config.json": CRLF_MCP,
                ".gemini/config/skills/mine/SKILL.md": "---\nname: mine\ndescription: m\n---\n",
                ".gemini/GEMINI.md": "Global rules shared with Gemini CLI.\n",
                ".gemini/settings.json": (
                    '{\n  // Gemini CLI\'s own settings\n  "theme": "dark"\n}\n'
                ),
                ".gemini/antigravity/global_workflows/deploy.md": "---\ndescription: d\n---\n",
                ".gemini/antigravity/brain/c1/task.md": "- [ ] a task\n",
            },
            {},
        ),
        "local": (
            {".gemini/config/mcp_config.json": CRLF_MCP},
            {
                ".agent/rules/team.md": "---\ntrigger: always_on\n---\nBe nice.\n",
                ".agent/hooks.json": '{"team": {"Stop": [{"command": "make lint"}]}}',
                ".agent/mcp_config.json": '{"mcpServers": {"team": {"command": "team-mcp"}}}',
                ".agents/skills/shared/SKILL.md": SHARED_SKILL,
                "GEMINI.md": "# Project context\n",
            },
        ),
    },
    "trae": {
        "global": (
            {
                ".config/Trae/User/mcp.json": (
                    '{"mcpServers": {"db": {"command": "db-mcp"}}, "inputs": []}\r\n'
                ),
                ".config/Trae/User/settings.json": "{\n  // Trae's editor settings\n}\n",
                ".trae/skills/mine/SKILL.md": "---\nname: mine\ndescription: m\n---\n",
            },
            {},
        ),
        "local": (
            {},
            {
                ".trae/mcp.json": CRLF_MCP,
                ".trae/rules/project_rules.md": "Use tabs.\n",
                ".trae/rules/user_rules.md": "Answer briefly.\n",
                ".agents/skills/shared/SKILL.md": SHARED_SKILL,
            },
        ),
    },
}
# where each install's MCP server lands (relative to the home or the project)
MCP = {
    ("cursor", "global"): ("home", ".cursor/mcp.json"),
    ("cursor", "local"): ("project", ".cursor/mcp.json"),
    ("windsurf", "global"): ("home", ".codeium/windsurf/mcp_config.json"),
    ("antigravity", "global"): ("home", ".gemini/config/mcp_config.json"),
    ("antigravity", "local"): ("project", ".agent/mcp_config.json"),
    ("trae", "global"): ("home", ".config/Trae/User/mcp.json"),
    ("trae", "local"): ("project", ".trae/mcp.json"),
}
CASES = [(name, scope) for name in SEEDS for scope in ("global", "local")]


def seeded(tmp_path: Path, name: str, scope: str) -> tuple[Path, Path]:
    home, project = tmp_path / "home", tmp_path / "project"
    home_files, project_files = SEEDS[name][scope]
    build(home, home_files)
    build(project, {"src/app.py": "print('hi')\n", **project_files})
    return home, project


def strict(path: Path) -> Any:
    return json.loads(path.read_bytes())


@pytest.mark.parametrize(("name", "scope"), CASES)
def test_round_trip_keeps_every_user_byte(tmp_path: Path, name: str, scope: str) -> None:
    home, project = seeded(tmp_path, name, scope)
    before = (snapshot(home), snapshot(project))
    args = [f"--{name}", f"--{scope}", "--yes"]
    dry = run_json([*args, "--dry-run"], home, cwd=project)
    assert dry["results"][0]["dry_run"] is True and verbs(dry)["create"] > 100
    assert (snapshot(home), snapshot(project)) == before
    proc = run_cli(args, home, cwd=project)
    assert proc.returncode == 0, proc.stderr
    if (name, scope) in MCP:
        base, rel = MCP[name, scope]
        config = (home if base == "home" else project) / rel
        servers = strict(config)["mcpServers"]
        assert servers["msd"]["args"][:2] == ["-I", "-S"]
        seeded_here = SEEDS[name][scope][0 if base == "home" else 1].get(rel)
        if seeded_here:  # the user's own servers are still there, unchanged
            for user, value in json.loads(seeded_here)["mcpServers"].items():
                assert servers[user] == value
    again = run_json(args, home, cwd=project)
    assert set(verbs(again)) == {"identical"}, verbs(again)
    assert run_cli([*args, "--uninstall"], home, cwd=project).returncode == 0
    assert (snapshot(home), snapshot(project)) == before


@pytest.mark.parametrize(("name", "scope"), CASES)
def test_empty_home_and_project_end_empty(tmp_path: Path, name: str, scope: str) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    args = [f"--{name}", f"--{scope}", "--yes"]
    assert run_cli(args, home, cwd=project).returncode == 0
    assert run_cli([*args, "--uninstall"], home, cwd=project).returncode == 0
    assert (snapshot(home), snapshot(project)) == ({}, {})


def test_user_hooks_stay_beside_ours(tmp_path: Path) -> None:
    home, project = seeded(tmp_path, "cursor", "global")
    assert run_cli(["--cursor", "--global", "--yes"], home, cwd=project).returncode == 0
    hooks = strict(home / ".cursor/hooks.json")
    assert hooks["version"] == 1
    pre = hooks["hooks"]["preToolUse"]
    assert pre[0] == {"command": "./hooks/my-guard.sh", "matcher": "Shell"}
    assert len(pre) == 1 + 4 and hooks["hooks"]["stop"] == [{"command": "notify-send done"}]

    home, project = seeded(tmp_path / "w", "windsurf", "global")
    assert run_cli(["--windsurf", "--global", "--yes"], home, cwd=project).returncode == 0
    hooks = strict(home / ".codeium/windsurf/hooks.json")["hooks"]
    assert hooks["pre_run_command"][0] == {"command": "my-guard", "show_output": True}
    assert len(hooks["pre_run_command"]) == 3 and len(hooks["pre_read_code"]) == 1

    home, project = seeded(tmp_path / "a", "antigravity", "global")
    assert run_cli(["--antigravity", "--global", "--yes"], home, cwd=project).returncode == 0
    hooks = strict(home / ".gemini/config/hooks.json")
    assert list(hooks) == ["audit", "msd"] and len(hooks["msd"]["PreToolUse"]) == 2


@pytest.mark.parametrize(
    ("name", "file", "content"),
    [
        ("cursor", ".cursor/mcp.json", '{\n  // a comment\n  "mcpServers": {}\n}\n'),
        ("cursor", ".cursor/hooks.json", '{"version": 1, "hooks": {},}'),
        ("windsurf", ".codeium/windsurf/mcp_config.json", '{"mcpServers": {'),
        ("windsurf", ".codeium/windsurf/hooks.json", "[1, 2]"),
        ("antigravity", ".gemini/config/hooks.json", '{"a": {}} // trailing'),
        ("antigravity", ".gemini/config/mcp_config.json", "{'mcpServers': {}}"),
        ("trae", ".config/Trae/User/mcp.json", '{"mcpServers": {}, /* c */}'),
    ],
)
def test_configs_the_runtime_cannot_parse_are_refused(
    tmp_path: Path, name: str, file: str, content: str
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    build(home, {file: content})
    project.mkdir()
    before = snapshot(home)
    proc = run_cli([f"--{name}", "--global", "--yes"], home, cwd=project)
    assert proc.returncode == 4, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert str(home / file) in lines[0]
    assert snapshot(home) == before and snapshot(project) == {}


def test_users_own_msd_server_is_a_conflict(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    build(home, {".cursor/mcp.json": '{"mcpServers": {"msd": {"command": "my-msd"}}}'})
    project.mkdir()
    before = snapshot(home)
    proc = run_cli(["--cursor", "--global", "--yes"], home, cwd=project)
    assert proc.returncode == 1 and "conflict" in proc.stdout
    assert strict(home / ".cursor/mcp.json")["mcpServers"]["msd"] == {"command": "my-msd"}
    assert (
        run_cli(["--cursor", "--global", "--yes", "--uninstall"], home, cwd=project).returncode == 0
    )
    assert snapshot(home) == before


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_side_by_side_with_claude_code_each_keeps_its_own(tmp_path: Path, name: str) -> None:
    """Cursor reads ~/.claude/skills, Windsurf .claude/skills, Trae CLAUDE.md: with both
    installed, removing either leaves the other's files and config exactly as they were."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    claude = ["--claude", "--global", "--yes"]
    ours = [f"--{name}", "--global", "--yes"]
    assert run_cli(claude, home, cwd=project).returncode == 0
    with_claude = snapshot(home)
    assert run_cli(ours, home, cwd=project).returncode == 0
    both = snapshot(home)
    assert run_cli([*ours, "--uninstall"], home, cwd=project).returncode == 0
    assert snapshot(home) == with_claude
    assert run_cli(ours, home, cwd=project).returncode == 0
    assert run_cli([*claude, "--uninstall"], home, cwd=project).returncode == 0
    assert {k: v for k, v in both.items() if not k.startswith((".claude", ".local"))} == {
        k: v for k, v in snapshot(home).items() if not k.startswith(".local")
    }
