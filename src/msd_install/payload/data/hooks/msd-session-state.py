#!/usr/bin/env python3
"""msd-session-state — SessionStart hook (MSD Core): reminds the agent where the project is.

If `.planning/STATE.md` exists, injects a short summary as `additionalContext`: the flat
`key: value` lines of its frontmatter and the lines of its "Current Position" section
(at most MAX_CHARS characters), plus a pointer to `.planning/continue-here.md` when a paused
session left one. Nothing is printed for projects without MSD state.
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
MAX_CHARS = 1500
MAX_SECTION_LINES = 12
_HEADING = re.compile(r"^#{1,6}\s")
_POSITION = re.compile(r"^#{1,6}\s*current position\s*$", re.IGNORECASE)


def frontmatter(lines: list[str]) -> tuple[list[str], int]:
    """Flat `key: value` pairs of a leading `---` block, and the index after it."""
    if not lines or lines[0].strip() != "---":
        return [], 0
    pairs: list[str] = []
    for index, line in enumerate(lines[1:], start=1):
        if line.strip() == "---":
            return pairs, index + 1
        key, colon, value = line.partition(":")
        if colon and value.strip() and key.strip() and not line[:1].isspace():
            pairs.append(f"{key.strip()}: {value.strip()}")
    return [], 0  # unterminated: not frontmatter


def position_section(lines: list[str]) -> list[str]:
    for index, line in enumerate(lines):
        if _POSITION.match(line.strip()):
            body: list[str] = []
            for item in lines[index + 1 :]:
                if _HEADING.match(item):
                    break
                if item.strip():
                    body.append(item.strip())
            return body[:MAX_SECTION_LINES]
    return []


def main(data: dict[str, Any]) -> None:
    planning = planning_dir(data)
    if planning is None:
        return
    try:
        with open(os.path.join(planning, "STATE.md"), encoding="utf-8") as handle:
            lines = handle.read(65536).splitlines()
    except (OSError, ValueError):
        return
    pairs, start = frontmatter(lines)
    position = position_section(lines[start:])
    summary = "\n".join(pairs + ([""] if pairs and position else []) + position)
    if len(summary) > MAX_CHARS:
        summary = summary[: MAX_CHARS - 1] + "…"
    text = "MSD project state (.planning/STATE.md):\n" + (summary or "(no current position)")
    if os.path.isfile(os.path.join(planning, "continue-here.md")):
        text += "\nA paused session left .planning/continue-here.md: /msd-resume-work picks it up."
    text += "\nRun /msd-progress for the full picture."
    advise(data, "SessionStart", text)


if __name__ == "__main__":
    run(main)
