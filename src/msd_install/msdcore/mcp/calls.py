"""Running one ``tools/call``: the tool itself under its guard, its audit records, its result.

Tool failures (``ToolError``) become ``isError: true`` results the model can read and act on.
For a mutating tool the audit log is checked before the call and, through the guard's
journal, an intent record is written before each change it makes (``safewrite`` asks); no
intent, no change. One outcome record follows, whatever happened. Results are bounded: a
tool's ``text_field`` is sent once as its own text block (not inside structuredContent and
again inside its JSON copy), and a result over ``MAX_RESULT_BYTES`` is refused as a whole.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass, replace
from typing import Any

from ..audit import AuditError, AuditLog, args_digest, change_fields, outcome_fields
from ..callguard import CallGuard, Change
from ..toolspec import JSONObject, ToolContext, ToolError, ToolSpec
from . import log
from .protocol import INTERNAL_ERROR, RpcError

MAX_RESULT_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class Caller:
    """Who is calling, as self-reported by the client (a bounded summary, for the audit)."""

    client: dict[str, str] | None
    protocol_version: str | None


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def error_result(code: str, message: str) -> JSONObject:
    text = _json({"error": {"code": code, "message": message}})
    return {"content": [{"type": "text", "text": text}], "isError": True}


def ok_result(spec: ToolSpec, out: JSONObject) -> JSONObject:
    """The tool's result: ``structuredContent`` whole (Claude Code hands the model only that
    when a tool declares an output schema: a file's text must be in it, verified with the real
    ``claude``), and for clients that read ``content``, the JSON of the rest and the text as
    its own block. So a text is sent twice, each escaped once (it was twice, in one block)."""
    structured = out
    try:
        # Encoding here (not only on the wire) makes a non-JSON result fail this one request.
        text = _json({k: v for k, v in out.items() if k != spec.text_field})
    except (TypeError, ValueError):  # a bug of the tool: a JSON-RPC error, like any other
        log.get().exception("tool %s returned a result that is not JSON", spec.name)
        raise RpcError(INTERNAL_ERROR, "the result could not be encoded as JSON") from None
    content = [{"type": "text", "text": text}]
    if spec.text_field is not None:
        content.append({"type": "text", "text": str(out.get(spec.text_field, ""))})
    result = {"content": content, "structuredContent": structured, "isError": False}
    size = len(_json(result).encode("utf-8", "backslashreplace"))
    if size > MAX_RESULT_BYTES:
        return error_result(
            "result_too_large", f"the result is {size} bytes (limit {MAX_RESULT_BYTES})"
        )
    return result


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


def run_tool(
    spec: ToolSpec,
    args: JSONObject,
    ctx: ToolContext,
    guard: CallGuard,
    audit: AuditLog | None,
    caller: Caller,
) -> JSONObject:
    """The ``tools/call`` result of a call whose arguments were already validated."""
    ctx = replace(ctx, guard=guard)
    if spec.read_only or audit is None:
        out, err = _run(spec, ctx, args)
    else:
        out, err = _mutate(spec, ctx, args, audit, caller)
    if err is not None:
        if err.code in ("outside_workspace", "outside_project", "path_changed", "hardlinked"):
            log.note("WARNING", "%s refused: %s", spec.name, err.message)
        return error_result(err.code, err.message)
    assert out is not None
    return ok_result(spec, out)


def _mutate(
    spec: ToolSpec, ctx: ToolContext, args: JSONObject, audit: AuditLog, caller: Caller
) -> tuple[JSONObject | None, ToolError | None]:
    started = time.monotonic()
    common = {
        "tool": spec.name,
        "call": secrets.token_hex(8),
        "args_sha256": args_digest(args),
        "client": caller.client,
        "protocol_version": caller.protocol_version,
    }
    try:
        audit.check()
    except AuditError as exc:
        log.note("ERROR", "%s", exc)
        return None, ToolError("audit_unavailable", f"{exc}; no change was made")

    def intent(change: Change) -> None:
        try:
            audit.append({**common, "stage": "intent", **change_fields(change)})
        except AuditError as exc:
            log.note("ERROR", "%s", exc)
            raise ToolError(
                "audit_unavailable", f"{exc}; '{change.path}' was not changed"
            ) from None

    ctx.guard.journal = intent
    out, err = _run(spec, ctx, args)
    dry_run = bool(args["dry_run"]) if "dry_run" in args else None
    fields = outcome_fields(ctx.guard.changes, None if err is None else err.code, started, dry_run)
    try:
        audit.append({**common, **fields})
    except AuditError as exc:
        # Every change already has its intent record; only the summary line is missing.
        log.note("ERROR", "%s (outcome of %s not recorded)", exc, spec.name)
    return out, err
