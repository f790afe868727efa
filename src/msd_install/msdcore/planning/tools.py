"""Planning operations exposed as MCP tools through the shared ToolSpec registry.

Read-only tools first, then mutating ones, each list in a fixed order, so ``tools/list`` is
deterministic. ``init`` and ``commit`` stay CLI-only: ``init`` bootstraps a workflow inside the
agent's shell, and ``commit`` runs git, which an MCP client should do through its own tools.
"""

from __future__ import annotations

from ..toolspec import ToolSpec
from .specs_read import READ_TOOLS
from .specs_write import WRITE_TOOLS

PLANNING_TOOLS: list[ToolSpec] = [*READ_TOOLS, *WRITE_TOOLS]
