"""JSON / JSONC parsing to a span tree: every value knows where it starts and ends in the text.

The editor (``jsonedit``) splices text at these spans, so the parser keeps positions exactly
and reports syntax errors with line and column. Comments and trailing commas are accepted
only with ``jsonc=True``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

Key = str | int
JsonPath = tuple[Key, ...]


class JsonSyntaxError(ValueError):
    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(f"{message} at line {line}, column {column}")
        self.reason = message
        self.line = line
        self.column = column


class Node:
    """A JSON value and its span ``[start, end)`` in the text.

    Nested containers of strict JSON are decoded by the json module's C decoder and get their
    child spans only when someone looks at them (``members``/``items``): a multi-megabyte
    ``~/.claude.json`` is edited at one key, so parsing every span of it would be wasted.
    """

    __slots__ = ("_items", "_members", "_source", "end", "kind", "start", "value")

    def __init__(
        self,
        kind: str,
        start: int,
        end: int,
        value: Any,
        source: tuple[str, bool, int] | None = None,
    ) -> None:
        self.kind = kind  # "object" | "array" | "scalar"
        self.start = start
        self.end = end
        self.value = value
        self._members: list[Member] = []
        self._items: list[Node] = []
        self._source = source  # (text, jsonc, depth) while the child spans are not parsed yet

    def _load(self) -> None:
        if self._source is None:
            return
        text, jsonc, depth = self._source
        self._source = None
        parser = _Parser(text, jsonc)
        parser.pos, parser.depth = self.start, depth + 1
        full = parser.obj() if self.kind == "object" else parser.arr()  # this level's spans
        self._members, self._items = full._members, full._items

    def parsed_children(self) -> list[Node]:
        """Child values whose spans are parsed already (never triggers parsing)."""
        return [m.value for m in self._members] + self._items

    def parsed_starts(self) -> list[int]:
        """Where each parsed child begins: a member at its key, an item at its value."""
        return [m.start for m in self._members] + [i.start for i in self._items]

    @property
    def members(self) -> list[Member]:  # objects
        self._load()
        return self._members

    @property
    def items(self) -> list[Node]:  # arrays
        self._load()
        return self._items


@dataclass
class Member:
    key: str
    start: int  # start of the key string
    value: Node

    @property
    def end(self) -> int:
        return self.value.end


WS = " \t\r\n"
_BLANK = re.compile(r"[ \t\r\n]*")
_scanstring = json.decoder.scanstring  # type: ignore[attr-defined]
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")


MAX_DEPTH = 400  # deeper than any real settings file; keeps the recursive parser safe


def _no_constants(name: str) -> Any:
    raise ValueError(name)  # NaN / Infinity are not JSON: let the span parser say so


_DECODER = json.JSONDecoder(parse_constant=_no_constants)


class Reuse:
    """The big containers a parse of the text before one splice decoded (start -> end, value,
    nesting): the text outside the splice is unchanged, so the parse after it takes them as
    they were (shifted) instead of decoding megabytes again for each of an edit's splices."""

    def __init__(
        self, decoded: dict[int, tuple[int, Any, int]], start: int, end: int, delta: int
    ) -> None:
        self.decoded, self.start, self.end, self.delta = decoded, start, end, delta

    def get(self, pos: int) -> tuple[int, Any, int] | None:
        if pos < self.start:
            hit = self.decoded.get(pos)
            if hit is None or hit[0] > self.start:  # it reaches into the splice
                return None
            return hit
        if pos - self.delta < self.end:
            return None
        hit = self.decoded.get(pos - self.delta)
        return None if hit is None else (hit[0] + self.delta, hit[1], hit[2])


class _Parser:
    reuse: Reuse | None = None

    def __init__(self, text: str, jsonc: bool, commas: bool = True) -> None:
        self.decoded: dict[int, tuple[int, Any, int]] = {}
        self.text = text
        self.jsonc = jsonc
        self.commas = jsonc and commas  # trailing commas: JSONC, unless the runtime refuses them
        self.pos = 0
        self.depth = 0

    def error(self, message: str, pos: int | None = None) -> JsonSyntaxError:
        at = self.pos if pos is None else pos
        line = self.text.count("\n", 0, at) + 1
        column = at - (self.text.rfind("\n", 0, at) + 1) + 1
        return JsonSyntaxError(message, line, column)

    def skip(self) -> None:
        """Skip blanks, and comments where JSONC allows them."""
        text, n = self.text, len(self.text)
        while True:
            self.pos = _BLANK.match(text, self.pos).end()  # type: ignore[union-attr]
            if self.pos >= n or text[self.pos] != "/":
                return
            if not self.jsonc:
                raise self.error("comments are not allowed in this JSON file")
            if text.startswith("//", self.pos):
                nl = text.find("\n", self.pos)
                self.pos = n if nl < 0 else nl
            elif text.startswith("/*", self.pos):
                close = text.find("*/", self.pos + 2)
                if close < 0:
                    raise self.error("unterminated comment")
                self.pos = close + 2
            else:
                raise self.error("unexpected character '/'")

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
            if self.depth > 0 and not self.jsonc:
                lazy = self.fast(ch)
                if lazy is not None:
                    return lazy
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
        try:
            number = json.loads(match.group())
        except ValueError:  # e.g. an integer longer than Python will convert
            raise self.error("number too long", start) from None
        self.pos = match.end()
        return Node("scalar", start, self.pos, number)

    last_string: str = ""

    def fast(self, ch: str) -> Node | None:
        """Decode a nested container in C; None (parse it here) if it is not plain valid JSON,
        so that errors are still reported in our words and at our positions."""
        start = self.pos
        hit = self.reuse.get(start) if self.reuse is not None else None
        if hit is not None:
            end, value, nesting = hit
        else:
            try:
                value, end = _DECODER.raw_decode(self.text, start)
            except (ValueError, RecursionError):
                return None
            nesting = _nesting_of(self.text, start, end, value)
        if self.depth + nesting > MAX_DEPTH:
            return None
        if end - start >= _NESTING_MIN:
            self.decoded[start] = (end, value, nesting)
        self.pos = end
        kind = "object" if ch == "{" else "array"
        return Node(kind, start, end, value, (self.text, self.jsonc, self.depth))

    def pos_after_string(self) -> int:
        """Scan the string at ``pos`` with the json module's C scanner (same rules as it)."""
        start = self.pos
        try:
            self.last_string, self.pos = _scanstring(self.text, start + 1, True)
        except json.JSONDecodeError as exc:
            at = exc.pos if exc.pos < len(self.text) else len(self.text)
            if "Unterminated" in exc.msg or self.text[at : at + 1] in ("\n", "\r", ""):
                raise self.error("unterminated string", start) from None
            reason = exc.msg.removesuffix(" at").lower()
            raise self.error(f"invalid string ({reason})", start) from None
        return self.pos

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
                if self.pos < len(self.text) and self.text[self.pos] == "}" and not self.commas:
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
                if self.pos < len(self.text) and self.text[self.pos] == "]" and not self.commas:
                    raise self.error("trailing comma", comma)
                continue
            if self.pos < len(self.text) and self.text[self.pos] == "]":
                break
            raise self.error("expected ',' or ']'")
        self.pos += 1
        node.end = self.pos
        return node


# span text -> nesting of its value, for big values: every splice of an edit re-parses the
# document, and walking a 20 MB ``projects`` map of ~/.claude.json again for each of our ~20
# entries was most of an install. Keyed by the exact text, so a hit is the same value.
_NESTING: dict[str, int] = {}
_NESTING_MIN = 1 << 16
_NESTING_KEEP = 8


def _nesting_of(text: str, start: int, end: int, value: Any) -> int:
    if end - start < _NESTING_MIN:
        return _nesting(value)
    span = text[start:end]
    hit = _NESTING.get(span)
    if hit is None:
        hit = _NESTING[span] = _nesting(value)
        while len(_NESTING) > _NESTING_KEEP:
            del _NESTING[next(iter(_NESTING))]
    return hit


def _nesting(value: Any) -> int:
    """How deep containers nest in ``value`` (iteratively; 1 for an empty container)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        current, level = stack.pop()
        deepest = max(deepest, level)
        children = current.values() if isinstance(current, dict) else current
        stack.extend((c, level + 1) for c in children if isinstance(c, (dict, list)))
    return deepest


def parse(text: str, *, jsonc: bool = False, commas: bool = True) -> Node:
    """Parse ``text`` into a span tree. Raises ``JsonSyntaxError`` with line and column."""
    return _Parser(text, jsonc, commas).document()


def parse_reusing(
    text: str, jsonc: bool, commas: bool, reuse: Reuse | None
) -> tuple[Node, dict[int, tuple[int, Any, int]]]:
    """``parse``, taking big containers from ``reuse``; also returns what it decoded, for
    the next splice's ``Reuse``."""
    parser = _Parser(text, jsonc, commas)
    parser.reuse = reuse
    return parser.document(), parser.decoded


def canonical(value: Any) -> str:
    """The canonical JSON of a value: what manifest hashes are computed over."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
