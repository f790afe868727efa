#!/usr/bin/env python3
"""msd-validate-commit — PreToolUse hook on Bash (MSD Core), opt-in, blocking.

Enabled by `.planning/config.json` `{"hooks": {"validate_commit": true}}` (default off).
A `git commit` whose `-m`/`--message` text (including the `-m "$(cat <<'EOF' … EOF)"` form)
does not start with a Conventional Commits header is refused (exit 2, or a Gemini `deny`)
with the expected format. Commits whose message comes from elsewhere (-F, -C, --fixup, the
editor) or depends on shell expansion are let through: there is nothing certain to check.
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
# >>> msd-shell-words: identical in msd-secret-read-guard.py and msd-validate-commit.py >>>
# A small POSIX-shell splitter (quotes, escapes, operators), cheaper to import than shlex and,
# unlike shlex, aware of `;`, `&&`, `|`, `$(`, redirections. Duplicated for the reason above.
_REDIRECT = re.compile(r"&>>|&>|<<<|<<-|<<|<>|<&|>>|>&|>\||<|>")


def shell_segments(command: str) -> list[list[str]]:
    """Split a command line into simple commands, each a list of words; redirections are words."""
    segments: list[list[str]] = [[]]
    word: list[str] = []
    quoted = False
    i, n = 0, len(command)

    def finish() -> None:
        nonlocal quoted
        if word or quoted:
            segments[-1].append("".join(word))
        word.clear()
        quoted = False

    while i < n:
        c = command[i]
        if c == "'":
            end = command.find("'", i + 1)
            end = n if end < 0 else end
            word.append(command[i + 1 : end])
            quoted, i = True, end + 1
        elif c == '"':
            i += 1
            while i < n and command[i] != '"':
                if command[i] == "\\" and i + 1 < n and command[i + 1] in '$`"\\\n':
                    i += 1
                word.append(command[i])
                i += 1
            quoted, i = True, i + 1
        elif c == "\\":
            if command[i + 1 : i + 2] != "\n":  # backslash-newline is a line continuation
                word.append(command[i + 1 : i + 2])
                quoted = True
            i += 2
        elif c in " \t":
            finish()
            i += 1
        elif c == "#" and not word and not quoted:
            end = command.find("\n", i)
            i = n if end < 0 else end
        elif c in "<>" or command.startswith("&>", i):
            if word and "".join(word).isdigit() and not quoted:
                word.clear()  # a file-descriptor number such as the 2 in 2>
            finish()
            match = _REDIRECT.match(command, i)
            op = match.group(0) if match else c
            segments[-1].append(op)
            i += len(op)
        elif c in ";&|\n()`" or command.startswith("$(", i):
            finish()
            if segments[-1]:
                segments.append([])
            i += 2 if command[i : i + 2] in ("$(", "&&", "||", ";;") else 1
        else:
            word.append(c)
            i += 1
    finish()
    return [segment for segment in segments if segment]


# <<< msd-shell-words <<<
TYPES = (
    "build",
    "chore",
    "ci",
    "docs",
    "feat",
    "fix",
    "perf",
    "refactor",
    "revert",
    "style",
    "test",
)
MAX_HEADER = 100
_HEADER = re.compile(r"^(?:" + "|".join(TYPES) + r")(?:\([^()\r\n]+\))?!?: \S")
_EXEMPT = re.compile(r'^(?:Merge |Revert "|(?:fixup|squash|amend)! )')
_HEREDOC = re.compile(
    r"^\$\(\s*cat\s+<<-?\s*(['\"]?)(\w+)\1[ \t]*\n(.*?)\n[ \t]*\2[ \t]*\n?\s*\)\s*$", re.S
)
# Claude writes multi-line messages as -m "$(cat <<'EOF' ... EOF)"; the body may hold quotes
# that a plain word splitter cannot pair, so this form is matched on the raw command first.
_RAW_HEREDOC = re.compile(
    r"\bgit\b[^\n]*?\bcommit\b[^\n]*?(?:-m|--message)[ =]?\s*\"\$\(\s*cat\s+<<-?\s*(['\"]?)(\w+)\1"
    r"[ \t]*\n(.*?)\n[ \t]*\2[ \t]*(?:\n|\)|$)",
    re.S,
)
_EXPANSION = re.compile(r"\$[({A-Za-z_]|`")
_WRAPPERS = {"sudo", "env", "command", "exec", "nohup", "time"}
_GIT_ARG_OPTIONS = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"}
_OTHER_SOURCES = {
    "--file",
    "--reuse-message",
    "--reedit-message",
    "--template",
    "--fixup",
    "--squash",
}


def commit_args(words: list[str]) -> list[str] | None:
    """The arguments after `git … commit` in one simple command, else None."""
    index = 0
    while index < len(words) and ("=" in words[index] or words[index] in _WRAPPERS):
        index += 1
    if index >= len(words) or os.path.basename(words[index]) not in ("git", "git.exe"):
        return None
    index += 1
    while index < len(words) and words[index].startswith("-"):
        index += 2 if words[index] in _GIT_ARG_OPTIONS else 1
    if index < len(words) and words[index] == "commit":
        return words[index + 1 :]
    return None


def message_of(args: list[str]) -> str | None:
    """The commit message given with -m/--message (joined as git does), None if not given."""
    messages: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        nxt = args[index + 1] if index + 1 < len(args) else ""
        if arg == "--":
            break
        if arg.startswith("--"):
            name, eq, value = arg.partition("=")
            if name == "--message":
                messages.append(value if eq else nxt)
                index += 0 if eq else 1
            elif name in _OTHER_SOURCES:
                return None
        elif arg.startswith("-") and len(arg) > 1:
            for pos, flag in enumerate(arg[1:], start=1):
                if flag in "mFCct":
                    if flag != "m":
                        return None
                    attached = arg[pos + 1 :]
                    messages.append(attached or nxt)
                    index += 0 if attached else 1
                    break
                if flag in "Su":  # optional value glued to the flag
                    break
        index += 1
    return "\n\n".join(messages) if messages else None


def problem(message: str) -> str | None:
    heredoc = _HEREDOC.match(message.strip())
    if heredoc:
        message = heredoc.group(3)
    elif _EXPANSION.search(message):
        return None  # the shell decides the text; nothing certain to check
    header = message.strip().split("\n", 1)[0].strip()
    if _EXEMPT.match(header):
        return None
    if not _HEADER.match(header):
        return f'commit message "{header[:80]}" is not a Conventional Commit'
    if len(header) > MAX_HEADER:
        return f"commit header is {len(header)} characters long (at most {MAX_HEADER})"
    return None


def main(data: dict[str, Any]) -> None:
    if tool_kind(data) != "bash":
        return
    command = tool_input(data).get("command")
    if not isinstance(command, str) or "commit" not in command:
        return
    if not hook_flag(planning_dir(data), "validate_commit", False):
        return
    raw = _RAW_HEREDOC.search(command)
    messages = [raw.group(3)] if raw else []
    for words in shell_segments(command):
        args = commit_args(words)
        message = message_of(args) if args is not None and not raw else None
        if message is not None:
            messages.append(message)
    for message in messages:
        issue = problem(message)
        if issue:
            block(
                data,
                f"msd-validate-commit: {issue}. Expected `<type>(<optional scope>): "
                f"<description>` with type one of {', '.join(TYPES)} (`!` before the colon "
                "marks a breaking change), e.g. `fix(auth): refresh expired tokens`.",
            )


if __name__ == "__main__":
    run(main)
