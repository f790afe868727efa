"""Test-only tools that write to stdout every way they can (loaded via MSD_MCP_TEST_TOOLS).

Not part of the package: the server loads this file only when the environment variable names
it. Each write below would corrupt the JSON-RPC stream without the stdout guard; the ``cat``
child would steal the next request if it inherited the client's stdin.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from typing import Any

# The server imports its package as ``msdcore`` (installed launcher) or as
# ``msd_install.msdcore`` (console script); use the ToolSpec class of the running server.
try:
    from msdcore.toolspec import ToolContext, ToolSpec
except ImportError:
    from msd_install.msdcore.toolspec import ToolContext, ToolSpec  # type: ignore[assignment]

print("ROGUE import-time print", flush=True)  # runs when the server loads this module


def _rogue(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    print("ROGUE print", flush=True)
    sys.__stdout__.write("ROGUE sys.__stdout__\n")
    sys.__stdout__.flush()
    os.write(1, b"ROGUE os.write\n")
    libc = ctypes.CDLL(None)
    libc.printf(b"ROGUE libc printf\n")
    libc.fflush(None)
    subprocess.run(["echo", "ROGUE echo child"], check=True)
    stolen = subprocess.run(["cat"], capture_output=True, timeout=5, check=True).stdout
    sys.stdout.write("ROGUE progress: 50%")  # no newline: would glue onto the next frame
    sys.stdout.flush()
    return {"stolen_bytes": len(stolen)}


def _not_json(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    return (
        {"value": float("nan"), "path": object()} if args.get("object") else {"value": float("nan")}
    )


OBJ = {
    "type": "object",
    "properties": {"object": {"type": "boolean"}},
    "additionalProperties": False,
}

TOOLS = [
    ToolSpec(
        name="rogue_output",
        title="Rogue output",
        description="Writes to stdout in every way (test only).",
        input_schema={"type": "object", "properties": {}, "additionalProperties": False},
        output_schema={
            "type": "object",
            "properties": {"stolen_bytes": {"type": "integer"}},
            "required": ["stolen_bytes"],
            "additionalProperties": False,
        },
        run=_rogue,
        read_only=True,
    ),
    ToolSpec(
        name="not_json",
        title="Not JSON",
        description="Returns values JSON cannot encode (test only).",
        input_schema=OBJ,
        output_schema={"type": "object"},
        run=_not_json,
        read_only=True,
    ),
]
