"""Runtime side of Cline's hooks: run MSD's hooks for one event and merge their answers.

Cline runs one executable per event file (``hooks/PreToolUse.sh``...) with the event's JSON on
stdin, and reads one answer from its stdout: ``{"cancel": true, "errorMessage": ...}`` ends the
run, ``{"contextModification": ...}`` is given to the agent with the tool's result. It has no
matchers and no list of commands per event, so msd-install writes a small launcher per event
that starts this script (installed as ``hooks/msd-cline-hooks.py``) with that event's hooks:

    msd-cline-hooks.py <Event> (<cline tools|*> <timeout s> <msd-*.py>)...

It reads stdin once, runs every hook whose tools include the call's tool (all of them when the
tool cannot be read: each hook then decides, and the guards refuse what they cannot read) in
parallel with ``--dialect cline``, and prints one merged answer: every cancel reason if any hook
cancelled (a hook that exits 2 with a reason on stderr counts as one), else every context.
A global install says nothing where the workspace has its own msd hooks for the event: Cline
runs the files of both, and each answer would otherwise reach the agent twice.

Standard library only and started as ``python -I -S``: it is not imported by msd-install; the
Cline adapter installs this file's bytes. It never fails the agent: any error means no answer.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time

STDIN_TIMEOUT = 3.0
MAX_INPUT = 16 * 1024 * 1024 + 65536  # a little over the hooks' limit: they see an oversize
MAX_HOOKS = 32
MAX_ANSWER = 1024 * 1024
SCRIPT = re.compile(r"msd-[a-z0-9-]{1,60}\.py")


def read_stdin() -> bytes:
    """Up to MAX_INPUT bytes of stdin, until EOF or STDIN_TIMEOUT seconds have passed."""
    chunks: list[bytes] = []

    def pump() -> None:
        size = 0
        while size < MAX_INPUT:
            chunk = os.read(0, 65536)
            if not chunk:
                return
            chunks.append(chunk)
            size += len(chunk)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    reader.join(STDIN_TIMEOUT)
    return b"".join(list(chunks))


def event_of(raw: bytes) -> dict[str, object]:
    try:
        data = json.loads(raw.decode("utf-8", "replace"))
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def tool_of(data: dict[str, object]) -> str | None:
    """The name of the tool the event is about, or None when it cannot be read."""
    call = data.get("tool_call", data.get("tool_result"))
    name = call.get("name") if isinstance(call, dict) else None
    return name if isinstance(name, str) else None


def project_answers(data: dict[str, object], here: str, event: str) -> bool:
    """True when this is not the workspace's own msd install but the workspace has one for
    this event: Cline runs both launchers, and the project's answers (its install wins, as its
    agents do) must not come twice."""
    roots = data.get("workspaceRoots")
    root = roots[0] if isinstance(roots, list) and roots else None
    if not isinstance(root, str) or not os.path.isabs(root):
        return False
    theirs = os.path.join(root, ".cline", "hooks")
    if os.path.realpath(theirs) == os.path.realpath(here):
        return False
    names = (os.path.basename(__file__), f"{event}.sh")
    return all(os.path.isfile(os.path.join(theirs, n)) for n in names)


def hooks_of(args: list[str], here: str) -> list[tuple[set[str], float, str]]:
    """(tools, timeout, path) of each well-formed triple; anything else is skipped."""
    found: list[tuple[set[str], float, str]] = []
    for i in range(0, min(len(args), 3 * MAX_HOOKS) - 2, 3):
        tools, timeout, script = args[i : i + 3]
        if not SCRIPT.fullmatch(script) or not timeout.isdigit():
            continue
        path = os.path.join(here, script)
        if os.path.isfile(path):
            found.append((set(tools.split("|")), float(min(max(int(timeout), 1), 60)), path))
    return found


def run_one(path: str, raw: bytes, timeout: float, out: list[tuple[int, bytes, bytes]]) -> None:
    command = [sys.executable, "-I", "-S", path, "--dialect", "cline"]
    try:
        proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
    except OSError:
        return
    try:
        stdout, stderr = proc.communicate(raw, timeout=timeout)
    except subprocess.TimeoutExpired:  # a hook that does not answer in time says nothing
        proc.kill()
        proc.communicate()
        return
    out.append((proc.returncode, stdout[:MAX_ANSWER], stderr[:MAX_ANSWER]))


def merged(results: list[tuple[int, bytes, bytes]]) -> dict[str, object]:
    reasons: list[str] = []
    contexts: list[str] = []
    for code, stdout, stderr in results:
        try:
            answer = json.loads(stdout.decode("utf-8", "replace")) if stdout.strip() else {}
        except ValueError:
            answer = {}
        if not isinstance(answer, dict):
            answer = {}
        if answer.get("cancel") is True or code == 2:
            reason = answer.get("errorMessage") or stderr.decode("utf-8", "replace").strip()
            reasons.append(str(reason) or "blocked by an MSD hook")
            continue
        context = answer.get("contextModification")
        if isinstance(context, str) and context.strip():
            contexts.append(context)
    if reasons:
        return {"cancel": True, "errorMessage": "\n".join(reasons)}
    return {"contextModification": "\n\n".join(contexts)} if contexts else {}


def main(argv: list[str]) -> dict[str, object]:
    here = os.path.dirname(os.path.abspath(__file__))
    raw = read_stdin()
    data = event_of(raw)
    if len(argv) < 2 or project_answers(data, here, argv[1]):
        return {}
    tool = tool_of(data) if data else None
    chosen = [
        (path, timeout)
        for tools, timeout, path in hooks_of(argv[2:], here)
        if tool is None or "*" in tools or tool in tools
    ]
    results: list[tuple[int, bytes, bytes]] = []
    threads = [
        threading.Thread(target=run_one, args=(path, raw, timeout, results), daemon=True)
        for path, timeout in chosen
    ]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + max((t for _, t in chosen), default=0) + 5
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    return merged(list(results))


if __name__ == "__main__":
    try:
        answer = main(sys.argv)
        if answer:
            sys.stdout.write(json.dumps(answer))
            sys.stdout.flush()
    except BaseException:  # never break the agent: no answer is "go on"
        pass
    os._exit(0)
