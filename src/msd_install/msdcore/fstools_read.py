"""The read-only file tools: read, list, tree, search, stat, and what the workspace is.

Each is a ``ToolSpec``; every path goes through ``confine.resolve`` and every open through
``safeio``/``fswalk``, so nothing outside the workspace root is read, listed or described.
Every result is bounded: a read returns at most ``MAX_CONTENT_BYTES`` of JSON-encoded text (the
rest is paged with ``offset``), listings and walks stop at their entry and byte budgets.
"""

from __future__ import annotations

import hashlib
import os
import stat

from .confine import Target
from .fstools_common import (
    DIR,
    KIND,
    MAX_CONTENT_BYTES,
    MAX_LIST_ENTRIES,
    MAX_OUTPUT_BYTES,
    MAX_READ_BYTES,
    MAX_SCAN_ENTRIES,
    PATH,
    decode_text,
    encoded_size,
    fit,
    obj,
    rfc3339,
    split_lines,
    target,
)
from .fswalk import Budget, Entry, walk
from .globmatch import compile_glob
from .safeio import kind_of, open_dir, os_failure, read_bytes, scan
from .toolspec import JSONObject, ToolContext, ToolError, ToolSpec

__all__ = ["MAX_READ_BYTES", "READ_TOOLS"]


def _read_text_file(ctx: ToolContext, args: JSONObject) -> JSONObject:
    t = target(ctx, args)
    try:
        data = read_bytes(ctx.root, t.parts, MAX_READ_BYTES, ctx.guard)
    except OSError as exc:
        raise os_failure(exc, t.rel) from None
    lines = split_lines(decode_text(data, t.rel))
    offset, limit = args.get("offset", 0), args.get("limit", 2000)
    chosen = lines[offset : offset + limit]
    chosen = chosen[: max(fit(chosen, ctx), 1 if chosen else 0)]
    if chosen and encoded_size(chosen[0]) > MAX_CONTENT_BYTES:
        raise ToolError("too_large", f"'{t.rel}': line {offset + 1} alone is too large to return")
    following = offset + len(chosen)
    return {
        "path": t.rel,
        "content": "".join(chosen),
        "offset": offset,
        "lines_returned": len(chosen),
        "total_lines": len(lines),
        "truncated": following < len(lines),
        "next_offset": following if following < len(lines) else None,
        "size": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
    }


def _list_directory(ctx: ToolContext, args: JSONObject) -> JSONObject:
    t = target(ctx, args, default=".")
    try:
        with open_dir(ctx.root, t.parts) as fd:
            items = scan(fd, ctx.guard)
    except OSError as exc:
        raise os_failure(exc, t.rel) from None
    entries = [{"name": n, "type": kind_of(st.st_mode), "size": st.st_size} for n, st in items]
    return {
        "path": t.rel,
        "entries": entries[:MAX_LIST_ENTRIES],
        "truncated": len(entries) > MAX_LIST_ENTRIES,
    }


def _join(base: Target, rel: str) -> str:
    return rel if not base.parts else f"{base.rel}/{rel}"


def _directory_tree(ctx: ToolContext, args: JSONObject) -> JSONObject:
    t = target(ctx, args, default=".")
    budget = Budget(args.get("max_entries", 1000), MAX_OUTPUT_BYTES)
    out: list[JSONObject] = []

    def visit(e: Entry) -> bool:
        path = _join(t, e.rel)
        if not budget.take(path):
            return False
        out.append({"path": path, "type": e.kind, "size": e.size, "depth": e.depth})
        return True

    try:
        with open_dir(ctx.root, t.parts) as fd:
            walk(fd, args.get("max_depth", 3), visit, ctx.guard)
    except OSError as exc:
        raise os_failure(exc, t.rel) from None
    return {"path": t.rel, "entries": out, "truncated": budget.truncated}


def _search_files(ctx: ToolContext, args: JSONObject) -> JSONObject:
    t = target(ctx, args, default=".")
    pattern: str = args["pattern"]
    matches_glob = compile_glob(pattern)
    by_name = "/" not in pattern  # like .gitignore: a bare pattern matches at any depth
    limit = args.get("max_results", 200)
    matches: list[str] = []
    scanned = Budget(MAX_SCAN_ENTRIES, MAX_OUTPUT_BYTES)
    hit_limit = False

    def visit(e: Entry) -> bool:
        nonlocal hit_limit
        if not scanned.take(""):
            return False
        if matches_glob(e.name if by_name else e.rel):
            if len(matches) >= limit:
                hit_limit = True
                return False
            matches.append(_join(t, e.rel))
        return True

    try:
        with open_dir(ctx.root, t.parts) as fd:
            walk(fd, args.get("max_depth", 16), visit, ctx.guard)
    except OSError as exc:
        raise os_failure(exc, t.rel) from None
    return {
        "path": t.rel,
        "pattern": pattern,
        "matches": matches,
        "truncated": hit_limit or scanned.truncated,
        "scanned": MAX_SCAN_ENTRIES - scanned.entries,
    }


def _get_file_info(ctx: ToolContext, args: JSONObject) -> JSONObject:
    t = target(ctx, args)
    try:
        with open_dir(ctx.root, t.parts[:-1]) as fd:
            st = os.stat(t.parts[-1], dir_fd=fd, follow_symlinks=False) if t.parts else os.fstat(fd)
    except OSError as exc:
        raise os_failure(exc, t.rel) from None
    return {
        "path": t.rel,
        "type": kind_of(st.st_mode),
        "size": st.st_size,
        "modified": rfc3339(st.st_mtime),
        "mode": f"{stat.S_IMODE(st.st_mode):04o}",
        "nlink": st.st_nlink,
    }


def _workspace_info(ctx: ToolContext, args: JSONObject) -> JSONObject:
    t = target(ctx, args, "project_path", ".")
    try:
        with open_dir(ctx.root, t.parts) as fd:
            names = {n for n, _ in scan(fd, ctx.guard)}
    except OSError as exc:
        raise os_failure(exc, t.rel) from None
    return {"root": str(ctx.root), "project_path": t.rel, "has_planning": ".planning" in names}


READ_TOOLS: list[ToolSpec] = [
    ToolSpec(
        name="read_text_file",
        title="Read text file",
        description=(
            "Read a UTF-8 text file in the workspace. offset/limit select lines (offset = lines "
            "to skip). Files over 8 MiB are refused; a result is cut at about 10 MB of text "
            "(truncated, next_offset says where to go on). The text comes as its own content "
            "block; the structured result describes it."
        ),
        input_schema=obj(
            {
                "path": PATH,
                "offset": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": MAX_READ_BYTES,
                    "default": 0,
                },
                "limit": {"type": "integer", "minimum": 1, "maximum": 100000, "default": 2000},
            },
            ["path"],
        ),
        output_schema=obj(
            {
                "path": {"type": "string"},
                "offset": {"type": "integer"},
                "lines_returned": {"type": "integer"},
                "total_lines": {"type": "integer"},
                "truncated": {"type": "boolean"},
                "next_offset": {"type": ["integer", "null"]},
                "size": {"type": "integer"},
                "sha256": {"type": "string"},
                "content": {"type": "string"},
            }
        ),
        run=_read_text_file,
        read_only=True,
        idempotent=True,
        text_field="content",
    ),
    ToolSpec(
        name="list_directory",
        title="List directory",
        description=(
            "List the entries of a workspace directory (name, type, size), sorted by name. "
            "Symlinks are listed, not followed."
        ),
        input_schema=obj({"path": DIR}, []),
        output_schema=obj(
            {
                "path": {"type": "string"},
                "entries": {
                    "type": "array",
                    "items": obj(
                        {"name": {"type": "string"}, "type": KIND, "size": {"type": "integer"}}
                    ),
                },
                "truncated": {"type": "boolean"},
            }
        ),
        run=_list_directory,
        read_only=True,
        idempotent=True,
    ),
    ToolSpec(
        name="directory_tree",
        title="Directory tree",
        description=(
            "Recursive listing of a workspace directory, depth-first by name, bounded by "
            "max_depth and max_entries. Symlinked directories are not entered."
        ),
        input_schema=obj(
            {
                "path": DIR,
                "max_depth": {"type": "integer", "minimum": 1, "maximum": 16, "default": 3},
                "max_entries": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_LIST_ENTRIES,
                    "default": 1000,
                },
            },
            [],
        ),
        output_schema=obj(
            {
                "path": {"type": "string"},
                "entries": {
                    "type": "array",
                    "items": obj(
                        {
                            "path": {"type": "string"},
                            "type": KIND,
                            "size": {"type": "integer"},
                            "depth": {"type": "integer"},
                        }
                    ),
                },
                "truncated": {"type": "boolean"},
            }
        ),
        run=_directory_tree,
        read_only=True,
        idempotent=True,
    ),
    ToolSpec(
        name="search_files",
        title="Search files by name",
        description=(
            "Find workspace paths matching a glob: *, ?, [abc], [!a-z] within a name; a '**' "
            "path component matches any number of directories. A pattern without '/' matches "
            "names at any depth. Bounded; symlinked directories are not entered."
        ),
        input_schema=obj(
            {
                "pattern": {"type": "string", "minLength": 1, "maxLength": 1000},
                "path": DIR,
                "max_results": {"type": "integer", "minimum": 1, "maximum": 5000, "default": 200},
                "max_depth": {"type": "integer", "minimum": 1, "maximum": 32, "default": 16},
            },
            ["pattern"],
        ),
        output_schema=obj(
            {
                "path": {"type": "string"},
                "pattern": {"type": "string"},
                "matches": {"type": "array", "items": {"type": "string"}},
                "truncated": {"type": "boolean"},
                "scanned": {"type": "integer"},
            }
        ),
        run=_search_files,
        read_only=True,
        idempotent=True,
    ),
    ToolSpec(
        name="get_file_info",
        title="File info",
        description=(
            "Type, size, modification time (UTC), permission bits and link count of a workspace "
            "path."
        ),
        input_schema=obj({"path": PATH}),
        output_schema=obj(
            {
                "path": {"type": "string"},
                "type": KIND,
                "size": {"type": "integer"},
                "modified": {"type": "string"},
                "mode": {"type": "string"},
                "nlink": {"type": "integer"},
            }
        ),
        run=_get_file_info,
        read_only=True,
        idempotent=True,
    ),
    ToolSpec(
        name="workspace_info",
        title="Workspace info",
        description=(
            "The workspace root this server is confined to, and whether a project directory in it"
            " (project_path, default the root) has a .planning/ directory."
        ),
        input_schema=obj({"project_path": DIR}, []),
        output_schema=obj(
            {
                "root": {"type": "string"},
                "project_path": {"type": "string"},
                "has_planning": {"type": "boolean"},
            }
        ),
        run=_workspace_info,
        read_only=True,
        idempotent=True,
    ),
]
