"""The real ``claude`` in print mode against a loopback model stub (``model_stub``): its
stream-json ``init`` event lists what the session loaded (skills, agents, MCP servers with
their status), and the stub's requests show what it did with a scripted tool call."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from e2e_clis import clean_env, require
from model_stub import ModelStub


def claude_print(
    home: Path, cwd: Path, stub: ModelStub, prompt: str, *extra: str
) -> list[dict[str, Any]]:
    env = clean_env(home, ANTHROPIC_BASE_URL=stub.url, ANTHROPIC_API_KEY="sk-stub")
    proc = subprocess.run(
        [
            str(require("claude")),
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            *extra,
            "--",
            prompt,
        ],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def init_event(events: list[dict[str, Any]]) -> dict[str, Any]:
    return next(e for e in events if e.get("type") == "system" and e.get("subtype") == "init")
