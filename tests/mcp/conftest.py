"""Fixtures for the MCP server tests: a workspace, an audit path outside it, and a raw client."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from mcp_raw import RawServer

SERVER = [sys.executable, "-m", "msd_install.msdcore.mcp"]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "hello.txt").write_text("line one\nline two\nline three\n")
    (root / "sub").mkdir()
    (root / "sub" / "inner.md").write_text("# inner\n")
    return root


@pytest.fixture
def audit_path(tmp_path: Path) -> Path:
    return tmp_path / "state" / "audit.jsonl"


@pytest.fixture
def server_env(ws: Path, audit_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MSD_")}
    env.update({"MSD_WORKSPACE": str(ws), "MSD_AUDIT_LOG": str(audit_path)})
    return env


@pytest.fixture
def raw(server_env: dict[str, str], tmp_path: Path):  # type: ignore[no-untyped-def]
    server = RawServer(SERVER, server_env, tmp_path / "stderr.log")
    yield server
    server.close()
