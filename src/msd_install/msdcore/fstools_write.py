"""The mutating file tools: write, edit, create directory, move.

Every change goes through ``safewrite`` (descriptor-based, no symlink followed, hard links
refused, each change journaled for the audit log right before it happens). ``edit_file``'s work
is bounded: the edits are capped in number, and its diff is built from the edited spans
(``textedit``), never by diffing the two texts.
"""

from __future__ import annotations

import hashlib

from .confine import Target, resolve
from .fstools_common import MAX_READ_BYTES, PATH, decode_text, obj
from .safeio import os_failure, read_bytes
from .safewrite import make_dirs, move, write_bytes
from .textedit import apply_edits, unified_diff
from .toolspec import JSONObject, ToolContext, ToolError, ToolSpec

MAX_EDITS = 1000


def _write_file(ctx: ToolContext, args: JSONObject) -> JSONObject:
    t = resolve(ctx.root, args.get("path"))
    data = args["content"].encode("utf-8")
    try:
        created = write_bytes(ctx, t.parts, data, create_parents=args.get("create_parents", False))
    except OSError as exc:
        raise os_failure(exc, t.rel) from None
    return {
        "path": t.rel,
        "created": created,
        "size": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
    }


def _edit_file(ctx: ToolContext, args: JSONObject) -> JSONObject:
    t = resolve(ctx.root, args.get("path"))
    dry_run = args.get("dry_run", False)
    try:
        data = read_bytes(ctx.root, t.parts, MAX_READ_BYTES, ctx.guard)
        before = decode_text(data, t.rel)
        after, spans = apply_edits(before, args["edits"], t.rel, ctx.guard)
        encoded = after.encode("utf-8")
        if len(encoded) > MAX_READ_BYTES:
            raise ToolError("too_large", f"'{t.rel}' would grow past {MAX_READ_BYTES} bytes")
        if not dry_run and after != before:
            write_bytes(ctx, t.parts, encoded)
    except OSError as exc:
        raise os_failure(exc, t.rel) from None
    diff, cut = unified_diff(before, after, spans, t.rel, ctx.guard)
    return {
        "path": t.rel,
        "applied": len(args["edits"]),
        "dry_run": dry_run,
        "diff": diff,
        "diff_truncated": cut,
        "sha256": hashlib.sha256(encoded).hexdigest(),
    }


def _create_directory(ctx: ToolContext, args: JSONObject) -> JSONObject:
    t = resolve(ctx.root, args.get("path"))
    try:
        return {"path": t.rel, "created": make_dirs(ctx, t.parts)}
    except OSError as exc:
        raise os_failure(exc, t.rel) from None


def _entry(ctx: ToolContext, args: JSONObject, key: str) -> Target:
    t = resolve(ctx.root, args.get(key), key, follow_leaf=False)
    if not t.parts:
        raise ToolError("invalid_path", f"{key} is the workspace root itself")
    return t


def _move_file(ctx: ToolContext, args: JSONObject) -> JSONObject:
    src, dst = _entry(ctx, args, "source"), _entry(ctx, args, "destination")
    try:
        kind = move(ctx, src.parts, dst.parts)
    except OSError as exc:
        raise os_failure(exc, f"{src.rel}' -> '{dst.rel}") from None
    return {"source": src.rel, "destination": dst.rel, "type": kind}


EDIT = obj({"old_text": {"type": "string", "minLength": 1}, "new_text": {"type": "string"}})
EDITS = {"type": "array", "minItems": 1, "maxItems": MAX_EDITS, "items": EDIT}

WRITE_TOOLS: list[ToolSpec] = [
    ToolSpec(
        name="write_file",
        title="Write file",
        description=(
            "Create or replace a UTF-8 text file in the workspace (atomic: temp file then "
            "rename). Parent directories must exist unless create_parents is true. Files with "
            "several hard links are refused."
        ),
        input_schema=obj(
            {
                "path": PATH,
                "content": {"type": "string"},
                "create_parents": {"type": "boolean", "default": False},
            },
            ["path", "content"],
        ),
        output_schema=obj(
            {
                "path": {"type": "string"},
                "created": {"type": "boolean"},
                "size": {"type": "integer"},
                "sha256": {"type": "string"},
            }
        ),
        run=_write_file,
        read_only=False,
        destructive=True,
        idempotent=True,
    ),
    ToolSpec(
        name="edit_file",
        title="Edit file",
        description=(
            "Apply exact-text replacements to a workspace text file, in order. Each old_text must"
            " occur exactly once. Returns a unified diff (cut at 256 KiB: diff_truncated); "
            "dry_run returns the diff without writing. At most 1000 edits per call."
        ),
        input_schema=obj(
            {
                "path": PATH,
                "edits": EDITS,
                "dry_run": {"type": "boolean", "default": False},
            },
            ["path", "edits"],
        ),
        output_schema=obj(
            {
                "path": {"type": "string"},
                "applied": {"type": "integer"},
                "dry_run": {"type": "boolean"},
                "diff": {"type": "string"},
                "diff_truncated": {"type": "boolean"},
                "sha256": {"type": "string"},
            }
        ),
        run=_edit_file,
        read_only=False,
        destructive=True,
    ),
    ToolSpec(
        name="create_directory",
        title="Create directory",
        description=(
            "Create a workspace directory and any missing parents. Succeeds if it already exists."
        ),
        input_schema=obj({"path": PATH}),
        output_schema=obj({"path": {"type": "string"}, "created": {"type": "boolean"}}),
        run=_create_directory,
        read_only=False,
        idempotent=True,
    ),
    ToolSpec(
        name="move_file",
        title="Move or rename",
        description=(
            "Move or rename a file or directory inside the workspace. The destination must not "
            "exist. A symlink is moved as the link itself; a move that would leave a symlink "
            "pointing outside the workspace (the entry, or one inside a moved directory) is "
            "refused."
        ),
        input_schema=obj({"source": PATH, "destination": PATH}),
        output_schema=obj(
            {
                "source": {"type": "string"},
                "destination": {"type": "string"},
                "type": {"type": "string", "enum": ["file", "directory", "symlink", "other"]},
            }
        ),
        run=_move_file,
        read_only=False,
        destructive=True,
    ),
]
