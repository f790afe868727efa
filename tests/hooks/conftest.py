"""Fixtures that run MSD hooks the way a runtime does: `<python> -I -S <hook>` + JSON stdin."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hookkit import HOOKS_DIR, HookResult, RunHook, base_env


@pytest.fixture
def hook_tmp(tmp_path: Path) -> Path:
    """The temp dir the hooks see (bridge, state files)."""
    path = tmp_path / "tmp"
    path.mkdir()
    return path


@pytest.fixture
def runtime_root(tmp_path: Path) -> Path:
    """A runtime root (like ~/.claude) with the hooks copied into <root>/hooks/."""
    root = tmp_path / "root"
    shutil.copytree(HOOKS_DIR, root / "hooks")
    return root


@pytest.fixture
def run_hook(hook_tmp: Path, runtime_root: Path) -> RunHook:
    def run(
        script: str,
        payload: object,
        *,
        args: tuple[str, ...] = (),
        env: dict[str, str] | None = None,
    ) -> HookResult:
        stdin = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        proc = subprocess.run(
            [sys.executable, "-I", "-S", str(runtime_root / "hooks" / script), *args],
            input=stdin,
            capture_output=True,
            timeout=20,
            env={**base_env(hook_tmp), **(env or {})},
        )
        return HookResult(proc.returncode, proc.stdout.decode(), proc.stderr.decode())

    return run
