#!/usr/bin/env python3
"""msd-secret-read-guard — PreToolUse hook on Read|Grep|Bash (MSD Core), blocking.

Refuses to let the agent read credentials files: `.env`, `.env.<anything>` and every path
named or inside `.secrets`. Templates stay readable: `.env.*` whose LAST suffix is one of
TEMPLATE_SUFFIXES (`.env.example`, `.env.local.sample`, `.env.dist`, `.env.defaults`, …),
because they hold variable names, not values. A directory called `.env` (a virtualenv) is not
a secret file. Symlinks are resolved, so `ln -s .env x; cat x` is refused too.

Checked: Read `file_path`; Grep `path` and `glob`/`include`; Bash commands that print, copy,
source or send such a file (cat, less, head, tail, grep, sed, awk, source, cp, mv, base64,
diff, tar, curl -T/@file, `< .env`, git show/diff/log, find -exec cat, inline -c/-e code, …).
Naming a file is fine when nothing reads it (`ls .env`, `echo .env >> .gitignore`,
`cp .env.example .env`, `git add`). This is a guard against accidental disclosure by the
agent, not a sandbox: a determined shell program can always find another way.

Claude dialect: exit 2 with the reason on stderr; Gemini dialect: {"decision": "deny"}.
"""

from __future__ import annotations

import fnmatch
import itertools
import json
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
TEMPLATE_SUFFIXES = {
    "example", "examples", "sample", "samples", "template", "templates",
    "tmpl", "tpl", "dist", "default", "defaults", "schema",
}  # fmt: skip
READERS = {
    "cat", "tac", "nl", "less", "more", "most", "head", "tail", "bat", "batcat", "view",
    "strings", "od", "xxd", "hexdump", "hd", "base64", "base32", "basenc", "uuencode",
    "diff", "sdiff", "diff3", "comm", "cut", "paste", "join", "sort", "uniq", "column",
    "fold", "fmt", "pr", "rev", "iconv", "source", ".", "tar", "zip", "7z", "gzip", "bzip2",
    "xz", "zstd", "gpg", "openssl", "dotenv", "type", "get-content",
}  # fmt: skip
PATTERN_FIRST = {"grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack", "sed", "awk", "gawk",
                 "mawk", "nawk", "jq", "yq"}  # fmt: skip
PATTERN_OPTIONS = {"-e", "--regexp", "--expression"}
FILE_PATTERN_OPTIONS = {"-f", "--file"}
COPIERS = {"cp", "mv", "rsync", "scp", "install", "rclone"}
SHELLS = {"bash", "sh", "zsh", "dash", "ksh", "fish"}
INLINE_CODE = {"-c", "-e", "-E", "-p", "-r", "--eval", "--print", "--command"}
WRAPPERS = {"sudo", "doas", "env", "command", "builtin", "exec", "nohup", "time", "nice",
            "ionice", "stdbuf", "timeout", "watch", "unbuffer", "xargs"}  # fmt: skip
DOWNLOAD_TARGETS = {"-o", "-O", "--output", "--output-document"}
GIT_READERS = {"show", "diff", "log", "blame", "cat-file", "grep", "archive", "format-patch"}
SECRET_SAMPLES = (".env", ".env.local", ".env.production", ".secrets")
_ASSIGNMENT = re.compile(r"^[A-Za-z_]\w*=")
_INTERPRETER = re.compile(r"^(?:python[\d.]*|pypy[\d.]*|node|nodejs|deno|bun|ruby|perl|php)$")
_MENTION = re.compile(r"(?<![\w.-])(\.env(?:\.[\w-]+)*|\.secrets)(?![\w-])", re.IGNORECASE)
_SUBSTITUTION = re.compile(r"\$\(([^()]*)\)|`([^`]*)`")
_HEREDOC = re.compile(
    r"(<<-?[ \t]*(['\"]?)([A-Za-z_]\w*)\2[^\n]*\n).*?\n[ \t]*\3[ \t]*(?=\n|$)", re.S
)


def secret_name(name: str) -> bool:
    low = name.lower()
    if low == ".env":
        return True
    return low.startswith(".env.") and low.rsplit(".", 1)[1] not in TEMPLATE_SUFFIXES


def secret_parts(path: str) -> bool:
    parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
    return bool(parts) and (any(p.lower() == ".secrets" for p in parts) or secret_name(parts[-1]))


def secret_path(path: str, base: str | None) -> bool:
    """Whether reading `path` (relative to `base`) would read a credentials file."""
    path = path.strip()
    if not path or "://" in path:
        return False
    full = os.path.join(base, path) if base and not os.path.isabs(path) else path
    if secret_parts(path):
        return not os.path.isdir(full) or ".secrets" in full.lower().replace("\\", "/").split("/")
    if os.path.isabs(full) and os.path.lexists(full):
        return secret_parts(os.path.realpath(full))
    return False


def expand_braces(pattern: str) -> list[str]:
    match = re.search(r"\{([^{}]*)\}", pattern)
    if not match:
        return [pattern]
    head, tail = pattern[: match.start()], pattern[match.end() :]
    return [v for alt in match.group(1).split(",") for v in expand_braces(head + alt + tail)]


def glob_targets_secret(pattern: str) -> bool:
    """A Grep glob aims at secrets when it names them and would match one."""
    low = pattern.lower()
    if ".env" not in low and ".secrets" not in low:
        return False
    for alternative in expand_braces(low):
        segments = alternative.replace("\\", "/").rstrip("/").split("/")
        if any(s == ".secrets" for s in segments[:-1]):
            return True
        if any(fnmatch.fnmatchcase(sample, segments[-1]) for sample in SECRET_SAMPLES):
            return True
    return False


def command_name(word: str) -> str:
    return os.path.basename(word.lstrip("\\")).lower().removesuffix(".exe")


def positionals(words: list[str], takes_value: set[str]) -> list[str]:
    out: list[str] = []
    options_done = False
    skip_next = False
    for word in words:
        if skip_next:
            skip_next = False
        elif options_done or not word.startswith("-") or word == "-":
            out.append(word)
        elif word == "--":
            options_done = True
        elif word in takes_value:
            skip_next = True  # the pattern / awk variable that follows is not a file
    return out


def segment_hit(words: list[str], base: str | None, depth: int) -> str | None:
    """The secret a simple command would read, or None."""
    args: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        target = words[index + 1] if index + 1 < len(words) else ""
        if word in ("<", "<>"):
            if secret_path(target, base):
                return target
            index += 2
        elif _REDIRECT.fullmatch(word):
            index += 2  # output redirection, here-doc delimiter or here-string: not a read
        else:
            args.append(word)
            index += 1
    while args and _ASSIGNMENT.match(args[0]):
        args.pop(0)
    while args and command_name(args[0]) in WRAPPERS:
        args.pop(0)
        while args and (
            args[0].startswith("-") or _ASSIGNMENT.match(args[0]) or args[0][:1].isdigit()
        ):
            args.pop(0)
    if not args:
        return None
    name, rest = command_name(args[0]), args[1:]
    if name == "eval":
        return scan_command(" ".join(rest), base, depth + 1)
    if name in SHELLS or _INTERPRETER.match(name):
        for flag, code in itertools.pairwise(rest):
            if flag in INLINE_CODE or (
                flag.startswith("-") and flag[-1:] in "ce" and len(flag) < 5
            ):
                if name in SHELLS:
                    return scan_command(code, base, depth + 1)
                for mention in _MENTION.finditer(code):
                    if secret_parts(mention.group(1)):
                        return mention.group(1)
        return None
    if name == "git":
        while rest and rest[0].startswith("-"):
            rest = rest[2:] if rest[0] in ("-C", "-c") else rest[1:]
        if rest and rest[0] in GIT_READERS:
            for word in rest[1:]:
                for piece in word.split(":"):
                    if secret_path(piece, base):
                        return word
        return None
    if name == "find":
        for flag, runner in itertools.pairwise(rest):
            if flag in ("-exec", "-execdir", "-ok", "-okdir") and (
                command_name(runner) in READERS | PATTERN_FIRST | COPIERS
            ):
                for word in rest:
                    if secret_parts(word) or glob_targets_secret(word):
                        return word
        return None
    if name in ("curl", "wget", "http", "https", "xh"):
        for previous, word in zip(["", *rest], rest, strict=False):
            if previous not in DOWNLOAD_TARGETS and secret_path(word.rpartition("@")[2], base):
                return word  # an upload: -T .env, -F f=@.env, --data-binary @.env
        return None
    if name not in READERS and name not in PATTERN_FIRST and name not in COPIERS:
        return None
    awk = name in ("awk", "gawk", "mawk", "nawk")
    files = positionals(rest, PATTERN_OPTIONS | {"-v"} if awk else PATTERN_OPTIONS)
    if name in PATTERN_FIRST:
        explicit = PATTERN_OPTIONS | FILE_PATTERN_OPTIONS
        if not any(w in explicit or w.partition("=")[0] in explicit for w in rest):
            files = files[1:]  # the first operand is the pattern / program
    elif name in COPIERS and not any(w in ("-t", "--target-directory") for w in rest):
        files = files[:-1]  # the last operand is the destination
    for word in files:
        if secret_path(word, base):
            return word
    return None


def scan_command(command: str, base: str | None, depth: int = 0) -> str | None:
    if depth > 4 or not command:
        return None
    for match in _SUBSTITUTION.finditer(command):
        hit = scan_command(match.group(1) or match.group(2) or "", base, depth + 1)
        if hit:
            return hit
    body = _HEREDOC.sub(lambda m: m.group(1), command)
    for words in shell_segments(body):
        hit = segment_hit(words, base, depth)
        if hit:
            return hit
    return None


def refused(data: dict[str, Any]) -> str | None:
    kind, args, base = tool_kind(data), tool_input(data), project_dir(data)
    if kind == "read":
        path = target_path(data)
        if path and secret_path(path, base):
            return path
        many = args.get("paths") or args.get("include")  # Gemini read_many_files
        for item in many if isinstance(many, list) else []:
            if isinstance(item, str) and (secret_path(item, base) or glob_targets_secret(item)):
                return item
        return None
    if kind == "grep":
        for key in ("path", "dir_path"):
            value = args.get(key)
            if isinstance(value, str) and secret_path(value, base):
                return value
        for key in ("glob", "include"):
            value = args.get(key)
            if isinstance(value, str) and glob_targets_secret(value):
                return value
        return None
    command = args.get("command")
    if kind == "bash" and isinstance(command, str):
        return scan_command(command, base)
    return None


def main(data: dict[str, Any]) -> None:
    hit = refused(data)
    if hit:
        block(
            data,
            f"msd-secret-read-guard: reading {hit} is blocked: .env and .secrets files hold "
            "credentials. Use .env.example (or ask the user) to learn which variables exist.",
        )


if __name__ == "__main__":
    run(main)
