"""Startup configuration from the environment, checked before the server answers anything.

The workspace root is the trust anchor: ``MSD_WORKSPACE`` if set (absolute, an existing
directory, not an unexpanded ``${VAR}``/``$VAR``/``%VAR%``), else the working directory; never
the filesystem root, and never the home directory itself when it comes from the working
directory. It is ``realpath``-ed once, here. ``MSD_AUDIT_LOG`` is an absolute path outside the
workspace; unset means mutations are not audited (a warning is logged once at startup) so a
bare ``msd-mcp`` still works for trying it out, while the installer always sets it.
``MSD_MCP_LOG`` adds a log file, ``MSD_MCP_LOG_LEVEL`` sets the level (default INFO),
``MSD_MCP_TEST_TOOLS`` loads test-only tools (see ``registry``).

This module is on the path to the first response, so it uses ``os.path`` strings and a plain
slotted class instead of pathlib and dataclasses (together several milliseconds of imports).
"""

from __future__ import annotations

import os
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

# A client that expands ${VAR} in its config (Claude Code does) passes an unset one through
# as literal text. Only that form is treated as unexpanded: a real directory may well be
# called "$work", and a value starting with a bare $VAR or %VAR% is not absolute anyway.
UNEXPANDED = re.compile(r"\$\{[^}]*\}")
LEVEL_NAMES = ("DEBUG", "INFO", "WARNING", "ERROR")


class ConfigError(Exception):
    """The server must not start; the message is one line for stderr."""


class ServerConfig:
    """The checked settings (read-only by convention; built once by ``load``)."""

    __slots__ = ("audit_log", "log_file", "log_level", "root", "test_tools")

    def __init__(
        self,
        root: str,
        audit_log: str | None,
        log_file: str | None,
        log_level: str,
        test_tools: str | None,
    ) -> None:
        self.root = root
        self.audit_log = audit_log
        self.log_file = log_file
        self.log_level = log_level
        self.test_tools = test_tools


def _inside(root: str, real: str) -> bool:
    """Component-wise containment of two real paths ('/w/project2' is not in '/w/project')."""
    parts = root.rstrip("/").split("/")
    return real.rstrip("/").split("/")[: len(parts)] == parts


def workspace_root(env: Mapping[str, str], cwd: str | None, home: str | None) -> str:
    value = env.get("MSD_WORKSPACE")
    source = "MSD_WORKSPACE"
    if value is None:
        if cwd is None:
            raise ConfigError("the current directory no longer exists; set MSD_WORKSPACE")
        value, source = cwd, "the current directory"
    if value == "":
        raise ConfigError(f"{source} is empty")
    if "\x00" in value:
        raise ConfigError(f"{source} contains a NUL byte")
    if source == "MSD_WORKSPACE" and UNEXPANDED.search(value):
        raise ConfigError(
            f"{source} is an unexpanded variable ({value!r}); the client did not set it"
        )
    if not os.path.isabs(value):  # noqa: PTH117
        raise ConfigError(f"{source} must be an absolute path, got {value!r}")
    real = os.path.realpath(value)
    if not os.path.isdir(real):  # noqa: PTH112
        raise ConfigError(f"{source} {value!r} does not exist or is not a directory")
    if real == os.path.realpath("/"):
        raise ConfigError(f"{source} is the filesystem root; refusing to serve it")
    if home and source != "MSD_WORKSPACE" and real == os.path.realpath(home):
        raise ConfigError(f"{source} is the home directory; set MSD_WORKSPACE to a project")
    return real


def _outside(root: str, name: str, value: str | None) -> str | None:
    """An absolute, expanded path that does not resolve into the workspace."""
    if value is None:
        return None
    if not value or UNEXPANDED.search(value) or "\x00" in value:
        raise ConfigError(f"{name} is empty, unexpanded or malformed: {value!r}")
    if not os.path.isabs(value):  # noqa: PTH117
        raise ConfigError(f"{name} must be an absolute path, got {value!r}")
    # Whole-path realpath: a link anywhere on the way (even a missing leaf's parent) counts.
    real = os.path.realpath(value)
    if _inside(root, real):
        raise ConfigError(f"{name} {value!r} is inside the workspace; tools could rewrite it")
    return real


def load(env: Mapping[str, str], cwd: str | None, home: str | None) -> ServerConfig:
    root = workspace_root(env, cwd, home)
    level = env.get("MSD_MCP_LOG_LEVEL", "INFO").upper()
    if level not in LEVEL_NAMES:
        raise ConfigError(
            f"MSD_MCP_LOG_LEVEL must be one of {', '.join(LEVEL_NAMES)}, got {level!r}"
        )
    return ServerConfig(
        root=root,
        audit_log=_outside(root, "MSD_AUDIT_LOG", env.get("MSD_AUDIT_LOG")),
        log_file=env.get("MSD_MCP_LOG") or None,
        log_level=level,
        test_tools=_outside(root, "MSD_MCP_TEST_TOOLS", env.get("MSD_MCP_TEST_TOOLS")),
    )
