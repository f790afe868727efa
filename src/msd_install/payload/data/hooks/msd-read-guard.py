#!/usr/bin/env python3
"""msd-read-guard — PreToolUse hook on Read|Edit|Write (MSD Core), advisory only.

Editing a file the session has never read means editing blind. This hook records every file
the session reads (and creates) in `<tempdir>/msd-reads-<session>.txt`, one real path a line,
and when an Edit/Write targets an existing file not in that list it advises reading it first.
Each file is flagged once. Registered on Read as well because the same script keeps the list
(every file of a call that reads several).
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
MAX_STATE = 1024 * 1024
MAX_READS = 256  # files of one multi-file read that are recorded


def remember(state: str, path: str) -> None:
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(state, flags, 0o600)
    try:
        os.write(fd, (path + "\n").encode("utf-8", "surrogateescape"))
    finally:
        os.close(fd)


def already_read(state: str, path: str) -> bool:
    try:
        with open(state, encoding="utf-8", errors="surrogateescape") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return False
    if sum(len(line) + 1 for line in lines) > MAX_STATE:  # keep the newest half
        write_private(state, "\n".join(lines[len(lines) // 2 :]) + "\n")
    return path in lines


def read_paths(data: dict[str, Any], first: str) -> list[str]:
    """Every file one read call reads: its target, and the `paths` of a call that reads
    several (Cline's read_files, Gemini's read_many_files), as real absolute paths."""
    base = project_dir(data) or ""
    many = tool_input(data).get("paths")
    extra = [p for p in many if isinstance(p, str)] if isinstance(many, list) else []
    found = [os.path.realpath(first)]
    for path in extra[:MAX_READS]:
        real = os.path.realpath(os.path.join(base, os.path.expanduser(path)))
        if "\n" not in real and real not in found:
            found.append(real)
    return found


def main(data: dict[str, Any]) -> None:
    kind = tool_kind(data)
    key = session_key(data)
    path = target_path(data)
    if kind not in ("read", "write", "edit") or not key or not path or "\n" in path:
        return
    state = os.path.join(temp_dir(), f"msd-reads-{key}.txt")
    real = os.path.realpath(path)
    if kind == "read":
        for read in read_paths(data, path):
            remember(state, read)
        return
    if not os.path.isfile(real):
        remember(state, real)
        return
    if already_read(state, real):
        return
    remember(state, real)
    advise(
        data,
        "PreToolUse",
        f"MSD read guard (advisory): {os.path.basename(real)} exists but has not been read in "
        "this session. Read it first so the change is based on its current content.",
    )


if __name__ == "__main__":
    run(main)
