"""Where things are: the one object that knows home, scope, env overrides and the platform.

Nothing else in msd-install reads ``os.environ`` or calls ``Path.home()``: adapters and the
engine receive a ``Context``. That keeps tests hermetic (a fake home per test) and lets
Windows paths be reasoned about on Linux.
"""

from __future__ import annotations

import ntpath
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PureWindowsPath

from ..errors import UnusablePathError, UsageError
from .interpreter import choose_interpreter, executable_head, refuse_foreign_python

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

    @property
    def ci(self) -> bool:
        """Running in CI (``CI`` set, as every CI service and most Docker recipes set it):
        never prompt, even on a pseudo-terminal."""
        return self.env.get("CI", "").strip().lower() not in ("", "0", "false", "no")

    def absolute(self, path: Path) -> Path:
        """``path`` absolute and normalised (no ``..``, no ``.``, links not followed), in this
        context's platform's terms: a simulated Windows context keeps ``C:/...`` as it is."""
        if self.platform == "win32" and PureWindowsPath(str(path)).is_absolute():
            return Path(ntpath.normpath(path).replace("\\", "/"))
        return Path(os.path.abspath(path))  # noqa: PTH100 - resolve() would follow links

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

    def which(self, name: str) -> Path | None:
        """``name`` on this context's PATH (detection only; never used to run anything)."""
        import shutil

        found = shutil.which(name, path=self.env.get("PATH", ""))
        return Path(found) if found else None

    def audit_log(self) -> Path:
        return self._state() / "audit.jsonl"

    def manifest_registry(self) -> Path:
        """The user's record of the manifests msd-install wrote (``installer/registry``)."""
        return self._state() / "manifests.json"

    def _state(self) -> Path:
        return self.state_dir if self.state_dir is not None else self.home / ".local/state/msd"


def _replace(ctx: Context, **changes: object) -> Context:
    from dataclasses import replace

    return replace(ctx, **changes)  # type: ignore[arg-type]


def resolved_interpreter(env: Mapping[str, str] | None = None) -> Path:
    """The Python that runtime-side commands of a global install name: the stable base
    interpreter behind this process, never a venv, a version manager's shim, a Homebrew
    Cellar path or the Store's stub (the rules per platform: ``installer/interpreter``).

    A ``pipx run`` venv is a cache that disappears, and shims cost 20-70 ms per hook call, so
    the interpreter is resolved once, at install time."""
    return Path(
        choose_interpreter(
            platform=sys.platform,
            env=os.environ if env is None else env,
            executable=sys.executable,
            base_executable=getattr(sys, "_base_executable", None),
            version=(sys.version_info[0], sys.version_info[1], sys.version_info[2]),
        )
    )


def _osrelease() -> str:
    try:
        return Path("/proc/sys/kernel/osrelease").read_text(errors="replace")
    except OSError:
        return ""


def from_environment(
    *,
    scope: str,
    config_dir: str | None = None,
    force: bool = False,
    force_statusline: bool = False,
) -> Context:
    """The real context of this process (the only place that reads the environment).

    ``config_dir`` is ``--config-dir`` as typed: ``~`` expands against the home here (a
    quoted ``'~/x'`` or ``--config-dir=~/x`` reaches us unexpanded), a relative path is
    taken from the current directory, an empty one is refused."""
    import platformdirs

    env = dict(os.environ)
    refuse_foreign_python(
        platform=sys.platform,
        env=env,
        executable=sys.executable,
        cwd=str(Path.cwd()),
        osrelease=_osrelease(),
        head=executable_head(sys.executable),
    )
    home = Path(env["HOME"]) if env.get("HOME") else Path.home()
    _text_path("HOME", home)
    cwd = Path.cwd()
    if scope == LOCAL:
        _text_path("the current directory", cwd)
    directory = None if config_dir is None else config_dir_path(config_dir, home, cwd)
    state = Path(platformdirs.user_state_dir("msd", appauthor=False))
    _text_path("the state directory (XDG_STATE_HOME)", state)
    return Context(
        home=home,
        cwd=cwd,
        env=env,
        scope=scope,
        config_dir=directory,
        interpreter=resolved_interpreter(env),
        state_dir=state,
        force=force,
        force_statusline=force_statusline,
    )


def config_dir_path(raw: str, home: Path, cwd: Path) -> Path:
    """``--config-dir`` as a directory: never the current one by accident, never a ``~``
    directory made literally."""
    if not raw.strip():
        raise UsageError("--config-dir is empty: name the directory to install into")
    if raw == "~" or raw.startswith("~/"):
        path = home / raw[2:]
    elif raw.startswith("~"):
        try:
            path = Path(raw).expanduser()
        except RuntimeError:  # no such user
            user = raw[1:].split("/", 1)[0]
            raise UsageError(
                f"--config-dir {raw!r}: there is no user {user!r} to expand ~ for"
            ) from None
    else:
        path = Path(raw)
    path = path if path.is_absolute() else cwd / path
    _text_path("--config-dir", path)
    return path


def _text_path(what: str, path: Path) -> None:
    """Refuse a path that is not text: msd-install writes paths into JSON, TOML and YAML
    files (hook commands, the MCP server, the manifest), which hold Unicode only; a name
    in another encoding would end in a crash half-way or in a command that cannot run."""
    text = str(path)
    try:
        text.encode("utf-8")
        text.encode(sys.getfilesystemencoding())
    except UnicodeError:
        shown = _raw_bytes(text)
        raise UnusablePathError(
            f"{what} is not valid UTF-8 ({shown!r}): msd-install writes this path into the "
            "runtime's config files, which hold text only",
            hint="use a directory whose name is UTF-8; nothing was changed",
        ) from None


def _raw_bytes(text: str) -> bytes:
    """The name as the bytes the system holds, for the message."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeError:
        return text.encode("utf-8", "backslashreplace")
