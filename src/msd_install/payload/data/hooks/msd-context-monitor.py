#!/usr/bin/env python3
"""msd-context-monitor — PostToolUse hook (MSD Core): tells the agent when context runs low.

Reads the bridge `<tempdir>/msd-ctx-<session>.json` that msd-statusline writes and adds an
advisory `additionalContext`: WARNING at <= 35 % remaining, CRITICAL at <= 25 %.
Debounce: after a warning, the next one comes on the 5th tool use (state file
`msd-ctx-<session>.warn.json` next to the bridge); WARNING -> CRITICAL escalates at once.
A bridge older than 60 s, or missing (subagents, new sessions), means no output.
Opt out with `.planning/config.json` `{"hooks": {"context_warnings": false}}`.
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
WARNING_AT = 35.0
CRITICAL_AT = 25.0
STALE_SECONDS = 60
DEBOUNCE_CALLS = 5


def load_json(path: str) -> dict[str, Any] | None:
    try:
        value = json_file(path)
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def message(level: str, remaining: float, used: object) -> str:
    used_text = f"{used}%" if isinstance(used, (int, float)) else f"{100 - remaining:.0f}%"
    left = f"{remaining:.0f}%"
    if level == "critical":
        return (
            f"MSD context monitor — CRITICAL: about {used_text} of the context window is used and "
            f"only {left} is left. Let the user know the context is nearly exhausted and suggest "
            "saving progress (/msd-pause-work writes a handoff to .planning/); the user decides "
            "how to continue."
        )
    return (
        f"MSD context monitor — WARNING: about {used_text} of the context window is used, {left} "
        "left. Prefer finishing the current step over starting new complex work; if the work "
        "will not fit, /msd-pause-work can save a handoff to .planning/."
    )


def main(data: dict[str, Any]) -> None:
    key = session_key(data)
    if not key or not hook_flag(planning_dir(data), "context_warnings", True):
        return
    bridge_path = os.path.join(temp_dir(), f"msd-ctx-{key}.json")
    bridge = load_json(bridge_path)
    if bridge is None:
        return
    stamp, remaining = bridge.get("timestamp"), bridge.get("remaining_percentage")
    if not isinstance(stamp, (int, float)) or not isinstance(remaining, (int, float)):
        return
    if abs(time.time() - stamp) > STALE_SECONDS:
        return
    state_path = bridge_path[: -len(".json")] + ".warn.json"
    if remaining > WARNING_AT:
        if os.path.exists(state_path):
            os.remove(state_path)  # context was freed (/compact): warn afresh next time
        return
    level = "critical" if remaining <= CRITICAL_AT else "warning"
    state = load_json(state_path)
    if state is not None:
        calls = state.get("calls")
        calls = (calls if isinstance(calls, int) else 0) + 1
        escalated = level == "critical" and state.get("level") == "warning"
        if calls < DEBOUNCE_CALLS and not escalated:
            write_private(state_path, json_dumps({"calls": calls, "level": state.get("level")}))
            return
    write_private(state_path, json_dumps({"calls": 0, "level": level}))
    advise(data, "PostToolUse", message(level, float(remaining), bridge.get("used_pct")))


if __name__ == "__main__":
    run(main)
