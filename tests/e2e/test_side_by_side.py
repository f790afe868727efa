"""Claude Code and the seven runtimes of issue 8 in one home (and one project), removed one at
a time in a random order, each CLI asked what it lists after every step.

While a runtime is installed its CLI lists every msd server, skill and agent exactly once; a
removed runtime lists nothing of msd, except what it reads from an install still there (see
``ALSO_READS`` and docs/explanation/side-by-side.md); after the last removal the home and the
project are what they were, byte for byte. The CLIs write their own state into the home they
run in (sessions, caches, Kilo's migration, Qwen's version stamp): that is theirs, not under
test, and is put back after every round of listings, so each install and uninstall sees only
the user's files and msd's. ``MSD_SIDE_SEED`` replays a removal order.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from e2e_clis import require
from listings import NAMES, Seen, listings

from helpers import REGISTRY, build, restore, run_cli, snapshot

pytestmark = pytest.mark.e2e

RUNTIMES = ["claude", "codex", "opencode", "kilo", "gemini", "qwen", "copilot", "augment"]
TOOLS = ["claude", "codex", "opencode", "kilo", "gemini", "qwen", "copilot", "auggie"]
# kinds a runtime's CLI also takes from Claude Code's install of the same scope
ALSO_READS = {
    "global": {("opencode", "skills"), ("kilo", "skills"), ("augment", "skills"),
               ("augment", "agents")},
    "local": {("opencode", "skills"), ("kilo", "skills"), ("augment", "skills"),
              ("augment", "agents"), ("copilot", "skills"), ("copilot", "agents"),
              ("copilot", "mcp"), ("qwen", "mcp")},
}  # fmt: skip
# Gemini holds project agents back until the user acknowledges them, which msd never does
HELD_BACK = {("local", "gemini", "agents")}
SKILL = "---\nname: {0}\ndescription: The user's own {0}.\n---\nThe user's own instructions.\n"
SERVER = {"command": "python3", "args": ["-c", "pass"]}


def seed(tmp_path: Path) -> tuple[Path, Path]:
    """A home and a git project with the user's own config, servers, skills and command, and
    the trust the user gave each CLI that asks for it (never written by msd-install)."""
    home, project = tmp_path / "home", tmp_path / "proj"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True, timeout=60)
    approved = {str(project): {"hasTrustDialogAccepted": True, "enabledMcpjsonServers": ["msd"]}}
    gemini = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False},
        "mcpServers": {"mine": SERVER},
    }
    build(home, {
        ".claude.json": json.dumps({"numStartups": 2, "projects": approved}, indent=2),
        ".claude/settings.json": '{\n  "permissions": {"allow": ["Bash(ls)"]}\n}\n',
        ".claude/skills/my-notes/SKILL.md": SKILL.format("my-notes"),
        ".agents/skills/my-style/SKILL.md": SKILL.format("my-style"),
        ".codex/config.toml": '# mine\nmodel = "gpt-6.2-sol"\n\n[mcp_servers.lab]\n'
        f'command = "python3"\nargs = ["-c", "pass"]\n\n[projects."{project}"]\n'
        'trust_level = "trusted"\n',
        ".config/opencode/opencode.jsonc": '{\n  // mine\n  "mcp": {"tiny": {"type": "local", '
        '"command": ["true"], "enabled": false},},\n}\n',
        ".config/kilo/kilo.jsonc": '{\n  // mine\n  "mcp": {"tiny": {"type": "local", '
        '"command": ["true"], "enabled": false}}\n}\n',
        ".gemini/settings.json": json.dumps(gemini, indent=2),
        ".gemini/commands/mine.toml": 'description = "mine"\nprompt = "Say {{args}}."\n',
        ".qwen/settings.json": '{\n  // mine\n  "mcpServers": {"mine": ' + json.dumps(SERVER)
        + '},\n  "$version": 4\n}\n',
        ".copilot/config.json": json.dumps({"trusted_folders": [str(project)]}),
        ".copilot/mcp-config.json": '// mine\n{"mcpServers": {},}\n',
        ".augment/settings.json": '{\n  // mine\n  "mcpServers": {"db": {"type": "stdio", '
        '"command": "db-mcp", "disabled": true}},\n}\n',
    })  # fmt: skip
    build(project, {
        "README.md": "# demo\n",
        "AGENTS.md": "Project rules.\n",
        "opencode.json": '{"$schema": "https://opencode.ai/config.json"}\n',
        ".claude/settings.json": '{"permissions": {"allow": ["Bash(make test)"]}}\n',
        ".claude/skills/team-notes/SKILL.md": SKILL.format("team-notes"),
        ".agents/skills/team-style/SKILL.md": SKILL.format("team-style"),
        ".gemini/settings.json": json.dumps({"mcpServers": {"team": SERVER}}),
        ".codex/config.toml": "# the team's\n[mcp_servers.team]\ncommand = \"true\"\n",
        ".github/workflows/ci.yml": "on: push\n",
    })  # fmt: skip
    return home, project


def expected(rt: str, kind: str, scope: str, installed: set[str]) -> Counter[str]:
    """Every msd name of ``kind`` once, if an install ``rt`` reads is there; else none."""
    read = rt in installed or ("claude" in installed and (rt, kind) in ALSO_READS[scope])
    return Counter(NAMES[kind]) if read and (scope, rt, kind) not in HELD_BACK else Counter()


def problems(seen: dict[str, Seen], scope: str, installed: set[str]) -> list[str]:
    found: list[str] = []
    for rt, kinds in seen.items():
        for kind, names in kinds.items():
            want = expected(rt, kind, scope, installed)
            if names != want:
                missing = sorted(set(want) - set(names))
                extra = sorted(n for n, c in names.items() if c > want.get(n, 0))
                found.append(f"{rt} {kind}: missing {missing}, extra or twice {extra}")
    return found


def listed(runtimes: list[str], home: Path, project: Path, cache: Path) -> dict[str, Seen]:
    """One round of listings; what the CLIs wrote of their own is put back afterwards."""
    trees = snapshot(home), snapshot(project)
    try:
        return listings(runtimes, home, project, cache)
    finally:
        restore(home, trees[0])
        restore(project, trees[1])


@pytest.fixture(scope="module")
def copilot_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("copilot-cache")


@pytest.mark.timeout(1500)
@pytest.mark.parametrize("scope", ["global", "local"])
def test_eight_runtimes_side_by_side_removed_in_random_order(
    tmp_path: Path, copilot_cache: Path, scope: str
) -> None:
    for tool in TOOLS:
        require(tool)
    home, project = seed(tmp_path)
    home_before, project_before = snapshot(home), snapshot(project)
    for rt in RUNTIMES:
        proc = run_cli([f"--{rt}", f"--{scope}", "--yes"], home, cwd=project)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    number = int(os.environ.get("MSD_SIDE_SEED") or random.randrange(2**32))
    order = random.Random(number).sample(RUNTIMES, len(RUNTIMES))
    replay = f"MSD_SIDE_SEED={number} (removal order {order})"
    installed = set(RUNTIMES)
    seen = listed(RUNTIMES, home, project, copilot_cache)
    assert problems(seen, scope, installed) == [], f"{replay}, all installed"
    for rt in order:
        proc = run_cli([f"--{rt}", f"--{scope}", "--yes", "--uninstall"], home, cwd=project)
        assert proc.returncode == 0, f"{replay}: {proc.stdout}{proc.stderr}"
        installed.discard(rt)
        seen = listed(sorted(installed | {rt}), home, project, copilot_cache)
        assert problems(seen, scope, installed) == [], f"{replay}, after removing {rt}"
    assert snapshot(project) == project_before, replay
    assert not (home / REGISTRY).exists(), replay
    assert snapshot(home) == home_before, replay
