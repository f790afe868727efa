#!/usr/bin/env python3
"""msd-check-update — SessionStart hook (MSD Core): announces a newer msd-install.

Reads `<root>/msd-core/cache/msd-update-check.json` (root = this file's parent's parent, the runtime
root) and, when it says a newer version exists for the version in `<root>/msd-core/VERSION`,
adds a short notice (additionalContext + systemMessage). When the cache is missing, older
than RECHECK_SECONDS or about another installed version, it starts msd-check-update-worker.py
detached in the background and returns at once; the worker refreshes the cache for next time.
"""

from __future__ import annotations

import json
import os
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
HOOKS_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HOOKS_DIR)
CACHE = os.path.join(ROOT, "msd-core", "cache", "msd-update-check.json")
WORKER = os.path.join(HOOKS_DIR, "msd-check-update-worker.py")
RECHECK_SECONDS = 6 * 3600


def installed_version() -> str:
    try:
        with open(os.path.join(ROOT, "msd-core", "VERSION"), encoding="utf-8") as handle:
            return handle.read().strip()
    except (OSError, ValueError):
        return ""


def spawn_worker() -> None:
    """Start the worker in its own session/process group, detached from our pipes."""
    import subprocess

    argv = [sys.executable, "-I", "-S", WORKER]
    null = subprocess.DEVNULL
    if os.name == "nt":
        # DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP | CREATE_NO_WINDOW
        flags = 0x00000008 | 0x00000200 | 0x08000000
        subprocess.Popen(argv, stdin=null, stdout=null, stderr=null, creationflags=flags)
    else:
        subprocess.Popen(argv, stdin=null, stdout=null, stderr=null, start_new_session=True)


def main(data: dict[str, Any]) -> None:
    installed = installed_version()
    if not installed:
        return
    try:
        with open(CACHE, encoding="utf-8") as handle:
            cache = json.load(handle)
    except (OSError, ValueError):
        cache = None
    cache = cache if isinstance(cache, dict) else {}
    current = cache.get("installed") == installed
    checked = cache.get("checked")
    fresh = isinstance(checked, (int, float)) and 0 <= time.time() - checked < RECHECK_SECONDS
    if not (current and fresh) and os.path.isfile(WORKER):
        spawn_worker()
    latest = cache.get("latest")
    if current and cache.get("update_available") is True and isinstance(latest, str):
        text = (
            f"MSD Core update available: msd-install {latest} (installed {installed}). "
            "Run /msd-update to upgrade."
        )
        advise(data, "SessionStart", text, notify=True)


if __name__ == "__main__":
    run(main)
