"""A byte-preserving TOML editor: ``tomlkit`` parses and renders, edits splice the text.

Why not edit through ``tomlkit``'s document model: adding a table and deleting it again does not
give the original bytes back (it re-spaces neighbouring tables, writes ``\\n`` into CRLF files and
places new tables between the user's). msd-install must return a user's ``config.toml``
byte for byte, so this editor works like the JSON one (``jsonedit``):

* a table of ours (``[mcp_servers.msd]``, ``[[hooks]]``) is rendered as one block and appended at
  the end of the file; the exact text inserted (separator included) is the ``interior`` recorded
  in the manifest, and removing it deletes exactly that text;
* a plain key of ours in an existing table (``codex_hooks = true`` under ``[features]``) is one
  line inserted right after the table's header; a missing table is created by the same block;
* every edit is checked by parsing the result: the document must equal the old one plus (or
  minus) exactly our value, or the edit is refused (``TomlEditError``) and nothing is written.

Where the user has changed the text we inserted, removal falls back to the table's span (from its
header to the next table that is not inside it), still verified by parsing.
"""

from __future__ import annotations

import copy
import sys
from dataclasses import dataclass
from typing import Any

from .configdoc import EditRefusedError
from .tomlspan import Header, header_keys, headers

Key = str | int
Path_ = tuple[Key, ...]
MAX_CANDIDATES = 64  # occurrences of an inserted block tried on removal (bounded work)


class TomlSyntaxError(ValueError):
    """The text is not TOML (message carries line and column from tomlkit)."""


class TomlEditError(EditRefusedError):
    """An edit that cannot be made without touching the user's own text."""


@dataclass(frozen=True)
class Inserted:
    text: str
    interior: str | None


class Member:
    __slots__ = ("key", "value")

    def __init__(self, key: str, value: Node) -> None:
        self.key = key
        self.value = value


class Node:
    """A parsed value: ``kind`` is ``object`` (a table), ``array`` or ``scalar``."""

    __slots__ = ("kind", "value")

    def __init__(self, value: Any) -> None:
        self.value = value
        self.kind = "object" if isinstance(value, dict) else _seq_kind(value)

    @property
    def members(self) -> list[Member]:
        if not isinstance(self.value, dict):
            return []
        return [Member(k, Node(v)) for k, v in self.value.items()]

    @property
    def items(self) -> list[Node]:
        return [Node(v) for v in self.value] if isinstance(self.value, list) else []


def _seq_kind(value: Any) -> str:
    return "array" if isinstance(value, list) else "scalar"


def _has(container: Any, key: Key) -> bool:
    if isinstance(container, dict):
        return isinstance(key, str) and key in container
    return isinstance(container, list) and isinstance(key, int) and 0 <= key < len(container)


def _parse(text: str) -> dict[str, Any]:
    """The document's values. The standard library's C-speed ``tomllib`` (3.11+) parses; a
    large ``config.toml`` (Codex keeps one entry per trusted project) takes tomlkit seconds,
    and every edit is verified by parsing the result once more."""
    if text.startswith("\ufeff"):  # codex reads it, tomlkit does not: refuse in plain words
        raise TomlSyntaxError("it starts with a byte-order mark (U+FEFF); save it without one")
    if sys.version_info >= (3, 11):  # 3.10: tomlkit only
        import tomllib

        try:
            return dict(tomllib.loads(text))
        except tomllib.TOMLDecodeError as exc:
            raise TomlSyntaxError(str(exc)) from None
        except RecursionError:
            raise TomlSyntaxError("nested too deeply") from None
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        data = tomlkit.parse(text).unwrap()
    except TOMLKitError as exc:
        raise TomlSyntaxError(str(exc)) from None
    except (ValueError, RecursionError) as exc:  # tomlkit raises plain ValueErrors too
        raise TomlSyntaxError(str(exc) or exc.__class__.__name__) from None
    return dict(data)


class TomlDocument:
    """Every edit returns a new document; ``text`` is the file's exact content."""

    implicit_parents = True  # a ``[a.b]`` header creates ``a``: no container entries needed

    def __init__(self, text: str, *, _data: dict[str, Any] | None = None) -> None:
        self.text = text
        self.data = _parse(text) if _data is None else _data

    # --- reading -----------------------------------------------------------------------
    def node(self, path: Path_) -> Node | None:
        value: Any = self.data
        for key in path:
            if not _has(value, key):
                return None
            value = value[key]
        return Node(value)

    def value_text(self, path: Path_) -> str:
        """The text that defines the value at ``path`` (to put it back later, byte for byte)."""
        start, end = self._span(path)
        return self.text[start:end]

    @property
    def newline(self) -> str:
        return "\r\n" if "\r\n" in self.text else "\n"

    # --- editing -------------------------------------------------------------------------
    def add_member(self, path: Path_, key: str, value: Any) -> tuple[TomlDocument, Inserted]:
        target = (*path, key)
        if self.node(target) is not None:
            raise TomlEditError(f"{_dotted(target)} is already defined")
        self._require_tables(path)
        expected = copy.deepcopy(self.data)
        _set(expected, target, value)
        if isinstance(value, dict) or (path and self._header_of(path) is None):
            block_path, block_value = (
                (target, value)
                if isinstance(value, dict)
                else (
                    path,
                    {key: value},
                )
            )
            text = self._separator() + self._table_block(block_path, block_value, False)
            try:
                return self._checked(self.text + text, expected), Inserted(text, text)
            except TomlEditError:
                raise TomlEditError(
                    f"[{_dotted(block_path)}] cannot follow the file's text: is "
                    f"{_dotted(block_path[:-1])} written inline (= {{...}})?"
                ) from None
        line = f"{_key(key)} = {_render(value)}{self.newline}"
        at = self._body_start(path)
        if at == len(self.text) and self.text and not self.text.endswith("\n"):
            line = self.newline + line
        return self._checked(self._splice(at, at, line), expected), Inserted(line, line)

    def append_item(self, path: Path_, value: Any) -> tuple[TomlDocument, Inserted]:
        if not isinstance(value, dict):
            raise TomlEditError("only tables can be appended to an array of tables")
        existing = self.node(path)
        if existing is not None and existing.kind != "array":
            raise TomlEditError(f"{_dotted(path)} is not an array of tables")
        self._require_tables(path[:-1])
        expected = copy.deepcopy(self.data)
        items = list(existing.value) if existing is not None else []
        _set(expected, path, [*items, value])
        text = self._separator() + self._table_block(path, value, True)
        return self._checked(self.text + text, expected), Inserted(text, text)

    def remove_member(self, path: Path_, key: str, interior: str | None = None) -> TomlDocument:
        target = (*path, key)
        if self.node(target) is None:
            raise KeyError(key)
        expected = copy.deepcopy(self.data)
        _delete(expected, target)
        return self._remove(target, expected, interior)

    def remove_item(self, path: Path_, index: int, interior: str | None = None) -> TomlDocument:
        arr = self.node(path)
        if arr is None or arr.kind != "array" or not 0 <= index < len(arr.value):
            raise KeyError(path)
        expected = copy.deepcopy(self.data)
        items = list(arr.value)
        del items[index]
        if items:
            _set(expected, path, items)
        else:
            _delete(expected, path)
        return self._remove((*path, index), expected, interior)

    def replace_value(self, path: Path_, value: Any) -> tuple[TomlDocument, str]:
        """Replace the value at ``path``; returns the new document and the old value's text."""
        start, end = self._span(path)
        expected = copy.deepcopy(self.data)
        _set(expected, path, value)
        if isinstance(value, dict) and path and isinstance(path[-1], int):
            # an element of an array of tables (``[[hooks]]``): the block keeps its header
            new = self._table_block(tuple(str(k) for k in path[:-1]), value, True)
        elif isinstance(value, dict):
            new = self._table_block(tuple(str(k) for k in path), value, False)
        else:
            new = f"{_key(str(path[-1]))} = {_render(value)}{self.newline}"
        return self._checked(self._splice(start, end, new), expected), self.text[start:end]

    def replace_value_text(self, path: Path_, raw: str) -> TomlDocument:
        start, end = self._span(path)
        doc = TomlDocument(self._splice(start, end, raw))
        rest_before, rest_after = copy.deepcopy(self.data), copy.deepcopy(doc.data)
        _delete(rest_before, path)
        _delete(rest_after, path)
        if not _same(rest_before, rest_after, path):
            raise TomlEditError(f"cannot put {_dotted(path)} back without touching other entries")
        return doc

    # --- internals ---------------------------------------------------------------------------
    def _require_tables(self, path: Path_) -> None:
        """Every existing container on ``path`` must be a table (``mcp_servers = 1`` is not)."""
        for depth in range(1, len(path) + 1):
            node = self.node(path[:depth])
            if node is not None and node.kind != "object":
                raise TomlEditError(f"{_dotted(path[:depth])} is not a table")

    def _splice(self, start: int, end: int, new: str) -> str:
        return self.text[:start] + new + self.text[end:]

    def _checked(self, text: str, expected: dict[str, Any], hint: Path_ = ()) -> TomlDocument:
        try:
            doc = TomlDocument(text)
        except TomlSyntaxError:
            raise TomlEditError("the edit would not be valid TOML here") from None
        if not _same(doc.data, expected, hint):
            raise TomlEditError("the edit would change other entries of the file")
        return doc

    def _separator(self) -> str:
        nl = self.newline
        if not self.text:
            return ""
        if self.text.endswith(nl + nl) or self.text == nl:
            return ""
        return nl if self.text.endswith(nl) else nl + nl

    def _table_block(self, path: Path_, value: dict[str, Any], array: bool) -> str:
        nl = self.newline
        name = ".".join(_key(str(k)) for k in path)
        lines = [f"[[{name}]]" if array else f"[{name}]"]
        lines += [f"{_key(k)} = {_render(v)}" for k, v in value.items()]
        return nl.join(lines) + nl

    def _header_of(self, path: Path_) -> Header | None:
        for header in headers(self.text):
            keys, is_array = header_keys(header.text)
            if keys == path and not is_array:
                return header
        return None

    def _body_start(self, path: Path_) -> int:
        if not path:
            found = headers(self.text)
            return found[0].line_start if found else len(self.text)
        header = self._header_of(path)
        if header is None:
            raise TomlEditError(f"{_dotted(path)} is not a table of its own here")
        return header.line_end

    def _remove(
        self, target: Path_, expected: dict[str, Any], interior: str | None
    ) -> TomlDocument:
        if interior:
            start = len(self.text)
            for _ in range(MAX_CANDIDATES):
                start = self.text.rfind(interior, 0, start)
                if start < 0:
                    break
                try:
                    return self._checked(
                        self._splice(start, start + len(interior), ""), expected, target
                    )
                except TomlEditError:
                    continue
        start, end = self._span(target)
        # the blank line(s) our block was appended after go with it
        sep = interior[: len(interior) - len(interior.lstrip("\r\n"))] if interior else ""
        if sep and self.text.endswith(sep, 0, start) and start > len(sep):
            start -= len(sep)
        try:
            return self._checked(self._splice(start, end, ""), expected, target)
        except TomlEditError:
            raise TomlEditError(
                f"{_dotted(target)} was changed in a way msd-install cannot undo safely"
            ) from None

    def _span(self, path: Path_) -> tuple[int, int]:
        """Where the value at ``path`` is defined: a table (with its sub-tables), an element of
        an array of tables, or a one-line ``key = value`` directly under a table header."""
        found = headers(self.text)
        keyed = [(h, *header_keys(h.text)) for h in found]
        index = path[-1] if path and isinstance(path[-1], int) else None
        table = tuple(str(k) for k in (path[:-1] if index is not None else path))
        seen = -1
        for i, (header, keys, is_array) in enumerate(keyed):
            if keys != table or is_array != (index is not None):
                continue
            seen += 1
            if index is not None and seen != index:
                continue
            end = len(self.text)
            for later, keys2, _array in keyed[i + 1 :]:
                if not (len(keys2) > len(table) and keys2[: len(table)] == table):
                    end = later.line_start
                    break
            return header.line_start, self._content_end(header.line_end, end)
        if index is None and path:
            return self._line_span(tuple(str(k) for k in path[:-1]), str(path[-1]), keyed)
        raise TomlEditError(f"{_dotted(path)} is not written as a table msd-install can edit")

    def _content_end(self, body: int, end: int) -> int:
        """Where a table's text really ends: blank and comment-only lines at the end of its
        span come before the next table and belong to it (a user's ``# my profiles`` heading
        the table they wrote after ours must survive our table's removal)."""
        cut = end
        while cut > body:
            line_start = self.text.rfind("\n", body, cut - 1) + 1
            line = self.text[max(line_start, body) : cut].strip(" \t\r\n")
            if line and not line.startswith("#"):
                break
            cut = max(line_start, body)
        return cut

    def _line_span(
        self, table: tuple[str, ...], key: str, keyed: list[tuple[Header, tuple[str, ...], bool]]
    ) -> tuple[int, int]:
        body = 0
        end = keyed[0][0].line_start if keyed else len(self.text)
        if table:
            for i, (header, keys, is_array) in enumerate(keyed):
                if keys == table and not is_array:
                    body = header.line_end
                    end = keyed[i + 1][0].line_start if i + 1 < len(keyed) else len(self.text)
                    break
            else:
                raise TomlEditError(f"{_dotted(table)} is not a table of its own here")
        pos = body
        while pos < end:
            nl = self.text.find("\n", pos, end)
            stop = end if nl < 0 else nl + 1
            line = self.text[pos:stop].lstrip(" \t")
            if line.startswith(_key(key)) and line[len(_key(key)) :].lstrip(" \t").startswith("="):
                return pos, stop
            pos = stop
        raise TomlEditError(f"{_dotted((*table, key))} is not written on a line of its own")


def _key(key: str) -> str:
    import tomlkit

    return str(tomlkit.key(key).as_string())


def _render(value: Any) -> str:
    import tomlkit

    if isinstance(value, dict):
        table = tomlkit.inline_table()
        table.update(value)
        return str(table.as_string())
    return str(tomlkit.item(value).as_string())


def _dotted(path: Path_) -> str:
    return ".".join(str(k) for k in path) or "(top level)"


def _set(data: dict[str, Any], path: Path_, value: Any) -> None:
    node: Any = data
    for key in path[:-1]:
        if isinstance(node, dict) and node.get(key) is None:
            node[key] = {}  # YAML's "key:" (null) becomes the table we add to
        node = node[key]
    node[path[-1]] = copy.deepcopy(value)


def _delete(data: dict[str, Any], path: Path_) -> None:
    node: Any = data
    for key in path[:-1]:
        if not _has(node, key):
            return
        node = node[key]
    if _has(node, path[-1]):
        del node[path[-1]]


def _same(a: Any, b: Any, hint: Path_) -> bool:
    """Equal, except that tables on ``hint``'s path may be empty in one and absent in the other
    (a ``[a.b]`` header creates ``a`` implicitly; removing it removes ``a`` again), or null
    (YAML's ``key:`` that our block filled)."""
    if hint and ((a is None and _hollow(b, hint)) or (b is None and _hollow(a, hint))):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        head = hint[0] if hint else None
        for key in set(a) | set(b):
            inner = hint[1:] if key == head else ()
            if key in a and key in b:
                if not _same(a[key], b[key], inner):
                    return False
            elif key != head or not _hollow(a.get(key, b.get(key)), inner):
                return False
        return True
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y, ()) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True  # nan: the same value to the user, though never equal to itself
    return type(a) is type(b) and bool(a == b)


def _hollow(value: Any, hint: Path_) -> bool:
    """Empty, or holding nothing but an empty container on ``hint``'s path."""
    if value in ({}, []):
        return True
    if isinstance(value, dict) and hint and set(value) == {hint[0]}:
        return _hollow(value[hint[0]], hint[1:])
    return False
