"""Startup configuration from the environment, checked before the server answers anything.

The workspace root is the trust anchor: ``MSD_WORKSPACE`` if set (absolute, an existing
directory, not an unexpanded ``${VAR}``/``$VAR``/``%VAR%``), else the working directory; never
the filesystem root, and never the home directory itself when it comes from the working
directory. It is ``realpath``-ed once, here, and refused when it is a system directory, the
home directory (or above it), or a runtime's configuration root (see ``roots``).
``MSD_AUDIT_LOG`` is an absolute path outside the workspace (an existing one must be a regular
file). Unset, the log goes to the state directory of the user running the server
(``audit_default``): a project install is committed and runs under other users and homes, so
it names no log of the installing user (a global install sets the variable). With no home to
put it in, mutations are not audited (a warning is logged once at startup).
``MSD_MCP_CALL_TIMEOUT`` is the deadline of one tool call in seconds (default 30).
``MSD_MCP_LOG`` adds a log file, ``MSD_MCP_LOG_LEVEL`` sets the level (default INFO),
``MSD_MCP_TEST_TOOLS`` loads test-only tools (see ``registry``).

This module is on the path to the first response, so it uses ``os.path`` strings and a plain
slotted class instead of pathlib and dataclasses (together several milliseconds of imports).
"""

from __future__ import annotations

import os
import re
import sys

from . import roots

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

# A client that expands ${VAR} in its config (Claude Code does) passes an unset one through
# as literal text. Only that form is treated as unexpanded: a real directory may well be
# called "$work", and a value starting with a bare $VAR or %VAR% is not absolute anyway.
UNEXPANDED = re.compile(r"\$\{[^}]*\}")
LEVEL_NAMES = ("DEBUG", "INFO", "WARNING", "ERROR")
DEFAULT_CALL_TIMEOUT = 30.0


class ConfigError(Exception):
    """The server must not start; the message is one line for stderr."""


class ServerConfig:
    """The checked settings (read-only by convention; built once by ``load``)."""

    __slots__ = ("audit_log", "call_timeout", "log_file", "log_level", "root", "test_tools")

    def __init__(
        self,
        root: str,
        audit_log: str | None,
        log_file: str | None,
        log_level: str,
        test_tools: str | None,
        call_timeout: float = DEFAULT_CALL_TIMEOUT,
    ) -> None:
        self.root = root
        self.audit_log = audit_log
        self.log_file = log_file
        self.log_level = log_level
        self.test_tools = test_tools
        self.call_timeout = call_timeout


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
    why = roots.refusal(real, env, home)
    if why is not None:
        raise ConfigError(f"{source} {real!r} {why}; set MSD_WORKSPACE to a project directory")
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
    if os.path.lexists(real) and not os.path.isfile(real):  # noqa: PTH113
        raise ConfigError(f"{name} {value!r} is not a regular file")
    return real


def audit_default(env: Mapping[str, str], home: str | None, platform: str) -> str | None:
    """``audit.jsonl`` in the user's state directory, where ``platformdirs.user_state_dir
    ("msd", appauthor=False)`` puts it for the installer (same answer, stdlib only): Windows
    ``%LOCALAPPDATA%\\msd``, macOS ``~/Library/Application Support/msd``, elsewhere
    ``$XDG_STATE_HOME/msd`` (when absolute) or ``~/.local/state/msd``. None without a home."""
    if platform == "win32":
        base = env.get("LOCALAPPDATA", "")
        return os.path.join(base, "msd", "audit.jsonl") if os.path.isabs(base) else None  # noqa: PTH117, PTH118
    if not home or not os.path.isabs(home):  # noqa: PTH117
        return None
    if platform == "darwin":
        return os.path.join(home, "Library", "Application Support", "msd", "audit.jsonl")  # noqa: PTH118
    state = env.get("XDG_STATE_HOME", "")
    if not os.path.isabs(state):  # noqa: PTH117 - relative or unset: the spec says ignore it
        state = os.path.join(home, ".local", "state")  # noqa: PTH118
    return os.path.join(state, "msd", "audit.jsonl")  # noqa: PTH118


def _timeout(value: str | None) -> float:
    if value is None:
        return DEFAULT_CALL_TIMEOUT
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds <= 3600:
        raise ConfigError(f"MSD_MCP_CALL_TIMEOUT must be seconds in (0, 3600], got {value!r}")
    return seconds


def load(
    env: Mapping[str, str], cwd: str | None, home: str | None, platform: str = sys.platform
) -> ServerConfig:
    root = workspace_root(env, cwd, home)
    audit = env.get("MSD_AUDIT_LOG")
    if audit is None:
        audit = audit_default(env, home, platform)
    level = env.get("MSD_MCP_LOG_LEVEL", "INFO").upper()
    if level not in LEVEL_NAMES:
        raise ConfigError(
            f"MSD_MCP_LOG_LEVEL must be one of {', '.join(LEVEL_NAMES)}, got {level!r}"
        )
    return ServerConfig(
        root=root,
        audit_log=_outside(root, "MSD_AUDIT_LOG", audit),
        log_file=env.get("MSD_MCP_LOG") or None,
        log_level=level,
        test_tools=_outside(root, "MSD_MCP_TEST_TOOLS", env.get("MSD_MCP_TEST_TOOLS")),
        call_timeout=_timeout(env.get("MSD_MCP_CALL_TIMEOUT")),
    )
