"""Every runtime × scope that registers the MCP server: after a real install, the server starts
from exactly what the runtime's config file holds (command, args, env: read back from the
installed file with that format's own parser) and answers ``initialize``.

The shapes differ per runtime (``command`` + ``args`` + ``env``; OpenCode and Kilo's
``command`` array + ``environment``; Cline's ``transport``): each is read as that runtime
starts it. A registration this test cannot start is a failure, never a skip.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from e2e.e2e_clis import command_line, mcp_initialize
from helpers import run_cli
from msd_install.installer.configdoc import parse_text
from msd_install.installer.context import GLOBAL, LOCAL, Context
from msd_install.payload import load
from msd_install.runtimes import ADAPTERS

CASES = [
    (name, scope) for name, a in ADAPTERS.items() for scope in (GLOBAL, LOCAL) if scope in a.scopes
]


@pytest.mark.parametrize(("name", "scope"), CASES, ids=[f"{n}-{s}" for n, s in CASES])
def test_the_registered_server_answers_initialize(tmp_path: Path, name: str, scope: str) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    (project / ".git").mkdir(parents=True)
    ctx = Context(home=home, cwd=project, env={}, scope=scope)
    entries = [e for e in ADAPTERS[name].plan(ctx, load()).entries if e.label == "MCP server msd"]
    if not entries:
        assert scope == LOCAL and name in {"cline", "windsurf"}  # no project MCP file there
        return
    proc = run_cli([f"--{name}", f"--{scope}", "--yes"], home, cwd=project)
    assert proc.returncode == 0, proc.stderr
    (entry,) = entries
    installed = parse_text(entry.fmt, entry.file.read_text(encoding="utf-8"))
    value = installed.node((*entry.path, entry.key)).value
    command, args, env = command_line(value)
    result = mcp_initialize(command, args, env, cwd=project, home=home)
    assert result["serverInfo"]["name"] == "msd-core"  # type: ignore[index]
    assert "tools" in result["capabilities"]  # type: ignore[operator]
