"""The tool side of the server, built on the first ``tools/*`` request.

Loading the tools imports the file and planning tool modules (and with them dataclasses,
pathlib, hashlib...), which costs more than the rest of start-up together. A client's
``initialize`` or ``server/discover`` does not need them, so the session builds this object
only when a request does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from ..audit import AuditLog
from ..callguard import CallGuard
from ..toolspec import JSONObject, ToolContext, ToolSpec
from . import log, registry
from .calls import Caller, run_tool
from .config import ServerConfig
from .protocol import INVALID_PARAMS, RpcError
from .schema import plain_json, validate


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
        self._audit = AuditLog(Path(cfg.audit_log), Path(cfg.root)) if cfg.audit_log else None
        log.note("DEBUG", "loaded %d tools", len(tools))

    def prepare(
        self, params: JSONObject, client: dict[str, str] | None, version: str | None
    ) -> Callable[[CallGuard], JSONObject]:
        """Check a ``tools/call`` (-32602 for an unknown tool or bad arguments) and return
        the function that runs it."""
        name = params.get("name")
        spec = self._by_name.get(name) if isinstance(name, str) else None
        if spec is None:
            shown = name[:64] if isinstance(name, str) else type(name).__name__
            raise RpcError(INVALID_PARAMS, f"unknown tool: {shown!r}")
        args = params.get("arguments")
        if args is None:
            args = {}
        problems = plain_json(args) or validate(args, spec.input_schema)
        if problems:
            raise RpcError(
                INVALID_PARAMS, f"invalid arguments for {spec.name}", {"errors": problems[:20]}
            )
        caller = Caller(client, version)

        def run(guard: CallGuard) -> JSONObject:
            return run_tool(spec, args, self._ctx, guard, self._audit, caller)

        return run

    def close(self) -> None:
        if self._audit is not None:
            self._audit.close()
