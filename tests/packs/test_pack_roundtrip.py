"""A third-party pack through the real CLI: installed namespaced into several runtimes, in
both scopes, beside MSD Core, and removed again in every order down to the original bytes.

The promise: ``--payload DIR`` and ``--uninstall --pack NAME`` act on that pack only; MSD
Core's install and uninstall never touch the pack's files or entries, and the shared config
files (hooks in ``settings.json``, ``hooks.json``) come back byte for byte whatever the order.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from packkit import make_pack

from helpers import build, run_cli, snapshot

RUNTIMES = ("claude", "codex", "gemini", "opencode", "cursor", "copilot")
SCOPES = ("--global", "--local")
# the user's own config, with CRLF line endings and comments where the format has them
USER = {
    ".claude/settings.json": '{\r\n  "model": "opus",\r\n  "hooks": {\r\n    "PreToolUse": [\r\n'
    '      {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo mine"}]}\r\n'
    "    ]\r\n  }\r\n}",
    ".gemini/settings.json": '{\n  // mine\n  "theme": "dark"\n}\n',
    ".codex/config.toml": '# mine\nmodel = "o3"\n',
    ".cursor/mcp.json": '{"mcpServers": {"mine": {"command": "x"}}}\n',
    ".hermes/config.yaml": "# mine\nmodel:\n  default: x\n",
}


def _setup(tmp_path: Path, scope: str) -> tuple[Path, Path, Path]:
    home = tmp_path / "home"
    project = home / "proj"
    project.mkdir(parents=True)
    base = project if scope == "--local" else home
    build(base, USER)
    return home, project if scope == "--local" else home, make_pack(tmp_path / "acme-kit")


def _ok(args: list[str], home: Path, cwd: Path) -> str:
    proc = run_cli([*args, "--yes"], home, cwd)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    return proc.stdout


@pytest.mark.parametrize(
    ("runtime", "scope"),
    # Hermes (YAML, whose parents come with an entry) has a global scope only
    [(r, s) for r in RUNTIMES for s in SCOPES] + [("hermes", "--global")],
)
def test_pack_beside_msd_core_in_every_order(tmp_path: Path, runtime: str, scope: str) -> None:
    home, cwd, pack = _setup(tmp_path, scope)
    original = snapshot(home)
    rt = [f"--{runtime}", scope]
    add_pack, drop_pack = [*rt, "--payload", str(pack)], [*rt, "--uninstall", "--pack", "acme"]
    add_core, drop_core = rt, [*rt, "--uninstall"]

    # the pack alone
    _ok(add_pack, home, cwd)
    pack_only = snapshot(home)
    _ok(drop_pack, home, cwd)
    assert snapshot(home) == original

    # MSD Core, then the pack: removing the pack gives back MSD Core's install, byte for byte
    _ok(add_core, home, cwd)
    core_only = snapshot(home)
    _ok(add_pack, home, cwd)
    _ok([*rt, "--uninstall", "--payload", str(pack)], home, cwd)
    assert snapshot(home) == core_only
    # ... and removing MSD Core under the pack leaves what the pack alone installs
    _ok(add_pack, home, cwd)
    _ok(drop_core, home, cwd)
    assert _semantic(snapshot(home)) == _semantic(pack_only)
    _ok(drop_pack, home, cwd)
    assert snapshot(home) == original

    # the pack, then MSD Core: removing the pack leaves what MSD Core alone installs
    _ok(add_pack, home, cwd)
    _ok(add_core, home, cwd)
    _ok(drop_pack, home, cwd)
    assert _semantic(snapshot(home)) == _semantic(core_only)
    _ok(drop_core, home, cwd)
    assert snapshot(home) == original


def _semantic(tree: dict) -> dict:
    """The tree with JSON config files parsed: after MSD Core made the hook containers (in its
    order) and went, the pack's hooks sit in them, the same entries in another key order.
    The manifests and the user's record of them differ too: MSD Core's uninstall hands the
    structure it made over to the pack's manifest (installer/handover.py)."""
    out = {}
    for rel, value in tree.items():
        if ".local/state" in rel or "msd-file-manifest" in rel:
            continue
        if rel.endswith(("hooks.json", "settings.json")):  # JSONC: our fixture's // lines
            value = json.loads(re.sub(rb"(?m)^\s*//.*$", b"", value[0]))
        out[rel] = value
    return out


@pytest.mark.parametrize(
    ("runtime", "expected"),
    [
        (
            "claude",
            (
                ".claude/skills/acme-review/SKILL.md",
                ".claude/skills/acme-git-commit/SKILL.md",
                ".claude/skills/acme-git-pr-open/SKILL.md",
                ".claude/skills/acme-lint/SKILL.md",
                ".claude/skills/acme-lint/reference.md",
                ".claude/skills/acme-lint/scripts/run_lint.py",
                ".claude/agents/acme-reviewer.md",
                ".claude/agents/acme-fixer.md",
                ".claude/hooks/acme/guard.py",
                ".claude/hooks/acme/helper.py",
                ".claude/hooks/acme/format.sh",
                ".claude/hooks/acme/banner.js",
                ".claude/hooks/acme/lib/common.sh",
                ".claude/hooks/acme/lib/index.js",
                ".claude/acme/references/style.md",
                ".claude/acme/templates/pr.md",
                ".claude/acme/scripts/check.sh",
                ".claude/msd-file-manifest.acme.json",
            ),
        ),
        (
            "codex",
            (
                ".codex/skills/acme-git-commit/SKILL.md",
                ".codex/skills/acme-lint/scripts/run_lint.py",
                ".codex/agents/acme-reviewer.toml",
                ".codex/hooks/acme/guard.py",
                ".codex/acme/references/style.md",
                ".codex/msd-file-manifest.acme.json",
            ),
        ),
        (
            "gemini",
            (
                ".gemini/commands/acme-git-commit.toml",
                ".gemini/agents/acme-reviewer.md",
                ".gemini/skills/acme-lint/reference.md",
                ".gemini/acme/templates/commit.md",
                ".gemini/msd-file-manifest.acme.json",
            ),
        ),
    ],
)
def test_pack_files_are_namespaced(tmp_path: Path, runtime: str, expected: tuple[str, ...]) -> None:
    home, cwd, pack = _setup(tmp_path, "--global")
    before = set(snapshot(home))
    _ok([f"--{runtime}", "--global", "--payload", str(pack)], home, cwd)
    added = {k for k in set(snapshot(home)) - before if not k.endswith("/")}
    assert set(expected) <= added, sorted(set(expected) - added)
    runtime_root = expected[0].split("/")[0]
    for rel in added - {".local/state/msd/manifests.json", f"{runtime_root}/settings.json",
                        f"{runtime_root}/hooks.json"}:  # fmt: skip
        parts = rel.split("/")[1:]
        if parts == ["msd-file-manifest.acme.json"]:
            continue
        assert any(p == "acme" or p.startswith("acme-") for p in parts), rel
        assert not any(p.startswith("msd-") for p in parts), rel
    # nothing of the plugin's top level (README, LICENSE, package.json) is installed
    assert not any(k.endswith(("README.md", "LICENSE", "package.json")) for k in added)


def test_pack_text_is_rewritten_for_its_namespace(tmp_path: Path) -> None:
    home, cwd, pack = _setup(tmp_path, "--global")
    _ok(["--claude", "--global", "--payload", str(pack)], home, cwd)
    review = (home / ".claude/skills/acme-review/SKILL.md").read_text()
    assert review.startswith("---\nname: acme-review\ndescription: Review the current diff")
    assert "@~/.claude/acme/references/style.md" in review  # ${CLAUDE_PLUGIN_ROOT} -> its folder
    assert 'subagent_type="acme-reviewer"' in review
    assert "CLAUDE_PLUGIN_ROOT" not in review
    agent = (home / ".claude/agents/acme-reviewer.md").read_text()
    assert agent.startswith("---\nname: acme-reviewer\ndescription: Reviews diffs")
    assert "tools: Read, Grep, Glob" in agent
    assert (home / ".claude/acme/scripts/check.sh").stat().st_mode & 0o111


def test_core_uninstall_never_touches_the_pack_and_reinstall_is_identical(tmp_path: Path) -> None:
    home, cwd, pack = _setup(tmp_path, "--global")
    _ok(["--claude", "--global", "--payload", str(pack)], home, cwd)
    again = run_cli(["--claude", "--global", "--payload", str(pack), "--json", "--yes"], home, cwd)
    doc = json.loads(again.stdout)
    assert {a["verb"] for a in doc["results"][0]["actions"]} == {"identical"}
    proc = run_cli(["--claude", "--global", "--uninstall", "--yes"], home, cwd)
    assert proc.returncode == 0
    assert "nothing to uninstall: no msd-file-manifest.json" in proc.stdout
    assert (home / ".claude/skills/acme-review/SKILL.md").is_file()
    check = run_cli(["--claude", "--global", "--payload", str(pack), "--check"], home, cwd)
    assert check.returncode == 0, check.stdout
