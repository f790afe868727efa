"""Where each table of a TOML document starts and ends in its text.

``tomlkit`` parses and renders TOML, but it has no positions, and editing through its object
model does not give a user's file back byte for byte (it re-spaces tables it touches and mixes
line endings). The editor (``tomledit``) therefore splices text, and needs the span of every
``[table]`` / ``[[array.of.tables]]`` header. This scanner finds them in one linear pass: a
header is a line whose first non-blank character is ``[`` outside any string, comment, array or
inline table. It only runs on text that ``tomlkit`` has already accepted, and every splice is
verified by parsing the result, so a mistake here can refuse an edit but never corrupt a file.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Header:
    line_start: int  # where the header's line begins (indentation included)
    bracket: int  # the opening ``[``
    line_end: int  # the end of the header's line, its newline included
    text: str  # the header itself, up to the end of its line (without the newline)


def headers(text: str) -> list[Header]:
    """Every table header of ``text``, in order."""
    found: list[Header] = []
    i, n, depth = 0, len(text), 0
    at_line_start = True
    while i < n:
        if at_line_start:
            at_line_start = False
            j = i
            while j < n and text[j] in " \t":
                j += 1
            if depth == 0 and j < n and text[j] == "[":
                end = _line_end(text, j)
                stop = end - 1 if end > j and text[end - 1] == "\n" else end
                if stop > j and text[stop - 1] == "\r":
                    stop -= 1
                found.append(Header(i, j, end, text[j:stop]))
                i = end
                at_line_start = True
                continue
            i = j
            continue
        c = text[i]
        if c == "\n":
            at_line_start = True
            i += 1
        elif c == "#":
            nl = text.find("\n", i)
            i = n if nl < 0 else nl
        elif c in "\"'":
            i = skip_string(text, i)
        else:
            if c in "[{":
                depth += 1
            elif c in "]}":
                depth = max(0, depth - 1)
            i += 1
    return found


def _line_end(text: str, i: int) -> int:
    """The index just past the newline ending the line that contains ``i`` (strings skipped)."""
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            return i + 1
        if c in "\"'":
            i = skip_string(text, i)
        elif c == "#":
            nl = text.find("\n", i)
            return n if nl < 0 else nl + 1
        else:
            i += 1
    return n


def skip_string(text: str, i: int) -> int:
    """The index just past the string literal that starts at ``i``."""
    quote = text[i]
    n = len(text)
    if text.startswith(quote * 3, i):
        j = i + 3
        while j < n:
            if quote == '"' and text[j] == "\\":
                j += 2
                continue
            if text.startswith(quote * 3, j):
                j += 3
                # up to two more quote characters may close the string's content
                extra = 0
                while extra < 2 and j < n and text[j] == quote:
                    j += 1
                    extra += 1
                return j
            j += 1
        return n
    j = i + 1
    while j < n and text[j] != "\n":
        if quote == '"' and text[j] == "\\":
            j += 2
            continue
        if text[j] == quote:
            return j + 1
        j += 1
    return j


def header_keys(header: str) -> tuple[tuple[str, ...], bool]:
    """The key path of a header line (``[a."b.c"]`` -> ``("a", "b.c")``) and whether it
    opens an element of an array of tables (``[[...]]``)."""
    import tomlkit

    doc: object = tomlkit.parse(header + "\n").unwrap()
    keys: list[str] = []
    is_array = False
    while isinstance(doc, dict) and len(doc) == 1:
        key, doc = next(iter(doc.items()))
        keys.append(key)
        if isinstance(doc, list):
            is_array = True
            doc = doc[-1] if doc else {}
    return tuple(keys), is_array
