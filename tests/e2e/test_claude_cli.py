"""What Claude Code itself reports after our install: settings valid, MCP server connected."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from e2e_clis import require, run_tool

from helpers import build, run_cli, snapshot

pytestmark = pytest.mark.e2e

SEED = {
    ".claude/settings.json": '{\n    "permissions": {"allow": ["Bash(ls)"]},\n'
    '    "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": '
    '[{"type": "command", "command": "true"}]}]}\n}',
}


def claude(home: Path, cwd: Path, *args: str) -> str:
    proc = run_tool([str(require("claude")), *args], home, cwd)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout + proc.stderr


@pytest.mark.parametrize("seeded", [False, True])
def test_claude_doctor_is_clean_after_global_install(tmp_path: Path, seeded: bool) -> None:
    require("claude")
    home = tmp_path / "home"
    home.mkdir()
    if seeded:
        build(home, SEED)
    before = snapshot(home)
    assert run_cli(["--claude", "--global", "--yes"], home).returncode == 0
    out = claude(home, home, "doctor")
    assert "Claude Code doctor" in out
    assert "Invalid settings" not in out, out
    # claude wrote its own bookkeeping (.claude.json, .claude/backups, .npm); uninstall still
    # takes away everything of ours and gives back the user's settings byte for byte
    assert run_cli(["--claude", "--global", "--yes", "--uninstall"], home).returncode == 0
    after = snapshot(home)
    assert not [p for p in after if "msd" in p]
    for path, content in before.items():
        assert after[path] == content
    state = json.loads((home / ".claude.json").read_text())
    assert "msd" not in state.get("mcpServers", {})


def test_claude_doctor_is_clean_after_local_install(tmp_path: Path) -> None:
    require("claude")
    home, project = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    build(project, SEED)
    assert run_cli(["--claude", "--local", "--yes"], home, cwd=project).returncode == 0
    out = claude(home, project, "doctor")
    assert "Invalid settings" not in out, out


def test_doctor_would_see_a_broken_hook(tmp_path: Path) -> None:
    """The check above can fail: doctor does flag a bad hook entry in the same setup."""
    require("claude")
    home = tmp_path / "home"
    build(
        home,
        {
            ".claude/settings.json": json.dumps(
                {"hooks": {"PreToolUse": [{"matcher": "Read", "hooks": [{"type": "bogus"}]}]}}
            )
        },
    )
    out = claude(home, home, "doctor")
    assert "Invalid settings" in out


def _scratch_copy(home: Path, tmp_path: Path) -> Path:
    """Claude writes bookkeeping into the home it runs in: give it a copy, keep ours exact."""
    copy = tmp_path / "scratch-home"
    shutil.copytree(home, copy, symlinks=True)
    return copy


def test_mcp_server_connected_after_global_install_and_gone_after_uninstall(tmp_path: Path) -> None:
    require("claude")
    home, work = tmp_path / "home", tmp_path / "work"
    build(home, {".claude.json": '{\n  "numStartups": 2,\n  "mcpServers": {}\n}\n'})
    work.mkdir()
    before = (home / ".claude.json").read_bytes()
    assert run_cli(["--claude", "--global", "--yes"], home).returncode == 0
    out = claude(_scratch_copy(home, tmp_path), work, "mcp", "list")
    line = next(ln for ln in out.splitlines() if ln.startswith("msd:"))
    assert line.endswith("✔ Connected"), out
    assert run_cli(["--claude", "--global", "--yes", "--uninstall"], home).returncode == 0
    assert (home / ".claude.json").read_bytes() == before


def test_mcp_server_connected_after_local_install(tmp_path: Path) -> None:
    require("claude")
    home, project = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    project.mkdir()
    assert run_cli(["--claude", "--local", "--yes"], home, cwd=project).returncode == 0
    assert json.loads((project / ".mcp.json").read_text())["mcpServers"]["msd"]["type"] == "stdio"
    out = claude(home, project, "mcp", "list")
    assert "Pending approval" in out  # project servers wait for the user's approval
    # approve it by hand, as the user would in the trust dialog
    state_path = home / ".claude.json"
    state = json.loads(state_path.read_text())
    state.setdefault("projects", {})[str(project)] = {
        "hasTrustDialogAccepted": True,
        "enabledMcpjsonServers": ["msd"],
    }
    state_path.write_text(json.dumps(state))
    out = claude(home, project, "mcp", "list")
    line = next(ln for ln in out.splitlines() if ln.startswith("msd:"))
    assert line.endswith("✔ Connected"), out
    assert (
        run_cli(["--claude", "--local", "--yes", "--uninstall"], home, cwd=project).returncode == 0
    )
    assert not (project / ".mcp.json").exists()
    left = sorted(p.relative_to(project).as_posix() for p in project.rglob("*"))
    assert not [p for p in left if "msd" in p], left
