#!/usr/bin/env python3
"""msd-statusline — Claude Code `statusLine` command (MSD Core).

Prints one line: [update notice │] model │ current task │ directory name + a context-usage bar.
The task is the session's in-progress todo (`<root>/todos/<session>-*.json`), else the current
position from `.planning/STATE.md`. Context usage comes from the statusLine JSON
`context_window` (`remaining_percentage`, else `used_percentage`, else `current_usage` tokens
over `context_window_size`); with none of them no bar is shown.

Side effect: writes the context bridge `<tempdir>/msd-ctx-<session>.json`
({session_id, remaining_percentage, used_pct, timestamp}) read by msd-context-monitor.
Set NO_COLOR to drop the ANSI colours.
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

# >>> msd-hook-common: inlined from _blocks/ at install time >>>
# <<< msd-hook-common <<<
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BAR_WIDTH = 10
# the position line of STATE.md (compiled on first use: most status lines never read it)
POSITION = r"(?im)^\s*[*_]*(?:current[ _])?phase[*_]*\s*:\s*[*_]*\s*(\S.*?)\s*$"


def _number(value: object) -> float | None:
    """A finite number, else None: a bool, a string, NaN, an infinity, or an integer too
    large for a float (JSON allows any size: float() of it raises OverflowError)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if number - number == 0 else None  # NaN and ±inf give NaN


def remaining_percent(data: dict[str, Any]) -> float | None:
    """Percentage of the context window still free, or None when the runtime gave no figures."""
    window = data.get("context_window")
    if not isinstance(window, dict):
        return None
    remaining = _number(window.get("remaining_percentage"))
    used = _number(window.get("used_percentage"))
    if remaining is not None:
        value = remaining
    elif used is not None:
        value = 100.0 - used
    else:
        size, usage = _number(window.get("context_window_size")), window.get("current_usage")
        if not (size and size > 0 and isinstance(usage, dict)):
            return None
        keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        tokens = sum(_number(usage.get(k)) or 0.0 for k in keys)
        value = 100.0 - tokens * 100.0 / size
    return min(100.0, max(0.0, value))


def write_bridge(key: str, remaining: float) -> bool:
    """Best effort: the status line must print even when the temp dir is unwritable."""
    record = {
        "session_id": key,
        "remaining_percentage": round(remaining, 1),
        "used_pct": round(100.0 - remaining),
        "timestamp": int(time.time()),
    }
    try:
        write_private(os.path.join(temp_dir(), f"msd-ctx-{key}.json"), json_dumps(record))
    except OSError:
        return False
    return True


def todo_task(key: str) -> str:
    """The in-progress item of the session's newest todo file, if any."""
    todos = os.path.join(ROOT, "todos")
    try:
        names = [n for n in os.listdir(todos) if n.startswith(key) and n.endswith(".json")]
        newest = max(names, key=lambda n: os.path.getmtime(os.path.join(todos, n)))
        items = json_file(os.path.join(todos, newest))
    except (OSError, ValueError):
        return ""
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and item.get("status") == "in_progress":
            text = item.get("activeForm") or item.get("content")
            return text if isinstance(text, str) else ""
    return ""


def planning_position(data: dict[str, Any]) -> str:
    """`Phase …` from the Current Position of .planning/STATE.md (first 16 KiB)."""
    planning = planning_dir(data)
    if planning is None:
        return ""
    try:
        with open(os.path.join(planning, "STATE.md"), encoding="utf-8") as handle:
            text = handle.read(16384)
    except (OSError, ValueError):
        return ""
    import re  # only here: importing re costs about as much as starting Python

    match = re.search(POSITION, text)
    if not match:
        return ""
    value = match.group(1).strip("*_ ")
    return value if value.lower().startswith("phase") else f"Phase {value}"


def update_notice() -> str:
    try:
        cache_file = os.path.join(ROOT, "msd-core", "cache", "msd-update-check.json")
        cache = json_file(cache_file)
        with open(os.path.join(ROOT, "msd-core", "VERSION"), encoding="utf-8") as fh:
            installed = fh.read().strip()
    except (OSError, ValueError):
        return ""
    ok = isinstance(cache, dict) and cache.get("update_available") is True
    return "⬆ /msd-update" if ok and cache.get("installed") == installed else ""


def paint(code: str, text: str) -> str:
    if os.environ.get("NO_COLOR"):
        return text
    return f"\x1b[{code}m{text}\x1b[0m"


def context_bar(remaining: float) -> str:
    used = round(100.0 - remaining)
    filled = min(BAR_WIDTH, int(used * BAR_WIDTH / 100))
    bar = "█" * filled + "░" * (BAR_WIDTH - filled)
    colour = "32" if used < 50 else "33" if used < 65 else "38;5;208" if used < 80 else "5;31"
    return paint(colour, f"{bar} {used}%")


def shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def main(data: dict[str, Any]) -> None:
    model = data.get("model")
    name = model.get("display_name") or model.get("id") if isinstance(model, dict) else None
    workspace = data.get("workspace")
    folder = workspace.get("current_dir") if isinstance(workspace, dict) else None
    folder = folder if isinstance(folder, str) and folder else project_dir(data) or ""
    key = session_key(data)
    remaining = remaining_percent(data)
    if remaining is not None and key:
        write_bridge(key, remaining)
    task = (todo_task(key) if key else "") or planning_position(data)
    parts = [paint("2", name if isinstance(name, str) and name else "Claude")]
    if task:
        parts.append(paint("1", shorten(task, 48)))
    last = [paint("2", os.path.basename(folder.rstrip("/\\")) or folder)] if folder else []
    if remaining is not None:
        last.append(context_bar(remaining))
    if last:
        parts.append(" ".join(last))
    notice = update_notice()
    if notice:
        parts.insert(0, paint("33", notice))
    sys.stdout.write(" │ ".join(parts))


if __name__ == "__main__":
    run(main)
