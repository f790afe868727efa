"""The tool side of the server, built on the first ``tools/*`` request.

Loading the tools imports the file and planning tool modules (and with them dataclasses,
pathlib, hashlib...), which costs more than the rest of start-up together. A client's
``initialize`` or ``server/discover`` does not need them, so the session builds this object
only when a request does.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..audit import AuditLog
from ..toolspec import JSONObject, ToolContext, ToolSpec
from . import log, registry
from .calls import Caller, call_tool
from .config import ServerConfig
from .protocol import INVALID_PARAMS, RpcError


def describe(spec: ToolSpec) -> JSONObject:
    """The ``tools/list`` entry of a tool."""
    return {
        "name": spec.name,
        "title": spec.title,
        "description": spec.description,
        "inputSchema": spec.input_schema,
        "outputSchema": spec.output_schema,
        "annotations": {
            "title": spec.title,
            "readOnlyHint": spec.read_only,
            "destructiveHint": spec.destructive,
            "idempotentHint": spec.idempotent,
            "openWorldHint": spec.open_world,
        },
    }


class Toolbox:
    def __init__(self, cfg: ServerConfig, env: Mapping[str, str]) -> None:
        tools = registry.build(Path(cfg.test_tools) if cfg.test_tools else None)
        self._by_name = {t.name: t for t in tools}
        self.listing = [describe(t) for t in tools]
        self._ctx = ToolContext(root=Path(cfg.root), env=dict(env))
        self._audit = AuditLog(Path(cfg.audit_log)) if cfg.audit_log else None
        log.note("DEBUG", "loaded %d tools", len(tools))

    def call(self, params: JSONObject, client: Any, version: str | None) -> JSONObject:
        name = params.get("name")
        spec = self._by_name.get(name) if isinstance(name, str) else None
        if spec is None:
            raise RpcError(INVALID_PARAMS, f"unknown tool: {name!r}")
        caller = Caller(client if isinstance(client, dict) else None, version)
        return call_tool(spec, params.get("arguments"), self._ctx, self._audit, caller)

    def close(self) -> None:
        if self._audit is not None:
            self._audit.close()
