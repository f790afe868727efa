"""What every runtime module provides, and the shapes several runtimes share.

A runtime module exports ``ADAPTER = Adapter(...)``: its name and label, how to find its
global and local roots, how to detect it, and a pure ``plan`` function (payload -> Plan).
Shared shapes live here so that a Claude-like runtime is a short module of data.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PureWindowsPath

from .. import __version__
from ..errors import UsageError
from ..installer.context import Context
from ..installer.plan import FileOp, Plan
from ..payload import PLACEHOLDER_ROOT, DataFile, Payload

CORE_DIR = "msd-core"


@dataclass(frozen=True)
class Detection:
    """Whether a runtime looks present on this machine, and the evidence (for the picker)."""

    found: bool
    why: str  # e.g. "~/.codex exists", "codex on PATH", "no ~/.codex and no codex on PATH"


@dataclass(frozen=True)
class Adapter:
    name: str  # the flag is --<name>
    label: str
    global_root: Callable[[Context], Path]
    local_root: Callable[[Context], Path]
    detect: Callable[[Context], Detection]
    plan: Callable[[Context, Payload], Plan]
    # how hooks are registered in this runtime, or why there are none (docs and reports)
    hooks: str = ""
    # the runtime's own config-dir override, named in the docs (e.g. "CODEX_HOME")
    env_override: str = ""
    # Claude names this runtime really reads (e.g. "CLAUDE.md", ".claude/"): the leak scan
    # allows them in what we write for it
    claude_compat: tuple[str, ...] = ()
    # the scopes the runtime has ("global", "local"): some read no project directory at all
    scopes: tuple[str, ...] = ("global", "local")
    # where the adapter's facts come from and what is still uncertain (the runtime matrix)
    sources: str = ""
    # what a user types in this runtime to run msd's command ``name`` (the "next:" line of a
    # run); the same fact as the payload conversion's ``Dialect.invoke``
    invoke: Callable[[str], str] = lambda name: f"/{name}"
    # Claude hook event -> the runtime's own name, for every event the runtime has (its
    # ``HookDialect.events``); a pack's hook on any other event is reported, not registered
    hook_events: Mapping[str, str | None] = field(default_factory=dict)

    def root(self, ctx: Context) -> Path:
        """The root for the context's scope, absolute and normalised (no ``..``, no ``.``)."""
        if ctx.is_local:
            root = self.local_root(ctx)
        elif ctx.config_dir is not None:
            root = ctx.config_dir
        else:
            root = self.global_root(ctx)
        return ctx.absolute(root)


def detect_by(ctx: Context, dirs: tuple[Path, ...], binaries: tuple[str, ...]) -> Detection:
    """Present when one of ``dirs`` exists or one of ``binaries`` is on the PATH."""
    for directory in dirs:
        if directory.is_dir():
            return Detection(True, f"{_tilde(directory, ctx.home)} exists")
    for name in binaries:
        if ctx.which(name) is not None:
            return Detection(True, f"{name} on PATH")
    where = " and ".join(_tilde(d, ctx.home) for d in dirs) or "no config directory"
    found = ", ".join(binaries)
    return Detection(False, f"no {where}" + (f" and no {found} on PATH" if found else ""))


def _tilde(path: Path, home: Path) -> str:
    try:
        return "~/" + path.relative_to(home).as_posix()
    except ValueError:
        return str(path)


def root_ref(ctx: Context, root: Path) -> str:
    """How payload text should name the root once installed (ends with a separator).

    Local: relative to the project (``.claude/``), so a committed ``.claude`` works for every
    clone. Under the home directory: ``~/...``, because agents paste these paths into shell
    commands unquoted, and a tilde expansion is never split at spaces the way an absolute
    ``/home/Jane Doe/...`` would be. Elsewhere: the absolute path.
    """
    base = ctx.cwd if ctx.is_local else ctx.home
    try:
        rel = root.relative_to(base).as_posix()
        ref = f"{rel}/" if ctx.is_local else f"~/{rel}/"
    except ValueError:
        ref = root.as_posix() + "/"
    bad = _SHELL_UNSAFE.search(ref)
    if bad:
        raise UsageError(
            f"msd cannot live in {root}: its workflows name that directory in shell commands, "
            f"where {bad.group()!r} would break them; choose a directory without it"
        )
    return ref


# what may appear unquoted in a shell word (the home directory itself is exempt: "~" expands
# to it without word splitting, so only the part after "~/" is checked)
_SHELL_UNSAFE = re.compile(r"[^A-Za-z0-9_./~@%+=:,-]")


def rewrite(text: str, ref: str) -> str:
    """Replace the payload's ``~/.claude/`` with the runtime's real root."""
    return text.replace(PLACEHOLDER_ROOT, ref)


def data_files(
    root: Path,
    files: tuple[DataFile, ...],
    prefix: str,
    ref: str,
    text: Callable[[str], str] | None = None,
) -> list[FileOp]:
    """Payload files under ``<root>/<prefix>/``; text files go through ``text`` (a runtime's
    conversion, see ``convert.convert_text``), or get only the root path rewritten."""
    ops: list[FileOp] = []
    base = root / prefix  # joined once: a pathlib join costs ~2 us, a plan has ~300 files
    for item in files:
        content = item.content
        if item.is_text:
            raw = content.decode("utf-8")
            out = text(raw) if text is not None else rewrite(raw, ref)
            if out is not raw:  # an untouched text keeps its bytes (no encoding again)
                content = out.encode("utf-8")
        ops.append(FileOp(base / item.relpath, content, 0o755 if item.executable else 0o644))
    return ops


def core_files(
    root: Path, payload: Payload, ref: str, text: Callable[[str], str] | None = None
) -> list[FileOp]:
    """``<root>/msd-core/``: workflows, references, templates, bin, the stdlib lib, VERSION.

    ``text`` converts the Markdown/JSON engine files into the runtime's terms; the code
    (``bin/``, ``lib/``) is copied as it is.
    """
    ops = data_files(root, payload.core, payload.engine_dir, ref, text)
    if payload.namespace:  # a pack's engine files: no msd runtime code, no msd version
        return ops
    ops += data_files(root, payload.lib, f"{CORE_DIR}/lib/msdcore", ref)
    ops.append(FileOp(root / CORE_DIR / "VERSION", f"{__version__}\n".encode()))
    return ops


def quoted(path: Path | str) -> str:
    """A path in double quotes for a shell command line (JSON escaping is the editor's job)."""
    text = str(path)
    if any(c in text for c in '"$`\\'):
        text = (
            text.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$").replace("`", "\\`")
        )
    return f'"{text}"'


def native(ctx: Context, path: Path | str) -> str:
    """A path as registered commands name it: on Windows with forward slashes, which every
    runtime's shell there (Git Bash, cmd, PowerShell) and Python take, and which need no
    escaping in JSON, TOML or a shell word."""
    return PureWindowsPath(str(path)).as_posix() if ctx.platform == "win32" else str(path)


# no escape means the same thing in sh, cmd and PowerShell; "%" expands in cmd even inside
# double quotes, "$" and "`" in PowerShell and sh
_WINDOWS_UNQUOTABLE = re.compile(r'["$`%]')


def command_path(ctx: Context, path: Path | str) -> str:
    """A path as one double-quoted word of a registered command line."""
    if ctx.platform != "win32":
        return quoted(path)
    text = native(ctx, path)
    bad = _WINDOWS_UNQUOTABLE.search(text)
    if bad:
        raise UsageError(
            f"{text} cannot be named in a hook command on Windows: {bad.group()!r} would be "
            "expanded by cmd or PowerShell inside quotes",
            hint='use a Python and a home directory whose paths have no $, %, ` or "',
        )
    return f'"{text}"'


# A project (``--local``) install is committed and runs on other clones, users and machines:
# its commands name ``python3`` from the PATH, never this machine's interpreter (see
# docs/explanation/portable-installs.md for the start-up cost of that lookup).
PORTABLE_PYTHON = "python3"

# Runs a project-relative script for a runtime that sets no project-directory variable for its
# hooks and does not promise to start them in the project root: it looks for the script in the
# working directory and up to 63 folders above it (bounded), then runs it as ``__main__`` with
# its real ``__file__`` (the hooks find their helpers next to it). One line without ``"$`\``
# so that it survives double quotes in sh, cmd and PowerShell alike.
WALK_UP = (
    "import os,sys;r=sys.argv[1];c=os.getcwd();"
    "f=next((p for p in (os.path.abspath(os.path.join(c,*['..']*i,r)) for i in range(64))"
    " if os.path.isfile(p)),r);sys.argv=[f,*sys.argv[2:]];"
    "exec(compile(open(f,'rb').read(),f,'exec'),{'__name__':'__main__','__file__':f})"
)


# The same search for a pack hook in another language: ``sys.argv[1]`` is its runner
# (``bash``, ``node``), which replaces this process once the script is found.
WALK_UP_RUN = (
    "import os,sys;x=sys.argv[1];r=sys.argv[2];c=os.getcwd();"
    "f=next((p for p in (os.path.abspath(os.path.join(c,*['..']*i,r)) for i in range(64))"
    " if os.path.isfile(p)),r);os.execvp(x,[x,f,*sys.argv[3:]])"
)


def interpreter(ctx: Context) -> str:
    """The interpreter a registered command names: ``python3`` for a project install, the
    resolved absolute one for a global install (a home belongs to one machine)."""
    return PORTABLE_PYTHON if ctx.is_local else native(ctx, ctx.interpreter)


def python_command(ctx: Context, script: str) -> str:
    """``<python> -I -S <script>``: isolated and without site (``script`` is already quoted)."""
    python = PORTABLE_PYTHON if ctx.is_local else command_path(ctx, ctx.interpreter)
    return f"{python} -I -S {script}"


def project_relative(ctx: Context, path: Path) -> str | None:
    """``path`` relative to the project for a local install (``.claude/msd-core/...``), or
    None for a global install or a path outside the project."""
    if ctx.is_local and path.is_relative_to(ctx.cwd):
        return path.relative_to(ctx.cwd).as_posix()
    return None


def launcher_ref(ctx: Context, launcher: Path) -> str:
    """How the MCP server's command names its launcher: relative to the project for a local
    install (runtimes start a project's server in the project root, which the server takes
    as its workspace anyway), else absolute. Also the marker of our server entry."""
    return project_relative(ctx, launcher) or native(ctx, launcher)


def launcher_args(ctx: Context, launcher: Path) -> list[str]:
    """The arguments after the interpreter that start the MCP server."""
    return ["-I", "-S", launcher_ref(ctx, launcher)]


def server_env(ctx: Context) -> dict[str, str]:
    """The server's environment: a project install leaves the audit log to the server, which
    puts it in the state directory of whoever runs it (``msdcore.mcp.config``)."""
    return {} if ctx.is_local else {"MSD_AUDIT_LOG": native(ctx, ctx.audit_log())}


def has_core_file(payload: Payload, relpath: str) -> bool:
    return any(f.relpath == relpath for f in payload.core)
