"""The mutating file tools: write, edit, create directory, move.

All writes go through ``safeio.write_bytes`` (temp file + rename, no symlink followed, hard
links refused); directories are made and entries renamed relative to descriptors reached
without following symlinks. ``touched_paths`` tells the MCP layer which real paths to hash for
the audit log before and after each call.
"""

from __future__ import annotations

import difflib
import hashlib
import os
from pathlib import Path

from .confine import Target, resolve
from .fstools_read import MAX_READ_BYTES, PATH, decode_text, obj
from .safeio import kind_of, lstat_at, open_dir, os_failure, read_bytes, write_bytes
from .toolspec import JSONObject, ToolContext, ToolError, ToolSpec


def _write_file(ctx: ToolContext, args: JSONObject) -> JSONObject:
    t = resolve(ctx.root, args.get("path"))
    data = args["content"].encode("utf-8")
    try:
        created = write_bytes(
            ctx.root, t.parts, data, create_parents=args.get("create_parents", False)
        )
    except OSError as exc:
        raise os_failure(exc, t.rel) from None
    return {
        "path": t.rel,
        "created": created,
        "size": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
    }


def apply_edits(text: str, edits: list[JSONObject], rel: str) -> str:
    """Apply exact-text replacements in order; each old text must occur exactly once."""
    for i, edit in enumerate(edits):
        old, new = edit["old_text"], edit["new_text"]
        first = text.find(old)
        if first < 0:
            raise ToolError("no_match", f"edits[{i}].old_text not found in '{rel}'")
        if text.find(old, first + 1) >= 0:
            raise ToolError(
                "ambiguous_match",
                f"edits[{i}].old_text occurs more than once in '{rel}'; add context",
            )
        text = text[:first] + new + text[first + len(old) :]
    return text


def _edit_file(ctx: ToolContext, args: JSONObject) -> JSONObject:
    t = resolve(ctx.root, args.get("path"))
    try:
        data, _ = read_bytes(ctx.root, t.parts, MAX_READ_BYTES)
        before = decode_text(data, t.rel)
        after = apply_edits(before, args["edits"], t.rel)
        dry_run = args.get("dry_run", False)
        if not dry_run and after != before:
            write_bytes(ctx.root, t.parts, after.encode("utf-8"))
    except OSError as exc:
        raise os_failure(exc, t.rel) from None
    diff = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        f"a/{t.rel}",
        f"b/{t.rel}",
    )
    return {
        "path": t.rel,
        "applied": len(args["edits"]),
        "dry_run": dry_run,
        "diff": "".join(diff),
        "sha256": hashlib.sha256(after.encode("utf-8")).hexdigest(),
    }


def _create_directory(ctx: ToolContext, args: JSONObject) -> JSONObject:
    t = resolve(ctx.root, args.get("path"))
    try:
        try:
            with open_dir(ctx.root, t.parts):
                return {"path": t.rel, "created": False}
        except FileNotFoundError:
            pass
        with open_dir(ctx.root, t.parts, create=True):
            return {"path": t.rel, "created": True}
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
        with open_dir(ctx.root, src.parts[:-1]) as sfd, open_dir(ctx.root, dst.parts[:-1]) as dfd:
            st = lstat_at(sfd, src.parts[-1])
            if st is None:
                raise ToolError("not_found", f"source '{src.rel}' does not exist")
            if lstat_at(dfd, dst.parts[-1]) is not None:
                raise ToolError(
                    "exists", f"destination '{dst.rel}' already exists; refusing to overwrite"
                )
            os.rename(src.parts[-1], dst.parts[-1], src_dir_fd=sfd, dst_dir_fd=dfd)
    except OSError as exc:
        raise os_failure(exc, f"{src.rel}' -> '{dst.rel}") from None
    return {"source": src.rel, "destination": dst.rel, "type": kind_of(st.st_mode)}


def _move_paths(ctx: ToolContext, args: JSONObject) -> list[Path]:
    return [_entry(ctx, args, "source").real, _entry(ctx, args, "destination").real]


def _paths(ctx: ToolContext, args: JSONObject) -> list[Path]:
    return [resolve(ctx.root, args.get("path")).real]


EDIT = obj({"old_text": {"type": "string", "minLength": 1}, "new_text": {"type": "string"}})

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
        touched_paths=_paths,
    ),
    ToolSpec(
        name="edit_file",
        title="Edit file",
        description=(
            "Apply exact-text replacements to a workspace text file, in order. Each old_text must"
            " occur exactly once. Returns a unified diff; dry_run returns the diff without "
            "writing."
        ),
        input_schema=obj(
            {
                "path": PATH,
                "edits": {"type": "array", "minItems": 1, "items": EDIT},
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
                "sha256": {"type": "string"},
            }
        ),
        run=_edit_file,
        read_only=False,
        destructive=True,
        touched_paths=_paths,
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
        touched_paths=_paths,
    ),
    ToolSpec(
        name="move_file",
        title="Move or rename",
        description=(
            "Move or rename a file or directory inside the workspace. The destination must not "
            "exist. A symlink is moved as the link itself."
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
        touched_paths=_move_paths,
    ),
]
