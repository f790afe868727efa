"""Cline's hook files: one launcher per event, the dispatcher it starts, the hook scripts.

Cline runs every file in ``hooks/`` whose name (case-insensitive, before a known extension) is
an event, by its shebang, and has no matchers. So per event msd writes ``<Event>.sh``, a POSIX
shell launcher that starts ``msd-cline-hooks.py`` (the bytes of ``cline_dispatch``) with the
resolved interpreter and the event's hooks as ``<cline tools> <timeout> <script>`` triples; the
scripts sit next to it (Cline skips names that are not events). The launcher names them
relative to its own folder, so a project's ``.cline/`` works from any clone.

Which hooks Cline can use (verified with ``cline`` 3.0.65): PreToolUse and PostToolUse answers
reach the agent (``contextModification``, after the tool's result) or end the run (``cancel``).
TaskStart and UserPromptSubmit hooks run in the background with their output thrown away, and
Cline has no status line, so the hooks that need either are left out, each with its reason.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from ..installer.context import Context
from ..installer.plan import FileOp
from ..payload import HookSpec
from ..pkgfiles import files
from ._base import interpreter
from .shapes import HookDialect, matcher, unmatched_when

DISPATCHER = "msd-cline-hooks.py"
EVENTS = ("PreToolUse", "PostToolUse")
TOOLS = HookDialect(
    "Cline",
    events={e: e for e in EVENTS},
    tools={
        "Read": "read_files",
        "Write": "editor",
        "Edit": "editor",
        "MultiEdit": "editor",
        "Bash": "run_commands",
        "Grep": "search_codebase",
    },
    dialect="cline",
)
BACKGROUND = (
    "Cline runs TaskStart hooks in the background and ignores what they print, so it cannot "
    "reach the agent"
)
UNUSED = {
    "msd-statusline": "Cline has no status line",
    "msd-context-monitor": "it reads what msd's status line writes, and Cline has none",
    "msd-workflow-guard": "Cline's hook input has no transcript to see an msd workflow",
    "msd-check-update": BACKGROUND,
    "msd-session-state": BACKGROUND,
}


def dispatcher() -> bytes:
    return files(__package__).joinpath("cline_dispatch.py").read_bytes()


def launcher(ctx: Context, event: str, hooks: list[tuple[str, int, str]]) -> str:
    """``<Event>.sh``: runs the dispatcher next to it for ``event`` with ``hooks``."""
    lines = [
        "#!/bin/sh",
        f"# MSD Core's {event} hooks for Cline, written by msd-install (msd-file-manifest.json",
        "# lists this file). It runs each msd hook below for the Cline tools named before it",
        "# (timeout in seconds) and answers Cline with their merged result.",
        "case $0 in */*) here=${0%/*} ;; *) here=. ;; esac",
        f'exec {shlex.quote(interpreter(ctx))} -I -S "$here/{DISPATCHER}" {event} \\',
    ]
    rows = [f"  {shlex.quote(tools)} {timeout} {script}" for tools, timeout, script in hooks]
    return "\n".join([*lines, " \\\n".join(rows)]) + "\n"


def hook_files(
    ctx: Context, root: Path, hooks: tuple[HookSpec, ...]
) -> tuple[list[FileOp], list[str]]:
    """The launchers, the dispatcher and the scripts of every hook they run; notes on the rest."""
    notes: list[str] = []
    per_event: dict[str, list[tuple[str, int, str]]] = {}
    scripts: dict[str, bytes] = {h.script: h.content for h in hooks}
    needed: list[str] = []
    for hook in hooks:
        if not hook.event:
            continue
        if hook.name in UNUSED:
            notes.append(f"hooks: {hook.name} not used: {UNUSED[hook.name]}")
            continue
        if hook.event not in EVENTS:
            notes.append(f"hooks: Cline has no {hook.event} event: {hook.name} not used")
            continue
        if note := unmatched_when(hook, "Cline"):
            notes.append(note)
            continue
        tools, more = matcher(hook.matcher, TOOLS)
        notes += more
        if hook.matcher and tools is None:
            notes.append(f"hooks: {hook.name} matches no Cline tool: not used")
            continue
        per_event.setdefault(hook.event, []).append((tools or "*", hook.timeout or 10, hook.script))
        needed += [s for s in hook.scripts() if s not in needed]
    folder = root / "hooks"
    files = [FileOp(folder / f"{event}.sh", launcher(ctx, event, rows).encode(), 0o755)
             for event, rows in per_event.items()]  # fmt: skip
    if per_event:
        files.append(FileOp(folder / DISPATCHER, dispatcher(), 0o755))
    files += [FileOp(folder / s, scripts[s], 0o755) for s in needed if s in scripts]
    if per_event:
        notes.append(
            "hooks: a blocking msd hook (secret-read guard, commit check) ends Cline's run with "
            "its reason: Cline's file hooks cannot refuse a single tool call"
        )
    if per_event and ctx.platform == "win32":
        notes.append("hooks: Cline runs .sh launchers with bash; on Windows that needs Git Bash")
    return files, notes
