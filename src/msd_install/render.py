"""Text rendering of results: one line per path with its fixed verb, then a summary line."""

from __future__ import annotations

from pathlib import Path

from .installer.doctor import Health
from .installer.report import STEADY, VERBS, Result


def show_path(path: Path, home: Path) -> str:
    try:
        return "~/" + path.relative_to(home).as_posix()
    except ValueError:
        return str(path)


def render_text(result: Result, home: Path) -> str:
    title = "would " if result.dry_run else ""
    head = (
        f"{RUNTIME_TITLE.get(result.command, result.command)} {result.runtime} "
        f"({result.scope}) at {show_path(result.root, home)}"
        + (" [dry run]" if result.dry_run else "")
    )
    lines = [head]
    for action in result.actions:
        detail = f"  ({action.detail})" if action.detail else ""
        lines.append(f"  {action.verb:<9} {show_path(action.path, home)}{detail}")
    for note in result.notes:
        lines.append(f"  note: {note}")
    counts = ", ".join(f"{result.count(v)} {v}" for v in VERBS if result.count(v))
    lines.append(f"{title}{result.command}: {counts or 'nothing to do'}")
    return "\n".join(lines)


RUNTIME_TITLE = {
    "install": "Installing msd into",
    "uninstall": "Removing msd from",
    "adopt": "Adopting msd's files in",
}


def render_check(result: Result, home: Path) -> str:
    """``--check``: only the paths that differ from what an install would write and the
    notes, then one summary line (``ok`` or ``drift``) per runtime."""
    where = f"{result.runtime} ({result.scope}) at {show_path(result.root, home)}"
    lines = []
    for action in result.actions:
        if action.verb not in STEADY or action.verb == "kept":  # a note, not drift
            detail = f"  ({action.detail})" if action.detail else ""
            lines.append(f"  {action.verb:<9} {show_path(action.path, home)}{detail}")
    lines += [f"  note: {note}" for note in result.notes]
    if not any(a.verb not in STEADY for a in result.actions):
        return "\n".join(
            [*lines, f"check: ok     {where}: {result.count('identical')} paths as installed"]
        )
    counts = ", ".join(
        f"{result.count(v)} {v}" for v in VERBS if v not in STEADY and result.count(v)
    )
    return "\n".join([*lines, f"check: drift  {where}: {counts}"])


def render_health(reports: list[Health], home: Path) -> str:
    lines: list[str] = []
    for health in reports:
        where = f"{health.runtime} ({health.scope}) at {show_path(health.root, home)}"
        if not health.installed:
            lines.append(f"  -        {where}: not installed")
            lines.extend(f"    note: {f.message}" for f in health.findings)  # a recovery
            continue
        lines.append(f"  {'ok' if health.healthy else 'PROBLEM':<8} {where}")
        for finding in health.findings:
            lines.append(f"    {finding.level}: {show_path(finding.path, home)}: {finding.message}")
    problems = sum(1 for h in reports if not h.healthy)
    installed = sum(1 for h in reports if h.installed)
    lines.append(f"doctor: {installed} install(s), {problems} with problems")
    return "\n".join(lines)
