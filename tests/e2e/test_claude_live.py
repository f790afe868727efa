"""The real Claude Code, offline, driving what we installed: skills, agents, hooks, MCP tools.

``claude -p`` runs against a loopback model stub (``model_stub``) that asks for one tool call;
what Claude sends back shows whether our hook blocked it or our MCP server answered it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from claude_views import claude_print, init_event
from e2e_clis import require
from model_stub import ModelStub

from helpers import run_cli

pytestmark = pytest.mark.e2e


@pytest.fixture()
def homes(tmp_path: Path) -> tuple[Path, Path]:
    require("claude")
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    (project / ".env").write_text("API_KEY=do-not-leak\n")
    (project / ".env.example").write_text("API_KEY=\n")
    return home, project


def test_claude_loads_our_skills_agents_and_mcp_server(homes: tuple[Path, Path]) -> None:
    home, project = homes
    assert run_cli(["--claude", "--global", "--yes"], home).returncode == 0
    with ModelStub("never", "Read", {}) as stub:
        init = init_event(claude_print(home, project, stub, "hello"))
    skills = {s for s in init["skills"] if s.startswith("msd-")}
    assert {"msd-help", "msd-plan-phase", "msd-execute-phase", "msd-workflow"} <= skills
    assert len(skills) == 28  # 22 commands + 6 routers
    agents = {a for a in init["agents"] if a.startswith("msd-")}
    assert len(agents) == 10 and "msd-planner" in agents
    assert {"name": "msd", "status": "connected", "source": "user"} in init["mcp_servers"]


@pytest.mark.parametrize("scope", ["--global", "--local"])
def test_secret_guard_blocks_reading_env_inside_claude(
    homes: tuple[Path, Path], scope: str
) -> None:
    home, project = homes
    assert run_cli(["--claude", scope, "--yes"], home, cwd=project).returncode == 0
    with ModelStub("READ-ENV", "Read", {"file_path": str(project / ".env")}) as stub:
        claude_print(home, project, stub, "READ-ENV now")
    (result,) = stub.tool_results()
    assert result["is_error"] is True
    assert "msd-secret-read-guard" in result["content"] and "is blocked" in result["content"]
    assert "do-not-leak" not in json.dumps(stub.requests)


def test_secret_guard_lets_templates_through(homes: tuple[Path, Path]) -> None:
    home, project = homes
    assert run_cli(["--claude", "--global", "--yes"], home).returncode == 0
    with ModelStub("READ-EXAMPLE", "Read", {"file_path": str(project / ".env.example")}) as stub:
        claude_print(home, project, stub, "READ-EXAMPLE now")
    (result,) = stub.tool_results()
    assert not result.get("is_error")
    assert "API_KEY=" in json.dumps(result["content"])


def test_claude_calls_our_mcp_server_tool(homes: tuple[Path, Path]) -> None:
    home, project = homes
    assert run_cli(["--claude", "--global", "--yes"], home).returncode == 0
    (project / "notes.txt").write_text("hello from the workspace\n")
    with ModelStub("CALL-MCP", "mcp__msd__read_text_file", {"path": "notes.txt"}) as stub:
        # granted the way a user would (MCP tools ask for permission by default)
        claude_print(
            home, project, stub, "CALL-MCP now", "--allowedTools", "mcp__msd__read_text_file"
        )
    (result,) = stub.tool_results()
    assert not result.get("is_error"), result
    assert "hello from the workspace" in json.dumps(result["content"])
