"""Test-only tools that take their time (loaded via MSD_MCP_TEST_TOOLS).

``slow`` loops and checks its guard the way the real tools' loops do, and records in
``marker`` (a file outside the workspace) that it ``started``, then how it ended:
``finished``, or the code of the ``ToolError`` that stopped it. ``stuck`` sleeps without ever
checking (a tool caught in a long system call), so only the watchdog can answer for it.
``slow_write`` waits, then writes a file in the workspace through ``safewrite``: a call
stopped before that must change nothing.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

try:
    from msdcore.safewrite import write_bytes
    from msdcore.toolspec import ToolContext, ToolError, ToolSpec
except ImportError:
    from msd_install.msdcore.safewrite import write_bytes  # type: ignore[no-redef]
    from msd_install.msdcore.toolspec import (  # type: ignore[assignment]
        ToolContext,
        ToolError,
        ToolSpec,
    )

ARGS = {
    "type": "object",
    "properties": {"seconds": {"type": "number"}, "marker": {"type": "string"}},
    "additionalProperties": False,
}
OUT = {"type": "object"}


def _slow(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    marker = Path(args.get("marker", "/dev/null"))
    marker.write_text("started")
    end = time.monotonic() + args.get("seconds", 1)
    try:
        while time.monotonic() < end:
            ctx.guard.check()
            time.sleep(0.01)
    except ToolError as exc:
        marker.write_text(exc.code)
        raise
    marker.write_text("finished")
    return {"slept": args.get("seconds", 1)}


def _stuck(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    time.sleep(args.get("seconds", 1))
    return {"slept": args.get("seconds", 1)}


def _slow_write(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    time.sleep(args.get("seconds", 1))  # not checking: the change itself must be refused
    write_bytes(ctx, ("late.txt",), b"written after the deadline\n")
    return {"written": True}


def _spec(name: str, run: Any, read_only: bool = True) -> ToolSpec:
    return ToolSpec(
        name=name,
        title=name,
        description=f"{name} (test only)",
        input_schema=ARGS,
        output_schema=OUT,
        run=run,
        read_only=read_only,
    )


TOOLS = [_spec("slow", _slow), _spec("stuck", _stuck), _spec("slow_write", _slow_write, False)]
