"""Running one ``tools/call``: argument validation, the tool itself, and its audit record.

Tool failures (``ToolError``) become ``isError: true`` results the model can read and act on;
only protocol problems (unknown tool, arguments that do not match the schema) are JSON-RPC
errors. For a mutating tool the audit log is checked before the call (fail closed: no
unaudited change when the log is unusable) and one record is appended after it, whatever
the outcome.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..audit import AuditError, AuditLog, PathChange, record_fields
from ..safeio import sha256_of
from ..toolspec import JSONObject, ToolContext, ToolError, ToolSpec
from . import log
from .protocol import INVALID_PARAMS, RpcError
from .schema import validate


@dataclass(frozen=True)
class Caller:
    """Who is calling, as self-reported by the client (for the audit record only)."""

    client: dict[str, Any] | None
    protocol_version: str | None


def ok_result(out: JSONObject) -> JSONObject:
    # Encoding here (not only on the wire) makes a non-JSON result fail this one request.
    text = json.dumps(out, ensure_ascii=False, allow_nan=False)
    return {"content": [{"type": "text", "text": text}], "structuredContent": out, "isError": False}


def error_result(code: str, message: str) -> JSONObject:
    text = json.dumps({"error": {"code": code, "message": message}}, ensure_ascii=False)
    return {"content": [{"type": "text", "text": text}], "isError": True}


def _rel(root: Path, path: Path) -> str:
    try:
        return "/".join(path.relative_to(root).parts) or "."
    except ValueError:  # a tool reported a path outside the root: record it as it is
        return str(path)


def _run(
    spec: ToolSpec, ctx: ToolContext, args: JSONObject
) -> tuple[JSONObject | None, ToolError | None]:
    try:
        return spec.run(ctx, args), None
    except ToolError as exc:
        return None, exc
    except Exception:
        log.get().exception("tool %s failed unexpectedly", spec.name)
        return None, ToolError(
            "internal_error", f"{spec.name} failed unexpectedly; see the server log"
        )


def call_tool(
    spec: ToolSpec, args: Any, ctx: ToolContext, audit: AuditLog | None, caller: Caller
) -> JSONObject:
    if args is None:
        args = {}
    problems = validate(args, spec.input_schema)
    if problems:
        raise RpcError(INVALID_PARAMS, f"invalid arguments for {spec.name}", {"errors": problems})
    if spec.read_only:
        out, err = _run(spec, ctx, args)
    else:
        out, err = _mutate(spec, ctx, args, audit, caller)
    if err is not None:
        if err.code in ("outside_workspace", "path_changed", "hardlinked"):
            log.note("WARNING", "%s refused: %s", spec.name, err.message)
        return error_result(err.code, err.message)
    assert out is not None
    return ok_result(out)


def _mutate(
    spec: ToolSpec, ctx: ToolContext, args: JSONObject, audit: AuditLog | None, caller: Caller
) -> tuple[JSONObject | None, ToolError | None]:
    started = time.monotonic()
    if audit is not None:
        try:
            audit.check()
        except AuditError as exc:
            log.note("ERROR", "%s", exc)
            return None, ToolError("audit_unavailable", f"{exc}; no change was made")
    paths: list[Path] = []
    before: list[str | None] = []
    after: list[str | None] = []
    out: JSONObject | None = None
    err: ToolError | None = None
    try:
        paths = spec.touched_paths(ctx, args) if spec.touched_paths else []
    except ToolError as exc:
        err = exc  # refused before touching anything; still audited
    else:
        before = [sha256_of(p) for p in paths]
        out, err = _run(spec, ctx, args)
        after = [sha256_of(p) for p in paths]
    if audit is None:
        return out, err
    changes = [
        PathChange(_rel(ctx.root, p), b, a) for p, b, a in zip(paths, before, after, strict=True)
    ]
    fields = record_fields(
        spec.name,
        args,
        changes,
        "ok" if err is None else "error",
        None if err is None else err.code,
        started,
        caller.client,
        caller.protocol_version,
    )
    try:
        audit.append(fields)
    except AuditError as exc:
        log.note("ERROR", "%s", exc)
        if err is None:
            return None, ToolError("audit_failed", f"the change was made but not audited: {exc}")
    return out, err
