"""What every runtime module provides, and the shapes several runtimes share.

A runtime module exports ``ADAPTER = Adapter(...)``: its name and label, how to find its
global and local roots, how to detect it, and a pure ``plan`` function (payload -> Plan).
Shared shapes live here so that a Claude-like runtime is a short module of data.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .. import __version__
from ..errors import UsageError
from ..installer.context import Context
from ..installer.plan import FileOp, Plan
from ..payload import PLACEHOLDER_ROOT, DataFile, Payload

CORE_DIR = "msd-core"


@dataclass(frozen=True)
class Adapter:
    name: str  # the flag is --<name>
    label: str
    global_root: Callable[[Context], Path]
    local_root: Callable[[Context], Path]
    detect: Callable[[Context], bool]
    plan: Callable[[Context, Payload], Plan]

    def root(self, ctx: Context) -> Path:
        """The root for the context's scope, absolute and normalised (no ``..``, no ``.``)."""
        if ctx.is_local:
            root = self.local_root(ctx)
        elif ctx.config_dir is not None:
            root = ctx.config_dir
        else:
            root = self.global_root(ctx)
        return Path(os.path.abspath(root))  # noqa: PTH100 - resolve() would follow links


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


def data_files(root: Path, files: tuple[DataFile, ...], prefix: str, ref: str) -> list[FileOp]:
    ops: list[FileOp] = []
    for item in files:
        content = item.content
        if item.is_text:
            content = rewrite(content.decode("utf-8"), ref).encode("utf-8")
        ops.append(
            FileOp(root / prefix / item.relpath, content, 0o755 if item.executable else 0o644)
        )
    return ops


def core_files(root: Path, payload: Payload, ref: str) -> list[FileOp]:
    """``<root>/msd-core/``: workflows, references, templates, bin, the stdlib lib, VERSION."""
    ops = data_files(root, payload.core, CORE_DIR, ref)
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


def python_command(ctx: Context, script: str) -> str:
    """``"<python>" -I -S <script>``: the resolved interpreter, isolated and without site."""
    return f"{quoted(ctx.interpreter)} -I -S {script}"


def has_core_file(payload: Payload, relpath: str) -> bool:
    return any(f.relpath == relpath for f in payload.core)
