"""The MCP Inspector CLI (a TypeScript-SDK client) against the installed launcher layout."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from e2e_clis import require

import msd_install.msdcore as msdcore_pkg

pytestmark = pytest.mark.e2e


@pytest.fixture
def inspector() -> Path:
    return require("mcp-inspector")  # skips (or fails under MSD_E2E_REQUIRED=1) when missing


@pytest.fixture
def launcher(tmp_path: Path) -> list[str]:
    """``<python> -I -S <root>/msd-core/bin/msd-mcp`` in a tree laid out like an install."""
    src = Path(msdcore_pkg.__file__).parent
    core = tmp_path / "runtime" / "msd-core"
    (core / "bin").mkdir(parents=True)
    shutil.copy2(src.parent / "payload" / "data" / "core" / "bin" / "msd-mcp", core / "bin")
    shutil.copytree(src, core / "lib" / "msdcore", ignore=shutil.ignore_patterns("__pycache__"))
    return [os.path.realpath(sys.executable), "-I", "-S", str(core / "bin" / "msd-mcp")]


def run_inspector(exe: Path, server: list[str], env: dict[str, str], *method: str) -> object:
    cmd = [str(exe), "--cli", *server]
    for key, value in env.items():
        cmd += ["-e", f"{key}={value}"]
    cmd += ["--method", *method]
    done = subprocess.run(
        cmd,
        env={**os.environ, "MCP_INSPECTOR_SECRET_STORE": "memory"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def test_inspector_lists_and_calls_tools(
    inspector: Path, launcher: list[str], tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "hello.txt").write_text("hello inspector\n")
    audit = tmp_path / "state" / "audit.jsonl"
    env = {"MSD_WORKSPACE": str(ws), "MSD_AUDIT_LOG": str(audit)}

    listing = run_inspector(inspector, launcher, env, "tools/list")
    names = [t["name"] for t in listing["tools"]]  # type: ignore[index]
    assert names[:2] == ["read_text_file", "list_directory"] and "write_file" in names

    read = run_inspector(
        inspector,
        launcher,
        env,
        "tools/call",
        "--tool-name",
        "read_text_file",
        "--tool-arg",
        "path=hello.txt",
    )
    assert read["isError"] is False  # type: ignore[index]
    assert read["structuredContent"]["content"] == "hello inspector\n"  # type: ignore[index]

    wrote = run_inspector(
        inspector, launcher, env, "tools/call", "--tool-name", "write_file",
        "--tool-arg", "path=from-inspector.txt", "--tool-arg", "content=made by inspector",
    )  # fmt: skip
    assert wrote["isError"] is False  # type: ignore[index]
    assert (ws / "from-inspector.txt").read_text() == "made by inspector"
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    assert records and {r["tool"] for r in records} == {"write_file"}  # intent, then outcome
