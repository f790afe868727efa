"""A byte-preserving JSON / JSONC editor: parse to spans, edit by splicing text.

Why write this instead of using a library: ``json`` loses comments, key order of duplicates and
all formatting; the round-trip JSON libraries on PyPI either do not keep comments and
whitespace exactly or cannot *remove* an inserted member so that the file comes back byte for
byte. msd-install must give back a user's ``settings.json`` exactly after install + uninstall,
so every edit here is a splice of the original text, and every insertion has an exact inverse:

* insert into a non-empty container: ``,`` + newline + indent + member, right after the last
  member; removing it deletes from the end of the previous member to the end of ours;
* insert into an empty container: the interior is replaced by a multi-line block; removing the
  only member puts back the interior text recorded at insert time (``Inserted.interior``).

Comments (``//``, ``/* */``) and trailing commas are accepted only with ``jsonc=True``;
``commas=False`` refuses trailing commas even then (Gemini CLI and Qwen Code read comments in
their settings but fail on a trailing comma).
Line endings (LF/CRLF), indentation unit and the final newline are taken from the document.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .jsonparse import WS, JsonPath, JsonSyntaxError, Key, Member, Node, canonical, parse

__all__ = ["Inserted", "JsonDocument", "JsonSyntaxError", "Member", "Node", "canonical", "parse"]


@dataclass(frozen=True)
class Inserted:
    """What an insertion did, so that its exact inverse can be applied later."""

    text: str
    interior: str | None  # the empty container's interior it replaced, or None


class JsonDocument:
    """An immutable-looking document: every edit returns a new ``JsonDocument``."""

    implicit_parents = False  # containers are created (and recorded) one by one

    def __init__(self, text: str, *, jsonc: bool = False, commas: bool = True) -> None:
        self.text = text
        self.jsonc = jsonc
        self.commas = commas
        self.root = parse(text, jsonc=jsonc, commas=commas)

    # --- reading -----------------------------------------------------------------------
    def node(self, path: JsonPath) -> Node | None:
        node: Node | None = self.root
        for key in path:
            if node is None:
                return None
            node = _child(node, key)
        return node

    def value_text(self, path: JsonPath) -> str:
        """The exact text of the value at ``path`` (to put it back later, byte for byte)."""
        node = self.node(path)
        if node is None:
            raise KeyError(path)
        return self.text[node.start : node.end]

    def value(self, path: JsonPath) -> Any:
        node = self.node(path)
        return None if node is None else node.value

    # --- formatting facts ----------------------------------------------------------------
    @property
    def newline(self) -> str:
        return "\r\n" if "\r\n" in self.text else "\n"

    def indent_unit(self) -> str:
        """The indentation unit: from the first member that starts its own line."""
        for node in _walk(self.root):
            for start in node.parsed_starts():
                ws = _leading_ws(self.text, start)
                if ws is not None and ws != _line_indent(self.text, node.start):
                    base = _line_indent(self.text, node.start)
                    if ws.startswith(base) and len(ws) > len(base):
                        return ws[len(base) :]
        return "  "

    # --- editing -------------------------------------------------------------------------
    def add_member(self, path: JsonPath, key: str, value: Any) -> tuple[JsonDocument, Inserted]:
        obj = self._container(path, "object")
        rendered = json.dumps(key, ensure_ascii=False) + ": "
        return self._insert(
            obj, [m.start for m in obj.members], [m.end for m in obj.members], rendered, value
        )

    def append_item(self, path: JsonPath, value: Any) -> tuple[JsonDocument, Inserted]:
        arr = self._container(path, "array")
        return self._insert(
            arr, [i.start for i in arr.items], [i.end for i in arr.items], "", value
        )

    def remove_member(self, path: JsonPath, key: str, interior: str | None = None) -> JsonDocument:
        obj = self._container(path, "object")
        index = _last_index([m.key for m in obj.members], key)
        if index is None:
            raise KeyError(key)
        spans = [(m.start, m.end) for m in obj.members]
        return self._remove(obj, spans, index, interior)

    def remove_item(self, path: JsonPath, index: int, interior: str | None = None) -> JsonDocument:
        arr = self._container(path, "array")
        spans = [(i.start, i.end) for i in arr.items]
        return self._remove(arr, spans, index, interior)

    def replace_value(self, path: JsonPath, value: Any) -> tuple[JsonDocument, str]:
        """Replace the value at ``path``; returns the new document and the old value's text."""
        node = self.node(path)
        if node is None:
            raise KeyError(path)
        indent = _line_indent(self.text, node.start)
        new = _render(value, self.indent_unit(), indent, self.newline, multiline=True)
        return self.splice(node.start, node.end, new), self.text[node.start : node.end]

    def replace_value_text(self, path: JsonPath, raw: str) -> JsonDocument:
        node = self.node(path)
        if node is None:
            raise KeyError(path)
        return self.splice(node.start, node.end, raw)

    def splice(self, start: int, end: int, new: str) -> JsonDocument:
        text = self.text[:start] + new + self.text[end:]
        return JsonDocument(text, jsonc=self.jsonc, commas=self.commas)

    # --- internals ---------------------------------------------------------------------------
    def _container(self, path: JsonPath, kind: str) -> Node:
        node = self.node(path)
        if node is None or node.kind != kind:
            raise KeyError(path)
        return node

    def _insert(
        self, node: Node, starts: list[int], ends: list[int], prefix: str, value: Any
    ) -> tuple[JsonDocument, Inserted]:
        unit, nl = self.indent_unit(), self.newline
        if ends:
            multiline = "\n" in self.text[node.start : starts[0]]
            if multiline:
                indent = _line_indent(self.text, starts[-1])
                text = "," + nl + indent + prefix + _render(value, unit, indent, nl, True)
            else:
                text = ", " + prefix + _render(value, unit, "", nl, False)
            return self.splice(ends[-1], ends[-1], text), Inserted(text, None)
        outer = _line_indent(self.text, node.start)
        indent = outer + unit
        interior = self.text[node.start + 1 : node.end - 1]
        # an "empty" container of a JSONC file may hold the user's comments: they stay, first
        kept = interior.rstrip(WS) if interior.strip(WS) else ""
        text = kept + nl + indent + prefix + _render(value, unit, indent, nl, True) + nl + outer
        return self.splice(node.start + 1, node.end - 1, text), Inserted(text, interior)

    def _remove(
        self, node: Node, spans: list[tuple[int, int]], index: int, interior: str | None
    ) -> JsonDocument:
        start, end = spans[index]
        text = self.text
        if len(spans) == 1:
            now = _without_only_member(text, node, start, end, self.newline)
            # the interior recorded at insert time, unless the user has written comments
            # around our member since: then what is there now (theirs) stays
            keep = now if interior is None or _squash(now) != _squash(interior) else interior
            return self.splice(node.start + 1, node.end - 1, keep)
        if index > 0:
            prev_end = spans[index - 1][1]
            between = text[prev_end:start]
            if between.strip(WS) == ",":
                return self.splice(prev_end, end, "")
            comma = prev_end + between.index(",")
            return self.splice(start, end, "").splice(comma, comma + 1, "")
        next_start = spans[1][0]
        between = text[end:next_start]
        if between.strip(WS) == ",":
            return self.splice(start, next_start, "")
        comma = end + between.index(",")
        return self.splice(comma, comma + 1, "").splice(start, end, "")


def _without_only_member(text: str, node: Node, start: int, end: int, nl: str) -> str:
    """The interior of a container once its only member goes, when the interior it had
    before ours was not recorded (the user deleted our first entry, a later run added one
    back): the user's comments around it stay, the whitespace we added goes."""
    before = text[node.start + 1 : start].rstrip(WS)
    after = text[end : node.end - 1]
    if after.lstrip(WS).startswith(","):  # a JSONC trailing comma of the user's, now after ours
        cut = len(after) - len(after.lstrip(WS))
        after = after[:cut] + after[cut + 1 :]
    if not before and not after.strip(WS):
        return ""
    if before and "\n" not in after:  # a // comment must not swallow the closing bracket
        after = nl + after
    return before + after


def _squash(text: str | None) -> str:
    """``text`` without whitespace: what a user wrote in it (comments), not how it is laid out."""
    return "".join((text or "").split())


def _child(node: Node, key: Key) -> Node | None:
    if node.kind == "object" and isinstance(key, str):
        index = _last_index([m.key for m in node.members], key)
        return None if index is None else node.members[index].value
    if node.kind == "array" and isinstance(key, int) and 0 <= key < len(node.items):
        return node.items[key]
    return None


def _last_index(keys: list[str], key: str) -> int | None:
    for i in range(len(keys) - 1, -1, -1):
        if keys[i] == key:
            return i
    return None


def _walk(node: Node) -> list[Node]:
    """Every node in document order (iterative: deep files must not exhaust the stack)."""
    out: list[Node] = []
    stack = [node]
    while stack:
        current = stack.pop()
        out.append(current)
        # only spans already parsed: looking deeper would parse all of a huge file
        children = current.parsed_children()
        stack.extend(reversed(children))
    return out


def _line_indent(text: str, pos: int) -> str:
    line_start = text.rfind("\n", 0, pos) + 1
    i = line_start
    while i < len(text) and text[i] in " \t":
        i += 1
    return text[line_start:i]


def _leading_ws(text: str, pos: int) -> str | None:
    """The whitespace before ``pos`` if ``pos`` is the first non-blank of its line."""
    line_start = text.rfind("\n", 0, pos) + 1
    before = text[line_start:pos]
    return before if before.strip(" \t") == "" else None


def _render(value: Any, unit: str, indent: str, nl: str, multiline: bool) -> str:
    if not multiline:
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    dumped = json.dumps(value, ensure_ascii=False, indent=unit or "  ")
    return dumped.replace("\n", nl + indent)
