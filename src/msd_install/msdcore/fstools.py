"""The file tools, in the fixed order the MCP server lists them (read-only first)."""

from __future__ import annotations

from .fstools_read import READ_TOOLS
from .fstools_write import WRITE_TOOLS
from .toolspec import ToolSpec

FILE_TOOLS: list[ToolSpec] = [*READ_TOOLS, *WRITE_TOOLS]
