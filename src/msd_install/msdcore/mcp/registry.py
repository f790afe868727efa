"""The tools this server lists: file tools, then planning tools, then (tests only) extras.

Extra tools exist only to prove the stdout guard against misbehaving tool code. They are loaded
when ``MSD_MCP_TEST_TOOLS`` names an absolute path to a Python file outside the workspace that
defines ``TOOLS: list[ToolSpec]``. No such file ships in the package (the rogue tools live in
the test tree), the path cannot be planted through our own write tools (those stay inside the
workspace), and whoever can set this server's environment already chooses the command it runs,
so the switch grants nothing new. Its use is logged as a warning.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from ..fstools import FILE_TOOLS
from ..planning.tools import PLANNING_TOOLS
from ..toolspec import ToolSpec
from . import log
from .schema import unsupported_keywords

_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


class RegistryError(Exception):
    """The tool set is inconsistent (duplicate or malformed names, bad extra tools)."""


def load_extra(path: Path) -> list[ToolSpec]:
    spec = importlib.util.spec_from_file_location("msd_mcp_extra_tools", path)
    if spec is None or spec.loader is None:
        raise RegistryError(f"cannot load extra tools from {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tools = getattr(module, "TOOLS", None)
    if not isinstance(tools, list) or not all(isinstance(t, ToolSpec) for t in tools):
        raise RegistryError(f"{path} must define TOOLS: list[ToolSpec]")
    log.note("WARNING", "loaded %d extra test tool(s) from %s", len(tools), path)
    return tools


def build(extra: Path | None = None) -> list[ToolSpec]:
    """All tools in listing order; raises RegistryError on duplicate or malformed names."""
    tools = [*FILE_TOOLS, *PLANNING_TOOLS, *(load_extra(extra) if extra else [])]
    seen: set[str] = set()
    for tool in tools:
        if not _NAME.match(tool.name) or tool.name in seen:
            raise RegistryError(f"tool name {tool.name!r} is malformed or duplicated")
        seen.add(tool.name)
        loose = unsupported_keywords(tool.input_schema)
        if loose:
            log.note("WARNING", "tool %s: unchecked input keywords %s", tool.name, sorted(loose))
    return tools
