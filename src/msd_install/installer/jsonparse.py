"""JSON / JSONC parsing to a span tree: every value knows where it starts and ends in the text.

The editor (``jsonedit``) splices text at these spans, so the parser keeps positions exactly
and reports syntax errors with line and column. Comments and trailing commas are accepted
only with ``jsonc=True``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

Key = str | int
JsonPath = tuple[Key, ...]


class JsonSyntaxError(ValueError):
    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(f"{message} at line {line}, column {column}")
        self.reason = message
        self.line = line
        self.column = column


@dataclass
class Node:
    kind: str  # "object" | "array" | "scalar"
    start: int
    end: int
    value: Any
    members: list[Member] = field(default_factory=list)  # objects
    items: list[Node] = field(default_factory=list)  # arrays


@dataclass
class Member:
    key: str
    start: int  # start of the key string
    value: Node

    @property
    def end(self) -> int:
        return self.value.end


WS = " \t\r\n"
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")


MAX_DEPTH = 400  # deeper than any real settings file; keeps the recursive parser safe


class _Parser:
    def __init__(self, text: str, jsonc: bool) -> None:
        self.text = text
        self.jsonc = jsonc
        self.pos = 0
        self.depth = 0

    def error(self, message: str, pos: int | None = None) -> JsonSyntaxError:
        at = self.pos if pos is None else pos
        line = self.text.count("\n", 0, at) + 1
        column = at - (self.text.rfind("\n", 0, at) + 1) + 1
        return JsonSyntaxError(message, line, column)

    def skip(self) -> None:
        text, n = self.text, len(self.text)
        while self.pos < n:
            ch = text[self.pos]
            if ch in WS:
                self.pos += 1
            elif ch == "/" and self.jsonc and text.startswith("//", self.pos):
                nl = text.find("\n", self.pos)
                self.pos = n if nl < 0 else nl
            elif ch == "/" and self.jsonc and text.startswith("/*", self.pos):
                close = text.find("*/", self.pos + 2)
                if close < 0:
                    raise self.error("unterminated comment")
                self.pos = close + 2
            elif ch == "/":
                raise self.error("comments are not allowed in this JSON file")
            else:
                return

    def document(self) -> Node:
        if self.text.startswith("\ufeff"):
            raise self.error("file starts with a byte-order mark (BOM)", 0)
        self.skip()
        if self.pos >= len(self.text):
            raise self.error("file is empty")
        node = self.value()
        self.skip()
        if self.pos != len(self.text):
            raise self.error("unexpected text after the JSON value")
        return node

    def value(self) -> Node:
        if self.pos >= len(self.text):
            raise self.error("unexpected end of file")
        ch = self.text[self.pos]
        if ch in "{[":
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise self.error(f"nested more than {MAX_DEPTH} levels deep")
            node = self.obj() if ch == "{" else self.arr()
            self.depth -= 1
            return node
        start = self.pos
        if ch == '"':
            return Node("scalar", start, self.pos_after_string(), self.last_string)
        for word, val in (("true", True), ("false", False), ("null", None)):
            if self.text.startswith(word, start):
                self.pos = start + len(word)
                return Node("scalar", start, self.pos, val)
        match = _NUMBER.match(self.text, start)
        if not match:
            raise self.error(f"unexpected character {ch!r}")
        self.pos = match.end()
        return Node("scalar", start, self.pos, json.loads(match.group()))

    last_string: str = ""

    def pos_after_string(self) -> int:
        start = self.pos
        text, i, n = self.text, self.pos + 1, len(self.text)
        while i < n:
            ch = text[i]
            if ch == '"':
                try:
                    self.last_string = json.loads(text[start : i + 1])
                except json.JSONDecodeError as exc:
                    raise self.error(f"invalid string: {exc.msg}", start) from None
                self.pos = i + 1
                return self.pos
            if ch == "\\":
                i += 2
                continue
            if ch == "\n":
                break
            i += 1
        raise self.error("unterminated string", start)

    def obj(self) -> Node:
        start = self.pos
        self.pos += 1
        node = Node("object", start, start, {})
        self.skip()
        while True:
            if self.pos >= len(self.text):
                raise self.error("unexpected end of file, expected '}'")
            if self.text[self.pos] == "}":
                break
            if self.text[self.pos] != '"':
                raise self.error("expected a property name in double quotes")
            key_start = self.pos
            self.pos_after_string()
            key = self.last_string
            self.skip()
            if self.pos >= len(self.text) or self.text[self.pos] != ":":
                raise self.error("expected ':' after property name")
            self.pos += 1
            self.skip()
            val = self.value()
            node.members.append(Member(key, key_start, val))
            node.value[key] = val.value
            self.skip()
            if self.pos < len(self.text) and self.text[self.pos] == ",":
                comma = self.pos
                self.pos += 1
                self.skip()
                if self.pos < len(self.text) and self.text[self.pos] == "}" and not self.jsonc:
                    raise self.error("trailing comma", comma)
                continue
            if self.pos < len(self.text) and self.text[self.pos] == "}":
                break
            raise self.error("expected ',' or '}'")
        self.pos += 1
        node.end = self.pos
        return node

    def arr(self) -> Node:
        start = self.pos
        self.pos += 1
        node = Node("array", start, start, [])
        self.skip()
        while True:
            if self.pos >= len(self.text):
                raise self.error("unexpected end of file, expected ']'")
            if self.text[self.pos] == "]":
                break
            item = self.value()
            node.items.append(item)
            node.value.append(item.value)
            self.skip()
            if self.pos < len(self.text) and self.text[self.pos] == ",":
                comma = self.pos
                self.pos += 1
                self.skip()
                if self.pos < len(self.text) and self.text[self.pos] == "]" and not self.jsonc:
                    raise self.error("trailing comma", comma)
                continue
            if self.pos < len(self.text) and self.text[self.pos] == "]":
                break
            raise self.error("expected ',' or ']'")
        self.pos += 1
        node.end = self.pos
        return node


def parse(text: str, *, jsonc: bool = False) -> Node:
    """Parse ``text`` into a span tree. Raises ``JsonSyntaxError`` with line and column."""
    return _Parser(text, jsonc).document()


def canonical(value: Any) -> str:
    """The canonical JSON of a value: what manifest hashes are computed over."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
