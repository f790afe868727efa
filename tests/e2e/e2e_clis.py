"""Real runtime CLIs for the end-to-end suite, run against throw-away homes.

The CLIs are installed by ``scripts/install-clis`` into a cache folder. When that folder is
missing the e2e tests skip, unless ``MSD_E2E_REQUIRED=1`` (set by ``scripts/e2e`` and CI):
then they fail, so a CI run can never pass by skipping them.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest


def bin_dir() -> Path:
    cache = os.environ.get("MSD_E2E_CACHE") or str(
        Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "msd-install-e2e"
    )
    return Path(cache) / "node/node_modules/.bin"


def require(tool: str) -> Path:
    path = bin_dir() / tool
    if not path.exists():
        message = f"{tool} is not installed in {bin_dir()} (run scripts/install-clis)"
        if os.environ.get("MSD_E2E_REQUIRED") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return path


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    env = {
        "PATH": f"{bin_dir()}:/usr/bin:/bin",
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local/state"),
        "DISABLE_TELEMETRY": "1",
        "DO_NOT_TRACK": "1",
        "DISABLE_AUTOUPDATER": "1",
        "NO_UPDATE_NOTIFIER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "MCP_INSPECTOR_SECRET_STORE": "memory",
    }
    env.update(extra)
    return env


def run_tool(
    argv: list[str], home: Path, cwd: Path, timeout: float = 90, **extra: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv,
        cwd=cwd,
        env=clean_env(home, **extra),
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=timeout,
    )


def py_bin_dir() -> Path:
    """The venv of the CLIs published on PyPI (Hermes Agent, CodeBuddy), next to node/."""
    return bin_dir().parent.parent.parent / "py" / "bin"


def require_py(tool: str) -> Path:
    path = py_bin_dir() / tool
    if not path.exists():
        message = f"{tool} is not installed in {py_bin_dir()} (run scripts/install-clis)"
        if os.environ.get("MSD_E2E_REQUIRED") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return path


def command_line(value: dict[str, Any]) -> tuple[str, list[str], dict[str, str]]:
    """The process a runtime starts for an MCP registration read from its config file:
    ``command`` + ``args`` + ``env``; OpenCode / Kilo's ``command`` array + ``environment``;
    Cline's nested ``transport``."""
    spec = value.get("transport", value)
    command = spec["command"]
    args = list(spec.get("args", []))
    if isinstance(command, list):  # OpenCode / Kilo: one array
        command, args = command[0], [*command[1:], *args]
    env = dict(spec.get("env") or spec.get("environment") or {})
    assert isinstance(command, str) and all(isinstance(a, str) for a in args), value
    return command, args, env


def mcp_initialize(
    command: str,
    args: list[str],
    env: dict[str, str],
    cwd: Path,
    home: Path,
    timeout: float = 30,
) -> dict[str, object]:
    """Start an MCP server exactly as a runtime's config registers it and return its answer to
    ``initialize`` (the ``result`` object); fails the test on anything else."""
    return mcp_exchange(command, args, env, cwd, home, [], timeout)[0]


def mcp_exchange(
    command: str,
    args: list[str],
    env: dict[str, str],
    cwd: Path,
    home: Path,
    requests: list[tuple[str, dict[str, Any] | None]],
    timeout: float = 30,
) -> list[dict[str, Any]]:
    """Start an MCP server exactly as a runtime's config registers it, send ``initialize`` and,
    when there are ``requests``, ``notifications/initialized`` and each ``(method, params)``;
    return the ``result`` of every answer, ``initialize``'s first. Fails the test on an error
    answer, a missing one, or a line that is not JSON-RPC."""
    import json

    initialize = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "msd-e2e", "version": "1"},
    }
    messages: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize}
    ]
    if requests:
        messages.append({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for number, (method, params) in enumerate(requests, 2):
        message = {"jsonrpc": "2.0", "id": number, "method": method}
        messages.append(message if params is None else {**message, "params": params})
    proc = subprocess.run(
        [command, *args],
        input="".join(json.dumps(m) + "\n" for m in messages),
        cwd=cwd,
        env={"PATH": "/usr/bin:/bin", "HOME": str(home), **env},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
    assert lines, f"no answer from {command} {args}: rc={proc.returncode} {proc.stderr[-500:]}"
    answers = {answer.get("id"): answer for answer in map(json.loads, lines)}
    results = []
    for number in range(1, len(requests) + 2):
        answer = answers.get(number, {})
        assert "result" in answer, (number, answer, proc.stderr[-500:])
        results.append(answer["result"])
    return results
