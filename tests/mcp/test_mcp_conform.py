"""The third-party stdio conformance checker ``mcp-conform`` passes against the server."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


def test_mcp_conform_passes(server_env: dict[str, str], tmp_path: Path) -> None:
    tool = shutil.which("mcp-conform") or str(Path(sys.executable).with_name("mcp-conform"))
    if not Path(tool).exists():
        pytest.skip("mcp-conform is not installed (pip install 'msd-install[test]')")
    command = shlex.join([sys.executable, "-m", "msd_install.msdcore.mcp"])
    done = subprocess.run(
        [tool, "server", "--command", command, "--format", "json"],
        env=server_env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] is True and report["failed"] == 0 and report["fatal_error"] is None
    checks = {c["name"]: c["passed"] for c in report["checks"]}
    assert checks["method_not_found"] is True and checks["tools_list"] is True
