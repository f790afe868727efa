"""What the file tools share: limits, schema pieces, and decoding and paging of text.

A read returns at most ``MAX_CONTENT_BYTES`` of JSON-encoded text: control characters cost
six bytes each once escaped, so a file of them is paged (``fit``) rather than answered with a
50 MB line.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

from .confine import Target, resolve
from .toolspec import JSONObject, ToolContext, ToolError

MAX_READ_BYTES = 8 * 1024 * 1024
MAX_CONTENT_BYTES = 7 * 1024 * 1024  # sent twice (mcp/calls.py), under its 16 MiB cap
MAX_OUTPUT_BYTES = 4 * 1024 * 1024
MAX_LIST_ENTRIES = 10_000
MAX_SCAN_ENTRIES = 100_000

PATH = {
    "type": "string",
    "minLength": 1,
    "description": "Path inside the workspace (relative, or absolute within it).",
}
DIR = {**PATH, "default": "."}
KIND = {"type": "string", "enum": ["file", "directory", "symlink", "other"]}


def obj(props: dict[str, Any], required: list[str] | None = None) -> JSONObject:
    """An object schema with no extra keys; every property required unless listed."""
    return {
        "type": "object",
        "properties": props,
        "required": required if required is not None else list(props),
        "additionalProperties": False,
    }


def target(
    ctx: ToolContext, args: JSONObject, key: str = "path", default: str | None = None
) -> Target:
    return resolve(ctx.root, args.get(key, default), key)


def rfc3339(ts: float) -> str:
    return (
        datetime.fromtimestamp(ts, timezone.utc)
        .isoformat(timespec="seconds")
        .replace("+00:00", "Z")
    )


def split_lines(text: str) -> list[str]:
    """Lines with their ``\\n`` kept; only ``\\n`` ends a line (not the Unicode separators)."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    return [*lines, parts[-1]] if parts[-1] else lines


def decode_text(data: bytes, rel: str) -> str:
    if b"\x00" in data:
        raise ToolError("not_text", f"'{rel}' looks binary (contains NUL bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError("not_text", f"'{rel}' is not UTF-8 text") from None


def encoded_size(text: str) -> int:
    return len(json.dumps(text, ensure_ascii=False).encode("utf-8", "backslashreplace")) - 2


def fit(lines: list[str], ctx: ToolContext) -> int:
    """How many of ``lines`` fit in MAX_CONTENT_BYTES once JSON-encoded."""
    if encoded_size("".join(lines)) <= MAX_CONTENT_BYTES:
        return len(lines)
    used = 0
    for n, line in enumerate(lines):
        if n % 1024 == 0:
            ctx.guard.check()
        used += encoded_size(line)
        if used > MAX_CONTENT_BYTES:
            return n
    return len(lines)
