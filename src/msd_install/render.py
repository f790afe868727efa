"""Text rendering of results for people.

Per runtime: one summary line (counts per verb, the root shown with ``~``), then what needs
the user's attention (every path whose verb is not routine: conflicts, backups, what was kept
or skipped; and every note), then what to do next. ``-v`` adds the per-file list (every path
with its fixed verb) before the summary.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .installer.report import STEADY, VERBS, Result
from .style import PLAIN, Style

if TYPE_CHECKING:  # doctor's checks are imported by doctor, not by every run's report
    from .installer.doctor import Health

# verbs a normal run makes by the hundred: listed only with -v (the summary counts them)
ROUTINE = ("create", "identical", "update", "remove", "migrate", "adopt")
# how each verb is counted in a summary: what was done, and in a dry run what would be
DONE = {
    "create": "created", "identical": "identical", "update": "updated", "conflict": "conflict",
    "backup": "backed up", "remove": "removed", "restore": "restored", "skip": "skipped",
    "kept": "kept", "migrate": "migrated", "adopt": "adopted",
}  # fmt: skip
WOULD = {
    **DONE,
    "create": "to create", "update": "to update", "backup": "to back up",
    "remove": "to remove", "restore": "to restore", "skip": "to skip",
    "migrate": "to migrate", "adopt": "to adopt",
}  # fmt: skip


def show_path(path: Path, home: Path) -> str:
    try:
        return "~/" + path.relative_to(home).as_posix()
    except ValueError:
        return str(path)


def render_text(
    result: Result,
    home: Path,
    *,
    verbose: bool = False,
    next_step: str | None = None,
    style: Style = PLAIN,
) -> str:
    lines = []
    if verbose:
        lines.append(
            f"{RUNTIME_TITLE.get(result.command, result.command)} {result.runtime} "
            f"({result.scope}) at {show_path(result.root, home)}"
            + (" [dry run]" if result.dry_run else "")
        )
        lines += [_action(a.verb, a.path, a.detail, home, style) for a in result.actions]
        lines += [f"  {style.paint('note:', 'yellow')} {note}" for note in result.notes]
    lines.append(style.paint(summary(result, home), bold=True))
    if not verbose:
        lines += [
            _action(a.verb, a.path, a.detail, home, style)
            for a in result.actions
            if a.verb not in ROUTINE or result.command == "reapply"  # a few files, each news
        ]
        lines += [f"  {style.paint('note:', 'yellow')} {note}" for note in result.notes]
    if next_step:
        lines.append(f"  {style.paint('next:', 'cyan', bold=True)} {next_step}")
    return "\n".join(lines)


def summary(result: Result, home: Path) -> str:
    """``install claude (global) at ~/.claude: 152 created, 3 updated, 1 conflict``: the
    counts that are not 0 (so "conflict" appears only when there is one)."""
    words = WOULD if result.dry_run else DONE
    counts = [_count(result.count(v), words[v]) for v in VERBS if result.count(v)]
    where = f"{result.runtime} ({result.scope}) at {show_path(result.root, home)}"
    head = f"{'dry run: ' if result.dry_run else ''}{result.command} {where}"
    return f"{head}: {', '.join(counts) or 'nothing to do'}"


def next_step(result: Result, label: str, first: str) -> str | None:
    """What the user does now: a runtime reads msd's commands, hooks and server when it
    starts, so one that is running must be restarted to see a change."""
    if result.dry_run:
        return None
    changed = result.drift or any(a.verb in ("backup", "restore") for a in result.actions)
    if result.command == "uninstall":
        return f"restart {label}, so that it lets go of msd" if changed else None
    if changed:
        return f"restart {label}, then type {first}"
    return f"in {label}, type {first}"


def _count(n: int, word: str) -> str:
    return f"{n} {word}s" if word == "conflict" and n != 1 else f"{n} {word}"


def _action(verb: str, path: Path, detail: str, home: Path, style: Style) -> str:
    tail = f"  ({detail})" if detail else ""
    return f"  {style.verb(verb)} {show_path(path, home)}{tail}"


RUNTIME_TITLE = {
    "install": "Installing msd into",
    "uninstall": "Removing msd from",
    "adopt": "Adopting msd's files in",
    "reapply": "Reapplying your local patches in",
}


def render_check(result: Result, home: Path, style: Style = PLAIN) -> str:
    """``--check``: only the paths that differ from what an install would write and the
    notes, then one summary line (``ok`` or ``drift``) per runtime."""
    where = f"{result.runtime} ({result.scope}) at {show_path(result.root, home)}"
    lines = []
    for action in result.actions:
        if action.verb not in STEADY or action.verb == "kept":  # a note, not drift
            lines.append(_action(action.verb, action.path, action.detail, home, style))
    lines += [f"  {style.paint('note:', 'yellow')} {note}" for note in result.notes]
    if not any(a.verb not in STEADY for a in result.actions):
        ok = style.paint("check: ok", "green", bold=True)
        same = result.count("identical")
        return "\n".join([*lines, f"{ok}     {where}: {same} paths as installed"])
    counts = ", ".join(
        f"{result.count(v)} {v}" for v in VERBS if v not in STEADY and result.count(v)
    )
    drift = style.paint("check: drift", "red", bold=True)
    return "\n".join([*lines, f"{drift}  {where}: {counts}"])


def render_health(reports: list[Health], home: Path, style: Style = PLAIN) -> str:
    lines: list[str] = []
    for health in reports:
        where = f"{health.runtime} ({health.scope}) at {show_path(health.root, home)}"
        if not health.installed:
            lines.append(f"  -        {where}: not installed")
            lines.extend(f"    note: {f.message}" for f in health.findings)  # a recovery
            continue
        word = "ok" if health.healthy else "PROBLEM"
        mark = style.paint(word, "green" if health.healthy else "red", bold=not health.healthy)
        lines.append(f"  {mark}{' ' * (8 - len(word))} {where}")
        for finding in health.findings:
            level = style.paint(f"{finding.level}:", "red" if finding.level == "problem" else None)
            lines.append(f"    {level} {show_path(finding.path, home)}: {finding.message}")
    problems = sum(1 for h in reports if not h.healthy)
    installed = sum(1 for h in reports if h.installed)
    lines.append(f"doctor: {installed} install(s), {problems} with problems")
    return "\n".join(lines)
