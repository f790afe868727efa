"""Small TOML files written for a runtime (Codex agent files): keys and scalar values only.

Why not ``tomlkit.dumps``: it writes a long Markdown body as one ``"...\\n..."`` line, which
nobody can read or review in the runtime's folder, and it leaves characters TOML forbids (DEL)
unescaped. Here a multi-line string becomes a ``'''`` literal block, readable as written, when
TOML allows that for its characters; anything else becomes an escaped basic string. Tests parse
every rendering back (tomlkit, and ``tomllib`` where it exists; hypothesis-generated strings
included).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

# what a multi-line literal string cannot hold as written: control characters other than tab
# (TOML 1.0), and CR, since parsers may turn a CRLF inside it into LF; and three quotes
# (looked for apart: a class alone is scanned in C, "|'''" made it ~3x slower)
_NOT_LITERAL = re.compile("[\\x00-\\x08\\x0b-\\x1f\\x7f]")
_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")

Scalar = str | bool | int


def basic_string(value: str) -> str:
    """``value`` as a one-line TOML basic string."""
    out: list[str] = []
    for ch in value:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ch == "\x7f":
            out.append(f"\\u{ord(ch):04x}")
        elif 0xD800 <= ord(ch) <= 0xDFFF:
            raise ValueError("a lone surrogate cannot be written as TOML")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def string(value: str) -> str:
    """A multi-line literal block for text with line breaks, else a basic string."""
    if "\n" in value and "'''" not in value and not _NOT_LITERAL.search(value):
        # the newline right after the opening quotes is not part of the value
        return f"'''\n{value}'''"
    return basic_string(value)


# tomlkit's escapes in a multi-line basic string: control characters but LF and CR, the
# backslash, and a run of three quotes (leftmost first); a CR not before LF comes after
_MLB = re.compile('"""|[\\x00-\\x09\\x0b\\x0c\\x0e-\\x1f\\x7f\\\\]')
_MLB_ESCAPES = {**_ESCAPES, '"""': '""\\"'}
_LONE_CR = re.compile(r"\r(?!\n)")


def multiline_basic(value: str) -> str:
    """What ``tomlkit.string(value, multiline=True)`` writes between its quotes, in linear
    time: tomlkit's escaper slices the rest of the text at every character (quadratic: a
    second per thousand Gemini commands). tests/runtimes/test_tomltext.py proves them equal."""
    text = _MLB.sub(lambda m: _MLB_ESCAPES.get(m[0]) or f"\\u{ord(m[0]):04x}", value)
    text = _LONE_CR.sub(r"\\r", text)
    # a newline right after the opening quotes is trimmed by a reader: one more keeps it
    return "\n" + text if text[:1] in ("\n", "\r") else text


def prompt_file(description: str, prompt: str) -> str:
    """A Gemini command file: ``description`` a basic string, ``prompt`` a multi-line basic
    one; the bytes ``tomlkit.dumps`` wrote for that document, without building one (~20 us a
    command: tests/runtimes/test_tomltext.py proves them equal)."""
    return f'description = {basic_string(description)}\nprompt = """{multiline_basic(prompt)}"""\n'


def _value(value: Scalar | list[str]) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(basic_string(v) for v in value) + "]"
    return string(value)


def key(name: str) -> str:
    return name if _BARE_KEY.fullmatch(name) else basic_string(name)


def document(values: Mapping[str, Scalar | list[str]]) -> str:
    """Top-level ``key = value`` lines, in the given order."""
    return "".join(f"{key(k)} = {_value(v)}\n" for k, v in values.items())
