#!/usr/bin/env python3
"""msd-secret-read-guard — PreToolUse hook on Read|Grep|Bash (MSD Core), blocking.

Refuses to let the agent read credentials files: `.env`, `.env.<anything>` and every path
named or inside `.secrets`. Templates stay readable: `.env.*` whose LAST suffix is one of
TEMPLATE_SUFFIXES (`.env.example`, `.env.local.sample`, `.env.dist`, …), because they hold
variable names, not values. A directory called `.env` (a virtualenv) is not a secret file.
A symlink to a secret, a file inside a symlinked `.secrets`, and a hard link to a secret
under another name (same st_dev/st_ino as a secret found near the project) count as the secret.

Bash commands are followed the way bash runs them, against the real files at the call's
working directory (stdin `cwd`): globs, braces, `$'…'`, variables set earlier in the command,
`cd`, functions, `eval`, `sh -c`, text fed to a shell or an interpreter by a here-document,
here-string or pipe, names passed on by pipes, `xargs` and `find -exec`, wrappers and their
options (`timeout -s KILL 5 …`, `sudo -u root …`, `env -i X=1 …`). A command reads a secret
when it opens one: readers (cat, less, grep, sed, awk, vim, dd if=, xxd, base64, …), copies
and uploads (cp, rsync, scp, tar, zip, curl -F f=@…, wget --post-file), input redirections
(`< .env`, `done < .env`), `source`, a recursive reader (grep -r, rg, tar c, cp -r, zip -r,
rsync -a) over a folder holding a secret, or interpreter code as defined in the helper's
msd-secret-code block (a string literal is not a read: `python3 -c "print('.env')"` passes).
rg, ag and pt skip hidden files unless told otherwise, so `rg TOKEN` passes unless a
non-hidden link to a secret exists; `git grep` searches tracked files only and passes
unless `--no-index`/`--untracked`. Naming a file is fine when nothing reads it: `ls .env`,
`test -f .env`, `touch .env`, `rm .env`, `echo .env >> .gitignore`, `cp .env.example .env`,
`git add .env.example`, and programs that are merely given the path (`docker compose
--env-file .env up`, `node --env-file=.env app.js`): they use the values without showing
them to the agent. A copy whose destination is itself a secret name (`cp .env .env.bak`)
stays guarded and passes.

Fails closed: a command over 1 MiB, one that needs more than the analysis budget (steps,
directory entries, nesting, 2.5 s), valid JSON that json cannot parse, and an analysis still
running after HARD_DEADLINE (a SIGALRM: a hung system call) are refused with the reason.
This is a guard against accidental disclosure by the agent, not a sandbox: a program can
always print what it reads.

Why no Claude Code `permissions.deny` rules (`Read(./.env)`) are registered as well: they
cannot say "except templates" (a `Read(./.env.*)` rule hides `.env.example`, the file this
hook points the agent to), Claude Code has been reported to apply them to Bash arguments too
(anthropics/claude-code#45200), refusing commands that only name the file (`touch .env`,
`cp .env.example .env`), and a deny in user settings cannot be overridden per project.
One policy, in this hook, is enforced the same way in every runtime; users who want the
runtime's own rule too can add it themselves (docs/explanation/secret-guard.md).

Claude dialect: exit 2 with the reason on stderr; Gemini dialect: {"decision": "deny"}.
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
HELPER = "msd-secret-read-guard-shell.py"
HARD_DEADLINE = 5.0  # seconds of analysis, whatever it is doing: stdin may take 3 s before
CREDENTIALS = (
    ".env and .secrets files hold credentials. "
    "Use .env.example (or ask the user) to learn which variables exist."
)


def helper() -> Any:
    """The analysis next to this file, loaded through the import system so that Python keeps
    its bytecode in __pycache__/ instead of compiling ~4,000 lines on every call."""
    from importlib.machinery import SourceFileLoader

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), HELPER)
    loader = SourceFileLoader("msd_secret_read_guard_shell", path)
    module = type(sys)(loader.name)
    module.__file__ = path
    sys.modules[loader.name] = module
    loader.exec_module(module)
    return module


def verdict(data: dict[str, Any]) -> str | None:
    """'reading X', 'too large: …', 'too complex: …' or 'broken: …'; None lets the call run."""
    kind, args, base = tool_kind(data), tool_input(data), project_dir(data)
    if kind not in ("read", "grep", "bash"):
        return None
    raw = data.get("toolArgs")  # Copilot's arguments as JSON text, valid but beyond json's reach
    if not args and isinstance(raw, str) and beyond_parser(raw.encode("utf-8", "surrogatepass")):
        return "too complex: its arguments are not JSON the hook can read"
    try:
        shell = helper()
    except Exception as exc:  # a missing or damaged helper must not let reads through
        return f"broken: its helper {HELPER} cannot be loaded ({type(exc).__name__})"
    shell.BUDGET.reset()
    shell.INDEX.reset(base)
    found: str | None = shell.check_tool(
        kind, args, base, target_path(data) if kind == "read" else None
    )
    return found


def reason(found: str) -> str:
    head, _, detail = found.partition(" ")
    if head == "reading":
        return f"msd-secret-read-guard: reading {detail} is blocked: {CREDENTIALS}"
    if head == "broken:":
        return (
            f"msd-secret-read-guard cannot check this call: {detail}, so it is blocked to be "
            "safe. Reinstall MSD Core (msd-install) to repair the hook."
        )
    return (
        f"msd-secret-read-guard: this call is blocked because it is {found}, so it cannot be "
        "checked for reads of .env/.secrets files. Split it into smaller, simpler commands."
    )


class OvertimeError(Exception):
    """The analysis ran past HARD_DEADLINE."""


def overtime(*_: object) -> None:
    raise OvertimeError


def main(data: dict[str, Any]) -> None:
    # The helper's own deadline is checked between steps; this one also stops a system call
    # that hangs (a stalled network file system) or a step that never returns, before the
    # runtime's 10 s timeout kills the hook, which would let the call run unchecked.
    import _signal  # type: ignore[import-not-found]  # signal's C module: signal costs 1 ms more

    timer = getattr(_signal, "setitimer", None)
    if timer is not None:
        _signal.signal(_signal.SIGALRM, overtime)
        timer(_signal.ITIMER_REAL, HARD_DEADLINE)
    try:
        found = verdict(data)
    except OvertimeError:
        found = "too complex: it takes too long to check"
    except Exception as exc:  # fail closed: an analysis that broke decided nothing
        found = f"broken: the analysis failed ({type(exc).__name__})"
    finally:
        if timer is not None:
            timer(_signal.ITIMER_REAL, 0)
    if found:
        block(data, reason(found))


def too_large(head: dict[str, Any]) -> None:
    block(head, reason(f"too large: its input is over {MAX_INPUT:,} bytes"))


def beyond_parser(raw: bytes) -> bool:
    """Valid JSON that json.loads refuses: nested thousands deep, or a number of 4,300+ digits
    (a runtime may send either; garbage, truncated text or a non-object are not this)."""
    try:
        json_loads(raw.decode("utf-8-sig", "replace"))
    except RecursionError:
        return True
    except ValueError as exc:
        return "integer string conversion" in str(exc)
    return False


def unreadable(raw: bytes) -> None:
    # The call such JSON describes is unknown, so it is refused, not let through. Garbage
    # exits 0 quietly, as every hook does: no runtime sends it.
    if beyond_parser(raw):
        import re

        event = re.search(rb'"hook_event_name"\s*:\s*"(\w+)"', raw[:65536])
        head = {"hook_event_name": event.group(1).decode()} if event else {}
        block(head, reason("too complex: its input is not JSON the hook can read"))


if __name__ == "__main__":
    run(main, on_oversize=too_large, on_unreadable=unreadable)
