"""One description of an operation, shared by ``msd-tools`` and the MCP server.

Every operation that the MCP server exposes as a tool is declared once as a ``ToolSpec``; the
MCP layer only adapts it to JSON-RPC, and ``msd-tools`` calls the same ``run`` function. So no
logic lives only in the MCP layer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

JSONObject = dict[str, Any]


class ToolError(Exception):
    """A tool failed for a reason the caller should see (bad argument, missing file, ...).

    The MCP layer turns it into an ``isError: true`` result; ``msd-tools`` into a JSON error
    object with exit code 1. ``code`` is a short stable identifier such as ``not_found``.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class ToolContext:
    """What a tool call may use: the confined workspace root and where to audit mutations.

    ``root`` is already resolved (realpath) and trusted. Tools must confine every path argument
    to it (``msdcore.confine``). ``audit`` is called by the MCP layer, not by tools.
    """

    root: Path
    env: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ToolSpec:
    name: str  # snake_case, unique across the registry
    title: str
    description: str
    input_schema: JSONObject  # JSON Schema (2020-12 subset) for the arguments object
    output_schema: JSONObject  # JSON Schema for the structured result (an object)
    run: Callable[[ToolContext, JSONObject], JSONObject]
    read_only: bool
    destructive: bool = False
    idempotent: bool = False
    open_world: bool = False
    # For mutating tools: the workspace paths (already confined, absolute) that a call with these
    # arguments will create, modify, move or delete. The MCP layer hashes them before and after
    # the call for the audit log. Read-only tools leave it None.
    touched_paths: Callable[[ToolContext, JSONObject], list[Path]] | None = None
