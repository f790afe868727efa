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

from .callguard import CallGuard
from .toolerror import ToolError

__all__ = ["JSONObject", "ToolContext", "ToolError", "ToolSpec"]

JSONObject = dict[str, Any]


@dataclass(frozen=True)
class ToolContext:
    """What a tool call may use: the confined workspace root, the environment, and its guard.

    ``root`` is already resolved (realpath) and trusted. Tools confine every path argument to
    it (``confine``) and touch the filesystem only through ``safeio``/``safewrite``, which
    open every component from ``root`` without following symlinks. ``guard`` carries the call's
    deadline and cancellation and journals its changes (the MCP layer's audit hook).
    """

    root: Path
    env: Mapping[str, str] = field(default_factory=dict)
    guard: CallGuard = field(default_factory=CallGuard)


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
    # A result key whose (large) text is sent once, as its own text block, instead of inside
    # structuredContent and its JSON copy; the output schema does not list it.
    text_field: str | None = None
