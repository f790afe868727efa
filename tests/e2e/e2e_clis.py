"""Real runtime CLIs for the end-to-end suite, run against throw-away homes.

The CLIs are installed by ``scripts/install-clis`` into a cache folder. When that folder is
missing the e2e tests skip, unless ``MSD_E2E_REQUIRED=1`` (set by ``scripts/e2e`` and CI):
then they fail, so a CI run can never pass by skipping them.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

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
