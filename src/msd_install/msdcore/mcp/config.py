"""Startup configuration from the environment, checked before the server answers anything.

``MSD_WORKSPACE`` (or the working directory) is the trust anchor (``confine.workspace_root``).
``MSD_AUDIT_LOG`` is an absolute path outside the workspace; unset means mutations are not
audited (a warning is logged once at startup) so a bare ``msd-mcp`` still works for trying it
out, while the installer always sets it. ``MSD_MCP_LOG`` adds a log file, ``MSD_MCP_LOG_LEVEL``
sets the level (default INFO), ``MSD_MCP_TEST_TOOLS`` loads test-only tools (see registry).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..confine import UNEXPANDED, RootError, workspace_root


class ConfigError(Exception):
    """The server must not start; the message is one line for stderr."""


@dataclass(frozen=True)
class ServerConfig:
    root: Path
    audit_log: Path | None
    log_file: Path | None
    log_level: str
    test_tools: Path | None


def _outside(root: Path, name: str, value: str | None) -> Path | None:
    """An absolute, expanded path that does not resolve into the workspace."""
    if value is None:
        return None
    if not value or UNEXPANDED.search(value) or "\x00" in value:
        raise ConfigError(f"{name} is empty, unexpanded or malformed: {value!r}")
    if not Path(value).is_absolute():
        raise ConfigError(f"{name} must be an absolute path, got {value!r}")
    real = Path(os.path.realpath(value))
    if real == root or root in real.parents:
        raise ConfigError(f"{name} {value!r} is inside the workspace; tools could rewrite it")
    return real


def load(env: Mapping[str, str], cwd: str | None, home: str | None) -> ServerConfig:
    if cwd is None and "MSD_WORKSPACE" not in env:
        raise ConfigError("the current directory no longer exists; set MSD_WORKSPACE")
    try:
        root = workspace_root(env, cwd or "", home)
    except RootError as exc:
        raise ConfigError(str(exc)) from None
    log_file = env.get("MSD_MCP_LOG")
    level = env.get("MSD_MCP_LOG_LEVEL", "INFO").upper()
    if level not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        raise ConfigError(f"MSD_MCP_LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR, got {level!r}")
    return ServerConfig(
        root=root,
        audit_log=_outside(root, "MSD_AUDIT_LOG", env.get("MSD_AUDIT_LOG")),
        log_file=Path(log_file) if log_file else None,
        log_level=level,
        test_tools=_outside(root, "MSD_MCP_TEST_TOOLS", env.get("MSD_MCP_TEST_TOOLS")),
    )
