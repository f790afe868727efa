"""Where things are: the one object that knows home, scope, env overrides and the platform.

Nothing else in msd-install reads ``os.environ`` or calls ``Path.home()``: adapters and the
engine receive a ``Context``. That keeps tests hermetic (a fake home per test) and lets
Windows paths be reasoned about on Linux.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

GLOBAL = "global"
LOCAL = "local"


@dataclass(frozen=True)
class Context:
    home: Path
    cwd: Path
    env: Mapping[str, str] = field(default_factory=dict)
    platform: str = sys.platform
    scope: str = GLOBAL  # GLOBAL or LOCAL
    config_dir: Path | None = None  # --config-dir: replaces the runtime's global root
    interpreter: Path = Path(sys.executable)  # resolved base interpreter for runtime-side commands
    state_dir: Path | None = None  # where the MCP audit log lives (platformdirs user state)
    force: bool = False
    force_statusline: bool = False

    @property
    def is_local(self) -> bool:
        return self.scope == LOCAL

    def with_scope(self, scope: str) -> Context:
        return _replace(self, scope=scope)

    def env_path(self, name: str) -> Path | None:
        """An env override that names a directory; ``~`` expands against *our* home."""
        raw = self.env.get(name, "").strip()
        if not raw:
            return None
        if raw == "~" or raw.startswith("~/"):
            return self.home / raw[2:]
        path = Path(raw)
        return path if path.is_absolute() else self.cwd / path

    def audit_log(self) -> Path:
        base = self.state_dir if self.state_dir is not None else self.home / ".local/state/msd"
        return base / "audit.jsonl"


def _replace(ctx: Context, **changes: object) -> Context:
    from dataclasses import replace

    return replace(ctx, **changes)  # type: ignore[arg-type]


def resolved_interpreter() -> Path:
    """The real Python binary behind this process: never a venv, pyenv shim or pipx cache.

    A ``pipx run`` venv is a cache that disappears, and shims cost 20-70 ms per hook call, so
    runtime-side commands are registered with the base interpreter, resolved through symlinks.
    """
    base = getattr(sys, "_base_executable", None) or sys.executable
    return Path(os.path.realpath(base))


def from_environment(
    *,
    scope: str,
    config_dir: Path | None = None,
    force: bool = False,
    force_statusline: bool = False,
) -> Context:
    """The real context of this process (the only place that reads the environment)."""
    import platformdirs

    env = dict(os.environ)
    home = Path(env["HOME"]) if env.get("HOME") else Path.home()
    cwd = Path.cwd()
    if config_dir is not None and not config_dir.is_absolute():
        config_dir = cwd / config_dir
    state = Path(platformdirs.user_state_dir("msd", appauthor=False))
    return Context(
        home=home,
        cwd=cwd,
        env=env,
        scope=scope,
        config_dir=config_dir,
        interpreter=resolved_interpreter(),
        state_dir=state,
        force=force,
        force_statusline=force_statusline,
    )
