"""Scalars of the frontmatter YAML subset (see ``yamlish``): plain, single- and double-quoted,
flow sequences and mappings of scalars, trailing comments; resolved like YAML 1.2 core.

Every function here is one left-to-right scan of one line (no regex backtracking over free
text), so a hostile line costs time linear in its length.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

KEY_RE = re.compile(r"^(?P<key>[A-Za-z0-9_][A-Za-z0-9_.-]*)[ \t]*:(?:[ \t]+(?P<rest>.*))?$")
_INT_RE = re.compile(r"^[-+]?[0-9]+$")
FLOAT_RE = re.compile(r"^[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)(?:[eE][-+]?[0-9]+)?$")
_FORBIDDEN_START = set("&*!%@`")
YAML11_BOOLS = {"yes", "no", "on", "off", "y", "n"}
MAX_DEPTH = 64


class YamlError(ValueError):
    """The text is outside the supported subset; ``line`` is 1-based within the parsed text."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


def strip_comment(text: str) -> str:
    """Drop a trailing `` # comment`` outside quotes."""
    quote = ""
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\" and quote == '"':
                i += 1  # the escaped character cannot close the string
            elif ch == quote == "'" and text[i + 1 : i + 2] == "'":
                i += 1  # '' is an escaped quote inside a single-quoted string
            elif ch == quote:
                quote = ""
        elif ch in "\"'" and (i == 0 or text[i - 1] in " [{,"):
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1] in " \t"):
            return text[:i].rstrip()
        i += 1
    return text.rstrip()


def _double_quoted(text: str, no: int) -> tuple[str, str]:
    i, escaped = 1, False
    while i < len(text):
        ch = text[i]
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == '"':
            try:
                value = json.loads(text[: i + 1])
            except ValueError:
                raise YamlError(no, f"bad escape in quoted string {text[: i + 1]}") from None
            return str(value), text[i + 1 :]
        i += 1
    raise YamlError(no, "unterminated double-quoted string")


def _single_quoted(text: str, no: int) -> tuple[str, str]:
    out, i = [], 1
    while i < len(text):
        if text[i] == "'":
            if text[i + 1 : i + 2] == "'":
                out.append("'")
                i += 2
                continue
            return "".join(out), text[i + 1 :]
        out.append(text[i])
        i += 1
    raise YamlError(no, "unterminated single-quoted string")


def _split_flow(inner: str, no: int) -> list[str]:
    parts, buf, quote, escaped = [], [], "", False
    for ch in inner:
        if quote:
            buf.append(ch)
            if escaped:
                escaped = False
            elif ch == "\\" and quote == '"':
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
            buf.append(ch)
        elif ch in "[]{}":
            raise YamlError(no, "nested flow collections are not supported")
        elif ch == ",":
            parts.append("".join(buf).strip())
            buf = []
        else:
            buf.append(ch)
    if quote:
        raise YamlError(no, "unterminated quoted string in flow collection")
    parts.append("".join(buf).strip())
    if parts[-1] == "":
        parts.pop()  # "[]" and a trailing comma "[a, b,]"
    if any(p == "" for p in parts):
        raise YamlError(no, "empty entry in flow collection")
    return parts


def scalar(text: str, no: int = 1) -> Any:
    """Resolve one scalar (or a flow collection of scalars) written on one line."""
    text = text.strip()
    if not text:
        return None
    head = text[0]
    if head == '"' or head == "'":
        value, rest = (_double_quoted if head == '"' else _single_quoted)(text, no)
        if strip_comment(rest).strip():
            raise YamlError(no, f"unexpected text after quoted string: {rest.strip()!r}")
        return value
    text = strip_comment(text)
    if head in "[{":
        close = "]" if head == "[" else "}"
        if not text.endswith(close):
            raise YamlError(no, f"unterminated flow collection {text!r}")
        items = _split_flow(text[1:-1], no)
        if head == "[":
            return [scalar(item, no) for item in items]
        mapping: dict[str, Any] = {}
        for item in items:
            key, sep, val = item.partition(":")
            if not sep or not KEY_RE.match(f"{key.strip()}:"):
                raise YamlError(no, f"bad flow mapping entry {item!r}")
            mapping[key.strip()] = scalar(val, no)
        return mapping
    if head in _FORBIDDEN_START:
        raise YamlError(no, f"anchors, aliases, tags and directives are not supported: {text!r}")
    if head == "-" and (len(text) == 1 or text[1] == " "):
        raise YamlError(no, f"unexpected sequence item {text!r}")
    if ": " in text or text.endswith(":"):
        raise YamlError(no, f"a mapping cannot sit inside a scalar: {text!r} (quote it)")
    if text in ("null", "Null", "NULL", "~"):
        return None
    if text in ("true", "True", "TRUE"):
        return True
    if text in ("false", "False", "FALSE"):
        return False
    if _INT_RE.match(text):
        return int(text)
    if FLOAT_RE.match(text):
        number = float(text)
        return number if math.isfinite(number) else text  # 1e999 is not a JSON number
    return text
