"""A strict parser and emitter for the YAML subset used in ``.planning/`` frontmatter.

Supported: block mappings and sequences (nested by indentation, sequences of scalars or of
mappings), plain / single-quoted / double-quoted scalars, flow sequences and flow mappings of
scalars (``[a, "b"]``, ``{}``), literal and folded block scalars (``|``, ``>``), comments.
Scalars resolve like YAML 1.2 core: ``null``/``~``, ``true``/``false``, integers, floats, else
strings. Anything outside the subset (anchors, aliases, tags, multi-document, tabs in
indentation, duplicate keys, ``a: b: c``) is a clear error naming the line, never a silent guess.

The emitter writes only what the parser reads back to an equal value (checked per scalar), so
``parse(dump(x)) == x`` for every JSON-like mapping of strings, numbers, booleans, nulls, lists
and nested mappings.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from .yamlscalar import (
    FLOAT_RE,
    KEY_RE,
    MAX_DEPTH,
    YAML11_BOOLS,
    YamlError,
    scalar,
    strip_comment,
)

__all__ = ["KEY_RE", "YamlError", "dump", "dump_entry", "format_scalar", "parse", "scalar"]

_BLOCK_SCALAR = {"|", "|-", "|+", ">", ">-", ">+"}


@dataclass
class _Line:
    no: int  # 1-based
    indent: int
    content: str


class _Parser:
    def __init__(self, text: str) -> None:
        self.raw = text.replace("\r\n", "\n").split("\n")
        self.lines: list[_Line] = []
        for no, line in enumerate(self.raw, start=1):
            stripped = line.lstrip(" ")
            if not stripped.strip() or stripped.startswith("#"):
                continue
            if stripped[0] == "\t":
                raise YamlError(no, "tab in indentation")
            if stripped.rstrip() in ("---", "...") and len(stripped) == len(line):
                raise YamlError(no, "multiple documents are not supported")
            self.lines.append(_Line(no, len(line) - len(stripped), stripped.rstrip()))
        self.i = 0
        self.depth = 0

    def parse(self) -> dict[str, Any]:
        if not self.lines:
            return {}
        first = self.lines[0]
        if first.indent != 0:
            raise YamlError(first.no, "the first key must not be indented")
        if first.content.startswith("-"):
            raise YamlError(first.no, "frontmatter must be a mapping, not a sequence")
        value = self._mapping(0)
        if self.i < len(self.lines):
            raise YamlError(self.lines[self.i].no, "unexpected indentation")
        return value

    def _node(self, indent: int) -> Any:
        line = self.lines[self.i]
        if self.depth >= MAX_DEPTH:
            raise YamlError(line.no, f"nested deeper than {MAX_DEPTH} levels")
        self.depth += 1
        try:
            if _is_item(line.content):
                return self._sequence(indent)
            return self._mapping(indent)
        finally:
            self.depth -= 1

    def _mapping(self, indent: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        while self.i < len(self.lines) and self.lines[self.i].indent == indent:
            line = self.lines[self.i]
            if _is_item(line.content):
                raise YamlError(line.no, "sequence item where a 'key:' was expected")
            m = KEY_RE.match(line.content)
            if not m:
                raise YamlError(line.no, f"expected 'key: value', got {line.content!r}")
            key = m.group("key")
            if key in out:
                raise YamlError(line.no, f"duplicate key {key!r}")
            rest = strip_comment(m.group("rest") or "")
            self.i += 1
            if rest in _BLOCK_SCALAR:
                out[key] = self._block_scalar(line, rest)
            elif rest:
                out[key] = scalar(rest, line.no)
            elif self.i < len(self.lines) and (
                self.lines[self.i].indent > indent
                or (self.lines[self.i].indent == indent and _is_item(self.lines[self.i].content))
            ):
                out[key] = self._node(self.lines[self.i].indent)
            else:
                out[key] = None
        if self.i < len(self.lines) and self.lines[self.i].indent > indent:
            raise YamlError(self.lines[self.i].no, "unexpected indentation")
        return out

    def _sequence(self, indent: int) -> list[Any]:
        out: list[Any] = []
        while (
            self.i < len(self.lines)
            and self.lines[self.i].indent == indent
            and _is_item(self.lines[self.i].content)
        ):
            line = self.lines[self.i]
            body = line.content[1:]
            item = body.lstrip(" ")
            if not item:
                self.i += 1
                if self.i < len(self.lines) and self.lines[self.i].indent > indent:
                    out.append(self._node(self.lines[self.i].indent))
                else:
                    out.append(None)
            elif KEY_RE.match(item) and item[0] not in "\"'[{":
                # "- key: value" opens a mapping whose keys sit at the item's column.
                column = indent + 1 + len(body) - len(item)
                self.lines[self.i] = _Line(line.no, column, item)
                out.append(self._mapping(column))
            elif _is_item(item):
                raise YamlError(line.no, "nested '- - item' sequences are not supported")
            else:
                self.i += 1
                out.append(scalar(item, line.no))
        if self.i < len(self.lines) and self.lines[self.i].indent > indent:
            raise YamlError(self.lines[self.i].no, "unexpected indentation")
        return out

    def _block_scalar(self, owner: _Line, style: str) -> str:
        # Block scalars keep blank lines and '#' lines, so read the raw text, not self.lines.
        start = owner.no  # index of the next raw line
        end = start
        block: list[str] = []
        while end < len(self.raw):
            raw = self.raw[end]
            if raw.strip() and len(raw) - len(raw.lstrip(" ")) <= owner.indent:
                break
            block.append(raw)
            end += 1
        while self.i < len(self.lines) and self.lines[self.i].no <= end:
            self.i += 1
        while block and not block[-1].strip():
            block.pop()
        if not block:
            return ""
        pad = min(len(b) - len(b.lstrip(" ")) for b in block if b.strip())
        body = [b[pad:] for b in block]
        text = "\n".join(body) if style[0] == "|" else _fold(body)
        return text if style.endswith("-") else text + "\n"


def _fold(lines: list[str]) -> str:
    out, para = [], []
    for line in lines:
        if line.strip():
            para.append(line.strip())
        else:
            out.append(" ".join(para))
            para = []
    out.append(" ".join(para))
    return "\n".join(p for p in out if p) if len(out) > 1 else out[0]


def _is_item(content: str) -> bool:
    return content == "-" or content.startswith("- ")


def parse(text: str) -> dict[str, Any]:
    """Parse a frontmatter block (without the ``---`` fences) into a mapping."""
    return _Parser(text).parse()


# ---- emitter ----------------------------------------------------------------------------------


def _plain_ok(text: str) -> bool:
    if not text or text != text.strip() or text[0] in "-?:,[]{}#&*!|>'\"%@`~":
        return False
    if any(ch in text for ch in "\n\r\t\x00") or any(ord(ch) < 32 for ch in text):
        return False
    if ": " in text or " #" in text or text.endswith(":"):
        return False
    if text.lower() in YAML11_BOOLS:  # YAML 1.1 readers would turn these into booleans
        return False
    try:
        return bool(scalar(text) == text)
    except YamlError:
        return False


def format_scalar(value: Any) -> str:
    """One scalar as YAML text that :func:`scalar` reads back to an equal value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"cannot store non-finite number {value!r}")
        text = repr(value)
        return text if FLOAT_RE.match(text) else json.dumps(value)
    if isinstance(value, str):
        return value if _plain_ok(value) else json.dumps(value, ensure_ascii=False)
    raise ValueError(f"cannot store {type(value).__name__} as a scalar")


def _check_key(key: object) -> str:
    if not isinstance(key, str) or not KEY_RE.match(f"{key}:"):
        raise ValueError(f"unsupported key {key!r} (letters, digits, '_', '-', '.')")
    return key


def _emit_value(key_prefix: str, value: Any, indent: int, out: list[str]) -> None:
    pad = " " * indent
    if isinstance(value, dict):
        if not value:
            out.append(f"{pad}{key_prefix} {{}}")
            return
        out.append(f"{pad}{key_prefix}")
        _emit_mapping(value, indent + 2, out)
    elif isinstance(value, list):
        if not value:
            out.append(f"{pad}{key_prefix} []")
            return
        out.append(f"{pad}{key_prefix}")
        for item in value:
            if isinstance(item, dict) and item:
                inner: list[str] = []
                _emit_mapping(item, indent + 4, inner)
                out.append(f"{pad}  - {inner[0].lstrip(' ')}")
                out.extend(inner[1:])
            elif isinstance(item, (list, dict)):
                raise ValueError("lists inside lists and empty mappings in lists are not supported")
            else:
                out.append(f"{pad}  - {format_scalar(item)}")
    else:
        out.append(f"{pad}{key_prefix} {format_scalar(value)}")


def _emit_mapping(mapping: dict[str, Any], indent: int, out: list[str]) -> None:
    for key, value in mapping.items():
        _emit_value(f"{_check_key(key)}:", value, indent, out)


def _check_depth(value: Any) -> None:
    """Refuse values nested deeper than the parser reads (checked without recursion)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)


def dump(mapping: dict[str, Any]) -> str:
    """The mapping as frontmatter text (no fences), one trailing newline."""
    _check_depth(mapping)
    out: list[str] = []
    _emit_mapping(mapping, 0, out)
    return "".join(line + "\n" for line in out)


def dump_entry(key: str, value: Any) -> str:
    """One top-level ``key: value`` entry (possibly several lines), newline-terminated."""
    _check_depth(value)
    out: list[str] = []
    _emit_value(f"{_check_key(key)}:", value, 0, out)
    return "".join(line + "\n" for line in out)
