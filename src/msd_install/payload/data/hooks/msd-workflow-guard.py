#!/usr/bin/env python3
"""msd-workflow-guard — PreToolUse hook on Write|Edit (MSD Core), advisory, opt-in.

Enabled by `.planning/config.json` `{"hooks": {"workflow_guard": true}}` (default off). When
the agent edits a file outside `.planning/` while no MSD workflow is active, it is advised to
go through /msd-quick so the change is tracked in STATE.md. Never blocks.

"Workflow active" means any of: the call comes from an MSD subagent (`agent_type` starting
with `msd-`); the latest user prompt in the transcript (`transcript_path`, last 256 KiB) is an
`/msd-…` command; or since that prompt the assistant invoked an `msd-…` skill or agent.
CodeBuddy Code's transcript (OpenAI Agents items) is read the same way; runtimes without a
transcript only get the first signal.
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
TRANSCRIPT_TAIL = 256 * 1024
ALWAYS_ALLOWED = {".gitignore", "CLAUDE.md", "AGENTS.md", "GEMINI.md", "QWEN.md", "CODEBUDDY.md"}
COMMAND_MARK = "<command-name>/msd-"
LAUNCH_TOOLS = {"Skill", "SlashCommand", "Task", "Agent"}


def entry_verdict(entry: dict[str, Any]) -> bool | None:
    """True/False once a transcript entry settles the question, None to keep looking back."""
    if entry.get("type") in ("function_call", "message"):  # never a Claude Code entry type
        return codebuddy_verdict(entry)
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if entry.get("type") == "assistant" and isinstance(content, list):
        for part in content:
            if not isinstance(part, dict) or part.get("type") != "tool_use":
                continue
            if part.get("name") in LAUNCH_TOOLS and "msd-" in json_dumps(part.get("input")):
                return True
        return None
    if entry.get("type") != "user" or entry.get("isMeta"):
        return None
    if isinstance(content, list):
        texts = [p.get("text") for p in content if isinstance(p, dict) and p.get("type") == "text"]
        content = "\n".join(t for t in texts if isinstance(t, str)) if texts else None
    if not isinstance(content, str):
        return None  # a tool result, not a prompt
    return COMMAND_MARK in content or content.lstrip().startswith("/msd-")


def codebuddy_verdict(entry: dict[str, Any]) -> bool | None:
    """The same question for CodeBuddy Code's transcript, whose lines are OpenAI Agents items:
    `{"type": "function_call", "name", "arguments"}` and `{"type": "message", "role",
    "content": [{"type": "input_text", "text"}]}` (hook context is never written there)."""
    if entry.get("type") == "function_call":
        launched = entry.get("name") in LAUNCH_TOOLS and "msd-" in str(entry.get("arguments"))
        return True if launched else None
    if entry.get("role") != "user" or not isinstance(entry.get("content"), list):
        return None
    parts = [p.get("text") for p in entry["content"] if isinstance(p, dict)]
    text = "\n".join(t for t in parts if isinstance(t, str))
    return COMMAND_MARK in text or text.lstrip().startswith("/msd-")


def workflow_active(data: dict[str, Any]) -> bool:
    agent = data.get("agent_type")
    if isinstance(agent, str) and agent.startswith("msd-"):
        return True
    path = data.get("transcript_path")
    if not isinstance(path, str) or not path:
        return False
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            handle.seek(max(0, handle.tell() - TRANSCRIPT_TAIL))
            tail = handle.read()
    except OSError:
        return False
    for line in reversed(tail.splitlines()):
        try:
            entry = json_loads(line.decode("utf-8"))  # UnicodeDecodeError is a ValueError
        except ValueError:
            continue
        verdict = entry_verdict(entry) if isinstance(entry, dict) else None
        if verdict is not None:
            return verdict
    return False


def main(data: dict[str, Any]) -> None:
    if tool_kind(data) not in ("write", "edit"):
        return
    planning = planning_dir(data)
    if planning is None or not hook_flag(planning, "workflow_guard", False):
        return
    path = target_path(data)
    if not path:
        return
    parts = path.replace("\\", "/").split("/")
    if ".planning" in parts or parts[-1] in ALWAYS_ALLOWED or workflow_active(data):
        return
    advise(
        data,
        "PreToolUse",
        f"MSD workflow guard (advisory): {parts[-1]} is being edited outside an MSD workflow, so "
        "the change will not be recorded in .planning/STATE.md. For tracked changes use "
        "/msd-quick; if the user asked for this direct edit, go ahead.",
    )


if __name__ == "__main__":
    run(main)
