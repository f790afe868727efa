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

import json
import os
import re
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

# >>> msd-hook-common: identical in every msd-*.py hook >>>
# Why duplicated: each hook is installed as a lone file and started as `python -I -S <file>` on
# every tool call, so it cannot import a shared module (no sys.path, no site-packages) and must
# stay cheap to start. tests/hooks/test_hook_files.py fails when any copy of this block drifts.
STDIN_TIMEOUT = 3.0
MAX_INPUT = 16 * 1024 * 1024
GEMINI_EVENTS = {"PreToolUse": "BeforeTool", "PostToolUse": "AfterTool"}
# Claude tool names are the source vocabulary; Gemini/Qwen/Codex names map onto the same kinds.
TOOL_KINDS = {
    "Read": "read",
    "read_file": "read",
    "read_many_files": "read",
    "Write": "write",
    "write_file": "write",
    "Edit": "edit",
    "MultiEdit": "edit",
    "replace": "edit",
    "edit": "edit",
    "Bash": "bash",
    "run_shell_command": "bash",
    "shell": "bash",
    "Grep": "grep",
    "grep_search": "grep",
    "search_file_content": "grep",
}


def _as_object(raw: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(raw.decode("utf-8-sig", "replace"))
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def read_input() -> dict[str, Any] | None:
    """The hook's stdin JSON object; None on EOF without one or after STDIN_TIMEOUT seconds.

    Stops as soon as a complete object has arrived, because some runtimes keep stdin open.
    """
    buf: list[bytes] = []
    found: list[dict[str, Any]] = []
    deadline = time.monotonic() + STDIN_TIMEOUT

    def pump(ready: Callable[[], bool]) -> None:
        size = 0
        while size < MAX_INPUT and ready():
            chunk = os.read(0, 65536)
            if not chunk:
                return
            buf.append(chunk)
            size += len(chunk)
            if chunk.rstrip().endswith(b"}"):
                data = _as_object(b"".join(buf))
                if data is not None:
                    found.append(data)
                    return

    if os.name == "nt":  # select() only takes sockets on Windows: read in a daemon thread
        import threading

        reader = threading.Thread(target=pump, args=(lambda: True,), daemon=True)
        reader.start()
        reader.join(STDIN_TIMEOUT)
    else:
        import select

        def ready() -> bool:
            left = max(0.0, deadline - time.monotonic())
            return bool(select.select([0], [], [], left)[0])

        pump(ready)
    return found[0] if found else _as_object(b"".join(list(buf)))


def dialect(data: dict[str, Any]) -> str:
    """`claude` or `gemini`: argv `--dialect X`, else env MSD_HOOK_DIALECT, else the event name."""
    args = sys.argv[1:]
    chosen = ""
    for i, arg in enumerate(args):
        if arg == "--dialect" and i + 1 < len(args):
            chosen = args[i + 1]
        elif arg.startswith("--dialect="):
            chosen = arg.partition("=")[2]
    chosen = chosen or os.environ.get("MSD_HOOK_DIALECT", "")
    if chosen in ("claude", "gemini"):
        return chosen
    return "gemini" if data.get("hook_event_name") in ("BeforeTool", "AfterTool") else "claude"


def project_dir(data: dict[str, Any]) -> str | None:
    """The stdin `cwd`, else $CLAUDE_PROJECT_DIR / $GEMINI_PROJECT_DIR; never the process cwd."""
    candidates = [data.get("cwd")]
    candidates += [os.environ.get(k) for k in ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR")]
    for value in candidates:
        if isinstance(value, str) and os.path.isabs(value):
            return value
    return None


def planning_dir(data: dict[str, Any]) -> str | None:
    """The nearest `.planning/` at or above the project dir, not crossing a git root."""
    here = project_dir(data)
    while here:
        candidate = os.path.join(here, ".planning")
        if os.path.isdir(candidate):
            return candidate
        parent = os.path.dirname(here)
        if parent == here or os.path.exists(os.path.join(here, ".git")):
            return None
        here = parent
    return None


def hook_flag(planning: str | None, key: str, default: bool) -> bool:
    """`hooks.<key>` from .planning/config.json when it is a boolean, else `default`."""
    if planning is None:
        return default
    try:
        with open(os.path.join(planning, "config.json"), encoding="utf-8") as handle:
            config = json.load(handle)
    except (OSError, ValueError):
        return default
    hooks = config.get("hooks") if isinstance(config, dict) else None
    value = hooks.get(key) if isinstance(hooks, dict) else None
    return value if isinstance(value, bool) else default


def tool_kind(data: dict[str, Any]) -> str:
    name = data.get("tool_name")
    return TOOL_KINDS.get(name, "") if isinstance(name, str) else ""


def tool_input(data: dict[str, Any]) -> dict[str, Any]:
    value = data.get("tool_input")
    return value if isinstance(value, dict) else {}


def target_path(data: dict[str, Any]) -> str | None:
    """The file a Read/Write/Edit call targets, made absolute against the project dir."""
    args = tool_input(data)
    for key in ("file_path", "absolute_path", "notebook_path", "path"):
        value = args.get(key)
        if isinstance(value, str) and value:
            base = project_dir(data)
            if base and not os.path.isabs(value):
                value = os.path.join(base, value)
            return os.path.normpath(value)
    return None


def temp_dir() -> str:
    """Where per-session state lives; computed here because importing tempfile is slow."""
    for key in ("TMPDIR", "TEMP", "TMP"):
        value = os.environ.get(key)
        if value and os.path.isdir(value):
            return value
    if os.name == "nt":
        return os.path.join(os.environ.get("LOCALAPPDATA", "C:\\"), "Temp")
    return "/tmp"


def session_key(data: dict[str, Any]) -> str:
    """The session id reduced to characters that are safe in a file name ('' if none)."""
    value = data.get("session_id")
    if not isinstance(value, str):
        return ""
    return "".join(c for c in value if c.isascii() and (c.isalnum() or c in "-_"))[:128]


def write_private(path: str, text: str) -> None:
    """Replace `path` atomically with a file only this user can read.

    A fresh O_EXCL temp file plus rename never follows a symlink planted at `path` in a shared
    temp dir, and readers never see a half-written file.
    """
    tmp = f"{path}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, text.encode("utf-8"))
    finally:
        os.close(fd)
    try:
        os.replace(tmp, path)
    except OSError:
        os.remove(tmp)
        raise


def emit(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj))
    sys.stdout.flush()


def advise(data: dict[str, Any], event: str, text: str, notify: bool = False) -> None:
    """Advisory context for the agent (and, with notify, a message for the user)."""
    if dialect(data) == "gemini":
        event = GEMINI_EVENTS.get(event, event)
        # Gemini documents additionalContext only for AfterTool/SessionStart: show the user too.
        notify = notify or event == "BeforeTool"
    out: dict[str, Any] = {
        "hookSpecificOutput": {"hookEventName": event, "additionalContext": text}
    }
    if notify:
        out["systemMessage"] = text
    emit(out)


def block(data: dict[str, Any], reason: str) -> None:
    """Refuse the tool call: exit 2 + stderr (Claude), or a `deny` decision (Gemini)."""
    if dialect(data) == "gemini":
        emit({"decision": "deny", "reason": reason})
        raise SystemExit(0)
    sys.stderr.write(reason.replace("\n", " ") + "\n")
    sys.stderr.flush()
    raise SystemExit(2)


def run(main: Callable[[dict[str, Any]], None]) -> None:
    """Run a hook; any failure is swallowed (exit 0) so a hook can never break the agent."""
    code = 0
    try:
        data = read_input()
        if data is not None:
            main(data)
    except SystemExit as exc:
        code = 2 if exc.code == 2 else 0
    except BaseException:
        code = 0
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        pass
    os._exit(code)


# <<< msd-hook-common <<<
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BAR_WIDTH = 10
_POSITION = re.compile(r"(?im)^\s*[*_]*(?:current[ _])?phase[*_]*\s*:\s*[*_]*\s*(\S.*?)\s*$")


def _number(value: object) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


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
        write_private(os.path.join(temp_dir(), f"msd-ctx-{key}.json"), json.dumps(record))
    except OSError:
        return False
    return True


def todo_task(key: str) -> str:
    """The in-progress item of the session's newest todo file, if any."""
    todos = os.path.join(ROOT, "todos")
    try:
        names = [n for n in os.listdir(todos) if n.startswith(key) and n.endswith(".json")]
        newest = max(names, key=lambda n: os.path.getmtime(os.path.join(todos, n)))
        with open(os.path.join(todos, newest), encoding="utf-8") as handle:
            items = json.load(handle)
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
    match = _POSITION.search(text)
    if not match:
        return ""
    value = match.group(1).strip("*_ ")
    return value if value.lower().startswith("phase") else f"Phase {value}"


def update_notice() -> str:
    try:
        cache_file = os.path.join(ROOT, "msd-core", "cache", "msd-update-check.json")
        with open(cache_file, encoding="utf-8") as fh:
            cache = json.load(fh)
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
