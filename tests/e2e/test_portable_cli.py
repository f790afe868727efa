"""A committed ``--local`` install moved to another path and opened by another user, as the
real CLIs see it (issue 10.8): the project's MCP server is listed as connected.

The project is installed under HOME-A at P1, moved to P2 (a path with a space), HOME-A is
deleted, and the CLI runs in P2 under a fresh HOME-B, approving the project's server the way
its user would. tests/runtimes/test_portable_local.py covers every runtime's hooks and server
without CLIs; this is the same claim checked by Claude Code, Gemini CLI and Qwen Code.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from e2e_clis import require, run_tool
from gemini_kit import gemini, output, qwen, server_lines
from stub_turns import GEMINI_TRUSTED

from helpers import build, run_cli

pytestmark = pytest.mark.e2e


def moved(tmp_path: Path, flag: str) -> tuple[Path, Path]:
    """(HOME-B, P2) after an install at P1 under HOME-A, which is gone."""
    home_a, p1 = tmp_path / "home-a", tmp_path / "first" / "proj"
    home_a.mkdir()
    build(p1, {"README.md": "hi\n"})
    (p1 / ".git").mkdir()
    done = run_cli([flag, "--local", "--yes"], home_a, cwd=p1)
    assert done.returncode == 0, done.stderr
    p2, home_b = tmp_path / "second place" / "proj", tmp_path / "home-b"
    p2.parent.mkdir()
    shutil.move(p1, p2)
    shutil.rmtree(home_a)
    home_b.mkdir()
    return home_b, p2


def test_claude_connects_the_moved_projects_server(tmp_path: Path) -> None:
    claude = str(require("claude"))
    home, project = moved(tmp_path, "--claude")
    (home / ".claude.json").write_text(
        json.dumps(
            {
                "projects": {
                    str(project): {"hasTrustDialogAccepted": True, "enabledMcpjsonServers": ["msd"]}
                }
            }
        )
    )
    done = run_tool([claude, "mcp", "list"], home, project)
    out = done.stdout + done.stderr
    line = next(ln for ln in out.splitlines() if ln.startswith("msd:"))
    assert line == "msd: python3 -I -S .claude/msd-core/bin/msd-mcp - ✔ Connected", out


def test_gemini_connects_the_moved_projects_server(tmp_path: Path) -> None:
    home, project = moved(tmp_path, "--gemini")
    listed = output(gemini(home, project, "mcp", "list", **GEMINI_TRUSTED))
    assert server_lines(listed) == [
        "✓ msd: python3 -I -S .gemini/msd-core/bin/msd-mcp (stdio) - Connected"
    ], listed


def test_qwen_connects_the_moved_projects_server(tmp_path: Path) -> None:
    home, project = moved(tmp_path, "--qwen")
    approve = qwen(home, project, "mcp", "approve", "msd")  # what its user is told to run
    assert approve.returncode == 0, output(approve)
    listed = output(qwen(home, project, "mcp", "list"))
    assert server_lines(listed) == [
        "✓ msd: python3 -I -S .qwen/msd-core/bin/msd-mcp (stdio) - Connected"
    ], listed
