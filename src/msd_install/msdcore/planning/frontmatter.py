"""Frontmatter of planning documents: split, read, edit one key in place, validate by schema.

A document starts with a ``---`` line, then the frontmatter (the YAML subset in
``yamlish``), then a closing ``---`` line, then the Markdown body. ``set`` replaces only the
lines of the one top-level key it changes (or appends the key), so comments and the formatting
of every other key stay byte-for-byte as the author wrote them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..confine import Target
from ..toolspec import JSONObject, ToolError
from . import schemas, yamlish
from .fsio import atomic_write, read_text
from .project import Project


@dataclass(frozen=True)
class Document:
    """A document cut into its three parts; ``head + fm_text + tail + body`` is the file."""

    head: str  # the opening fence line ("---\n"), "" when there is no frontmatter
    fm_text: str
    tail: str  # the closing fence line
    body: str

    @property
    def has_frontmatter(self) -> bool:
        return bool(self.head)


def split(text: str) -> Document:
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n") != "---":
        return Document("", "", "", text)
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r\n") == "---":
            return Document(lines[0], "".join(lines[1:i]), lines[i], "".join(lines[i + 1 :]))
    raise ToolError("invalid_frontmatter", "frontmatter opened with '---' but never closed")


def parse_text(text: str, source: str) -> tuple[JSONObject, Document]:
    try:
        doc = split(text)
    except ToolError as exc:
        raise ToolError(exc.code, f"{source}: {exc.message}") from None
    try:
        data = yamlish.parse(doc.fm_text)
    except yamlish.YamlError as exc:
        # +1: the opening fence is line 1 of the file.
        raise ToolError(
            "invalid_frontmatter", f"{source}: line {exc.line + 1}: {str(exc).split(': ', 1)[1]}"
        ) from None
    return data, doc


def read(project: Project, path: Target, source: str) -> tuple[JSONObject, Document]:
    return parse_text(read_text(project, path, source), source)


def _top_level_span(lines: list[str], key: str) -> tuple[int, int] | None:
    """Line indexes [start, end) of top-level ``key`` and its indented continuation lines."""
    for i, line in enumerate(lines):
        m = yamlish.KEY_RE.match(line.rstrip("\r\n"))
        if m and not line[0].isspace() and m.group("key") == key:
            end = i + 1
            while end < len(lines) and (
                not lines[end].strip() or lines[end][0] in " \t" or lines[end].startswith("- ")
            ):
                end += 1
            while end > i + 1 and not lines[end - 1].strip():
                end -= 1  # blank lines after the value belong to the layout, not the key
            return i, end
    return None


def with_key(text: str, key: str, value: Any, source: str) -> str:
    """``text`` with top-level frontmatter ``key`` set to ``value`` (adds frontmatter if none)."""
    data, doc = parse_text(text, source)
    try:
        entry = yamlish.dump_entry(key, value)
    except ValueError as exc:
        raise ToolError("invalid_value", f"{source}: {exc}") from None
    if not doc.has_frontmatter:
        return f"---\n{entry}---\n{doc.body}"
    newline = "\r\n" if doc.head.endswith("\r\n") else "\n"
    if newline != "\n":
        entry = entry.replace("\n", newline)
    lines = doc.fm_text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += newline
    span = _top_level_span(lines, key) if key in data else None
    if span is None:
        lines.append(entry)
    else:
        lines[span[0] : span[1]] = [entry]
    new_fm = "".join(lines)
    if yamlish.parse(new_fm).get(key) != value:  # the edit must read back as written
        raise ToolError("invalid_frontmatter", f"{source}: could not set {key} safely")
    return doc.head + new_fm + doc.tail + doc.body


def parse_value(raw: str) -> Any:
    """A CLI value: JSON when it parses as JSON (numbers, true, lists...), else the string."""
    try:
        return json.loads(raw)
    except ValueError:
        return raw


# ---- operations shared by the CLI and the MCP tools -------------------------------------------


def frontmatter_get(project: Project, file: str, key: str | None = None) -> JSONObject:
    path = project.user_path(file)
    data, doc = read(project, path, project.rel(path))
    if key is None:
        return {"path": project.rel(path), "frontmatter": data, "has_frontmatter": doc.head != ""}
    if key not in data:
        raise ToolError("unknown_key", f"{project.rel(path)}: no frontmatter key {key!r}")
    return {"path": project.rel(path), "key": key, "value": data[key]}


def frontmatter_set(project: Project, file: str, key: str, value: Any) -> JSONObject:
    path = project.user_path(file)
    source = project.rel(path)
    old = read_text(project, path, source)
    new = with_key(old, key, value, source)
    if new != old:
        atomic_write(project, path, new)
    return {"path": source, "key": key, "value": value, "changed": new != old}


def frontmatter_validate(project: Project, file: str, schema: str) -> JSONObject:
    if schema not in schemas.SCHEMAS:
        raise ToolError(
            "invalid_value", f"--schema must be one of {', '.join(schemas.SCHEMAS)}, not {schema!r}"
        )
    path = project.user_path(file)
    data, _ = read(project, path, project.rel(path))
    errors = schemas.validate(data, schema)
    return {"path": project.rel(path), "schema": schema, "valid": not errors, "errors": errors}
