"""Planning operations exposed as tools (MCP) through the shared ToolSpec registry."""

from __future__ import annotations

from ..toolspec import ToolSpec

PLANNING_TOOLS: list[ToolSpec] = []
