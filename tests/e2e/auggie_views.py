"""Auggie (Augment's CLI) run offline against one home, and its own listings: ``auggie mcp
list --json`` (config only, no health check; it always warns twice that it cannot fetch
tenant/user servers), ``auggie command list`` (skills are listed as commands) and ``auggie
agents list`` (shown only where the loopback stand-in for Augment's API enables subagents)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

from augment_stub import AugmentStub
from e2e_clis import require, run_tool

TENANT_WARNINGS = {
    "Warning: Could not fetch tenant MCP server configurations: Please configure Augment API URL",
    "Warning: Could not fetch user MCP server configurations: Please configure Augment API URL",
}


def auggie(home: Path, cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return run_tool([str(require("auggie")), *args], home, cwd, timeout=120, **env)


def commands_listed(home: Path, cwd: Path) -> dict[str, list[str]]:
    """``auggie command list``: every command with its descriptions (one per listing line)."""
    proc = auggie(home, cwd, "command", "list")
    assert proc.returncode == 0, proc.stderr
    assert set(proc.stderr.strip().splitlines()) <= TENANT_WARNINGS, proc.stderr
    section = proc.stdout.split("\nCommands:\n", 1)[1]
    out: dict[str, list[str]] = {}
    name = ""
    for line in section.splitlines():
        entry = re.match(r"  (\S+) \[args\.\.\.\]\s+(.*)$", line)
        if entry:
            name = entry.group(1)
            out.setdefault(name, []).append(entry.group(2))
        elif line.startswith("    ") and name:
            out[name][-1] += " " + line.strip()
        else:
            name = ""
    return out


def agents_listed(home: Path, cwd: Path) -> dict[str, list[str]]:
    """``auggie agents list`` (shown only where subagents are enabled: the stub enables them)."""
    with AugmentStub() as stub:
        proc = auggie(home, cwd, "agents", "list", AUGMENT_SESSION_AUTH=stub.auth)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out: dict[str, list[str]] = {}
    for line in proc.stdout.splitlines():
        entry = re.match(r"   (msd-\S+)\s+(.*)$", line)
        if entry:
            out.setdefault(entry.group(1), []).append(entry.group(2))
    return out


def servers_listed(home: Path, cwd: Path) -> list[dict[str, Any]]:
    """``auggie mcp list --json``: every server entry, as often as listed."""
    proc = auggie(home, cwd, "mcp", "list", "--json")
    assert proc.returncode == 0, proc.stderr
    assert set(proc.stderr.strip().splitlines()) <= TENANT_WARNINGS, proc.stderr
    found: list[dict[str, Any]] = json.loads(proc.stdout)["servers"]
    return found
