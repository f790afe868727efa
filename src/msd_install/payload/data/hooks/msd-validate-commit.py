#!/usr/bin/env python3
"""msd-validate-commit — PreToolUse hook on Bash (MSD Core), opt-in, blocking.

Enabled by `.planning/config.json` `{"hooks": {"validate_commit": true}}` (default off).
A `git commit` whose `-m`/`--message` text (including the `-m "$(cat <<'EOF' … EOF)"` form)
does not start with a Conventional Commits header is refused (exit 2, or a Gemini `deny`)
with the expected format. Commits whose message comes from elsewhere (-F, -C, --fixup, the
editor) or depends on shell expansion are let through: there is nothing certain to check.
"""

from __future__ import annotations

import os
import re
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

# >>> msd-hook-common: inlined from _blocks/ at install time >>>
# <<< msd-hook-common <<<
# >>> msd-shell-words: inlined from _blocks/ at install time >>>
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
# patterns, compiled (and cached by re) only when a commit message is checked
_HEADER = r"^(?:" + "|".join(TYPES) + r")(?:\([^()\r\n]+\))?!?: \S"
_EXEMPT = r'^(?:Merge |Revert "|(?:fixup|squash|amend)! )'
# Claude writes multi-line messages as -m "$(cat <<'EOF' … EOF)"; the body may hold quotes
# that a plain word splitter cannot pair, so this form is found on the raw command first.
# No regex spans the body: the closing delimiter line is found by a linear search, because
# a lazy `.*?` up to a back-reference is quadratic (a 1 MB command took minutes).
_OPENER = r"\$\(\s*cat\s+<<-?[ \t]*(['\"]?)(\w+)\1[ \t]*\n"
_MESSAGE_OPTION = r"(?:-m|--message)[ =]?[ \t]*\"(?=\$\()"
MAX_CANDIDATES = 16  # -m "$(cat <<… occurrences looked at in one command
PROBES = [20_000]  # delimiter probes left for this call, all here-documents together
_EXPANSION = r"\$[({A-Za-z_]|`"
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


def heredoc_at(text: str, pos: int) -> tuple[str, int] | None:
    """(body, index after the delimiter line) of a `$(cat <<DELIM` opener at pos, if closed."""
    opener = re.compile(_OPENER).match(text, pos)
    if not opener:
        return None
    delim, start = opener.group(2), opener.end()
    probe = start
    while PROBES[0] > 0:  # one probe per line holding the delimiter: linear, bounded
        PROBES[0] -= 1
        hit = text.find(delim, probe)
        if hit < 0:
            return None
        line = text.rfind("\n", probe - 1, hit) + 1 or probe
        end = hit + len(delim)
        eol = text.find("\n", end)
        eol = len(text) if eol < 0 else eol
        rest = text[end:eol].lstrip(" \t")
        if line >= probe and not text[line:hit].strip(" \t") and rest[:1] in ("", ")"):
            return text[start : max(start, line - 1)], end
        probe = eol + 1
    return None


def raw_heredoc_messages(command: str) -> list[str]:
    """Bodies of `git … commit … -m "$(cat <<EOF … EOF)"` forms in the raw command."""
    found: list[str] = []
    for n, m in enumerate(re.finditer(_MESSAGE_OPTION, command)):
        if n >= MAX_CANDIDATES:
            break
        line_start = command.rfind("\n", max(0, m.start() - 4096), m.start()) + 1
        head = command[max(line_start, m.start() - 4096) : m.start()]
        if re.search(r"\bgit\b.*\bcommit\b", head):
            heredoc = heredoc_at(command, m.end())
            if heredoc:
                found.append(heredoc[0])
    return found


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
    text = message.strip()
    heredoc = heredoc_at(text, 0)
    if heredoc and text[heredoc[1] :].strip(" \t\n") == ")":
        message = heredoc[0]
    elif re.search(_EXPANSION, message):
        return None  # the shell decides the text; nothing certain to check
    header = message.strip().split("\n", 1)[0].strip()
    if re.match(_EXEMPT, header):
        return None
    if not re.match(_HEADER, header):
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
    messages = raw_heredoc_messages(command)
    for words in shell_segments(command):
        args = commit_args(words)
        message = message_of(args) if args is not None and not messages else None
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
