"""A byte-preserving YAML editor: ``ruamel.yaml`` finds positions and verifies, edits splice.

Why splice instead of dumping ``ruamel.yaml``'s round-trip document: its dump keeps comments but
not every byte (indentation of sequences, line folding, blank lines, quoting details), and
msd-install must give a user's ``config.yaml`` back exactly. So, as for JSON and TOML:

* an entry of ours is rendered as block lines at the indentation of its neighbours and inserted
  after the last line of the mapping or sequence it joins (a missing parent is created by the same
  block); an empty ``{}``/``[]``/null value is replaced by the block, and its text is recorded;
* the manifest keeps the exact inverse (``interior``: the inserted text and the text it replaced),
  and removal puts the replaced text back where the inserted text is;
* every edit is verified by loading the result with the safe loader (anchors and aliases
  resolved): it must equal the old document plus, or minus, exactly our value.

Values are written in block style with double-quoted (JSON) strings and flow (JSON) lists and
maps, so nothing of ours can change type or break indentation. Multi-document files, tabs in
indentation and non-mapping top levels are refused.
"""

from __future__ import annotations

import contextlib
import copy
import json
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from io import StringIO
from typing import Any, TypeVar

from .tomledit import Node, _delete, _has, _same, _set  # a parsed value: same in both

T = TypeVar("T")
Key = str | int
Path_ = tuple[Key, ...]
MAX_CANDIDATES = 64
MAX_NODES = 200_000  # values of a config.yaml with every alias expanded (Hermes': ~300)
MAX_DEPTH = 200
_ANCHOR = re.compile(r"&([^\s,\[\]{}]+)")
_NULL = re.compile(r"(null|Null|NULL|~)(?=[ \t]*(#|\r?\n|$))")


class YamlSyntaxError(ValueError):
    pass


class YamlEditError(ValueError):
    pass


@dataclass(frozen=True)
class Inserted:
    text: str
    interior: str | None


def _safe(text: str) -> Any:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    from ..yamldepth import MAX_FLOW_DEPTH, too_deep

    if too_deep(text):  # libyaml's C parser would die of it (SIGSEGV): ``yamldepth``
        raise YamlSyntaxError(f"nested more than {MAX_FLOW_DEPTH} levels deep")
    docs: list[Any] | None = None
    with warnings.catch_warnings():  # a reused anchor is valid YAML: no noise on stderr
        warnings.simplefilter("ignore")
        with contextlib.suppress(YAMLError, RecursionError, ValueError):
            docs = list(YAML(typ="safe").load_all(StringIO(text)))  # libyaml's C parser
        if docs is None:  # refused: the pure parser says why, in its own words
            try:
                docs = list(YAML(typ="safe", pure=True).load_all(StringIO(text)))
            except YAMLError as exc:
                raise YamlSyntaxError(" ".join(str(exc).split())) from None
            except RecursionError:
                raise YamlSyntaxError("nested too deeply") from None
    if len(docs) > 1:
        raise YamlSyntaxError("holds several YAML documents")
    data = docs[0] if docs else None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise YamlSyntaxError("the top level is not a mapping")
    return _tree(data, [MAX_NODES])


def _tree(value: Any, budget: list[int], depth: int = 0) -> Any:
    """``value`` with every alias expanded into a copy of its own.

    The safe loader gives an alias the very object of its anchor. Edits are verified by
    comparing the loaded result with the old document plus our value; with shared objects an
    edit made through an alias (``mcp_servers: *servers``) would change the anchor and every
    other alias of it, and the comparison, sharing the same way, would not see it. As a tree,
    it does, and the edit is refused. Bounded: a few lines of nested aliases can stand for
    billions of values (and a recursive alias for infinitely many).
    """
    budget[0] -= 1
    if budget[0] < 0:
        raise YamlSyntaxError(f"its aliases stand for more than {MAX_NODES} values")
    if depth > MAX_DEPTH:
        raise YamlSyntaxError("nested too deeply (or a recursive alias)")
    if isinstance(value, dict):
        return {k: _tree(v, budget, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_tree(v, budget, depth + 1) for v in value]
    return value


def _positions(text: str) -> Any:
    from ruamel.yaml import YAML

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return YAML(typ="rt").load(StringIO(text))


class YamlDocument:
    implicit_parents = True  # a block we insert creates its missing parents itself

    def __init__(self, text: str, newline: str | None = None, *, block: bool = False) -> None:
        self.text = text
        self.data: dict[str, Any] = _safe(text)
        self._newline = newline
        self._block = block  # already one top-level block (see _segment): edited as it is

    @property
    def newline(self) -> str:
        if self._newline is not None:
            return self._newline
        return "\r\n" if "\r\n" in self.text else "\n"

    # --- reading -----------------------------------------------------------------------
    def node(self, path: Path_) -> Node | None:
        value: Any = self.data
        for key in path:
            if not _has(value, key):
                return None
            value = value[key]
        return Node(value)

    def value_text(self, path: Path_) -> str:
        found = self._segment(path[0]) if path else None
        if found is not None:
            return found[2].value_text(path)
        start, end = self._block_span(path)
        return self.text[start:end]

    # --- editing -------------------------------------------------------------------------
    def add_member(self, path: Path_, key: str, value: Any) -> tuple[YamlDocument, Inserted]:
        if self.node((*path, key)) is not None:
            raise YamlEditError(f"{_dotted((*path, key))} is already defined")
        scoped = self._scoped(path, lambda sub: sub.add_member(path, key, value))
        if scoped is not None:
            return scoped
        expected = copy.deepcopy(self.data)
        _set(expected, (*path, key), value)
        return self._insert(path, {key: value}, expected, item=False)

    def append_item(self, path: Path_, value: Any) -> tuple[YamlDocument, Inserted]:
        existing = self.node(path)
        if existing is not None and existing.kind != "array" and existing.value is not None:
            raise YamlEditError(f"{_dotted(path)} is not a list")
        scoped = self._scoped(path, lambda sub: sub.append_item(path, value))
        if scoped is not None:
            return scoped
        expected = copy.deepcopy(self.data)
        items = list(existing.value or []) if existing is not None else []
        _set(expected, path, [*items, value])
        return self._insert(path, value, expected, item=True)

    def remove_member(self, path: Path_, key: str, interior: str | None = None) -> YamlDocument:
        target = (*path, key)
        if self.node(target) is None:
            raise KeyError(key)
        scoped = self._scoped(path, lambda sub: (sub.remove_member(path, key, interior), None))
        if scoped is not None:
            return scoped[0]
        expected = copy.deepcopy(self.data)
        _delete(expected, target)
        return self._remove(target, expected, interior)

    def remove_item(self, path: Path_, index: int, interior: str | None = None) -> YamlDocument:
        arr = self.node(path)
        if arr is None or arr.kind != "array" or not 0 <= index < len(arr.value):
            raise KeyError(path)
        scoped = self._scoped(path, lambda sub: (sub.remove_item(path, index, interior), None))
        if scoped is not None:
            return scoped[0]
        expected = copy.deepcopy(self.data)
        items = list(arr.value)
        del items[index]
        _set(expected, path, items)
        return self._remove((*path, index), expected, interior)

    def replace_value(self, path: Path_, value: Any) -> tuple[YamlDocument, str]:
        scoped = self._scoped(path[:1], lambda sub: sub.replace_value(path, value))
        if scoped is not None:
            return scoped
        start, end = self._block_span(path)
        old = self.text[start:end]
        indent = old[: len(old) - len(old.lstrip(" "))]
        if isinstance(path[-1], int):  # a whole list item
            new = self._render_item(value, len(indent))
        elif old.lstrip(" ").startswith("- "):  # an item's first key shares the dash's line
            new = self._render({str(path[-1]): value}, len(indent) + 2)
            new = f"{indent}- {new[len(indent) + 2 :]}"
        else:
            new = self._render({str(path[-1]): value}, len(indent))
        expected = copy.deepcopy(self.data)
        _set(expected, path, value)
        return self._checked(self._splice(start, end, new), expected), old

    def replace_value_text(self, path: Path_, raw: str) -> YamlDocument:
        scoped = self._scoped(path[:1], lambda sub: (sub.replace_value_text(path, raw), None))
        if scoped is not None:
            return scoped[0]
        start, end = self._block_span(path)
        doc = YamlDocument(self._splice(start, end, raw))
        before, after = copy.deepcopy(self.data), copy.deepcopy(doc.data)
        _delete(before, path)
        _delete(after, path)
        if not _same(before, after, path):
            raise YamlEditError(f"cannot put {_dotted(path)} back without touching other entries")
        return doc

    # --- internals ---------------------------------------------------------------------------
    def _segment(self, top: Key) -> tuple[int, int, YamlDocument] | None:
        """The top-level block that defines ``top`` (its key line up to the next top-level
        key), as a document of its own, or None where that cannot be told for sure.

        Why: ruamel.yaml's round-trip parser (positions) and its pure safe loader take seconds
        per megabyte, and every edit needs both; a user's 5 MB ``config.yaml`` took minutes.
        An edit of ours touches one top-level key, so it is made and verified on that block
        alone. The block is trusted only if it parses by itself to exactly that key and the
        value the whole file gives it (no alias into another block, no line that only looked
        like a top-level key); otherwise the whole file is edited as before."""
        if self._block or not isinstance(top, str) or top not in self.data:
            return None
        heads: list[int] = []
        found: list[int] = []
        names = "|".join(re.escape(n) for n in (top, json.dumps(top), f"'{top}'"))
        pattern = re.compile(rf"(?:{names})[ \t]*:(?:[ \t]|\r?$)")
        pos = 0
        for line in self.text.split("\n"):  # YAML's line breaks; a lone \r: no shortcut
            first = line[:1]
            if first and first not in " \t#\r\n":
                if first in "-.%?&*!{[|>@`" or line.startswith(("---", "...")):
                    return None  # not a plain top-level key line: no shortcut
                heads.append(pos)
                if pattern.match(line):
                    found.append(pos)
            pos += len(line) + 1
        if len(found) != 1:
            return None
        start = found[0]
        end = next((h for h in heads if h > start), len(self.text))
        # the line break before the block goes with it: a block we appended to a file that
        # had no final newline began with one, and its removal takes that back too
        start -= 2 if self.text.startswith("\r\n", start - 2) else 1 if start else 0
        for anchor in set(_ANCHOR.findall(self.text, start, end)):
            # an alias elsewhere shares this block's node: an edit here changes it there too,
            # which only the whole file's check can see
            if f"*{anchor}" in self.text[:start] or f"*{anchor}" in self.text[end:]:
                return None
        try:
            sub = YamlDocument(self.text[start:end], self.newline, block=True)
        except YamlSyntaxError:
            return None
        if list(sub.data) != [top] or sub.data[top] != self.data[top]:
            return None
        return start, end, sub

    def _scoped(
        self, path: Path_, edit: Callable[[YamlDocument], tuple[YamlDocument, T]]
    ) -> tuple[YamlDocument, T] | None:
        """``edit`` made on the block of ``path[0]`` alone (see ``_segment``), or None; the
        result is still checked against the whole file (with the C loader: fast), so a block
        told apart wrongly can only cost the shortcut, never a byte of the user's."""
        found = self._segment(path[0]) if path else None
        if found is None:
            return None
        start, end, sub = found
        new_sub, extra = edit(sub)
        top = path[0]
        data = {
            k: (new_sub.data[top] if k == top else v)
            for k, v in self.data.items()
            if k != top or top in new_sub.data
        }
        for k, v in new_sub.data.items():  # nothing else may appear; say so if it did
            if k != top:
                raise YamlEditError(f"an edit of {_dotted(path)} would add {k!r}")
            data.setdefault(k, v)
        text = self.text[:start] + new_sub.text + self.text[end:]
        try:  # the whole file, read once by the fast loader, must say exactly that
            whole = _safe(text)
        except YamlSyntaxError:
            return None
        if not _same(whole, data, ()):
            return None  # the block was not what it looked like: edit the whole file
        doc = YamlDocument.__new__(YamlDocument)
        doc.text = text
        doc.data = whole
        doc._newline = self._newline
        doc._block = False
        return doc, extra

    def _splice(self, start: int, end: int, new: str) -> str:
        return self.text[:start] + new + self.text[end:]

    def _checked(self, text: str, expected: dict[str, Any], hint: Path_ = ()) -> YamlDocument:
        try:
            doc = YamlDocument(text)
        except YamlSyntaxError:
            raise YamlEditError("the edit would not be valid YAML here") from None
        if not _same(doc.data, expected, hint):
            raise YamlEditError("the edit would change other entries of the file")
        return doc

    def _lines(self) -> list[tuple[int, str]]:
        """(offset, line without its line break) for every ``\\n``-separated line."""
        out: list[tuple[int, str]] = []
        pos = 0
        for raw in self.text.split("\n"):
            out.append((pos, raw[:-1] if raw.endswith("\r") else raw))
            pos += len(raw) + 1
        return out

    def _render(self, mapping: dict[str, Any], indent: int) -> str:
        nl, pad = self.newline, " " * indent
        lines: list[str] = []
        for key, value in mapping.items():
            if isinstance(value, dict) and value:
                lines += [f"{pad}{_key(key)}:", self._render(value, indent + 2).rstrip("\r\n")]
            elif isinstance(value, list) and any(isinstance(v, dict) for v in value):
                lines.append(f"{pad}{_key(key)}:")
                lines += [self._render_item(v, indent + 2).rstrip("\r\n") for v in value]
            else:
                lines.append(f"{pad}{_key(key)}: {_flow(value)}")
        return nl.join(lines) + nl

    def _render_item(self, value: Any, indent: int) -> str:
        if isinstance(value, dict) and value:
            body = self._render(value, indent + 2)
            return " " * indent + "- " + body[indent + 2 :]
        return f"{' ' * indent}- {_flow(value)}{self.newline}"

    def _body(self, inner: Any, indent: int) -> str:
        if isinstance(inner, list):
            return "".join(self._render_item(v, indent) for v in inner)
        return self._render(inner, indent)

    def _insert(
        self, path: Path_, value: Any, expected: dict[str, Any], *, item: bool
    ) -> tuple[YamlDocument, Inserted]:
        """Insert ``value`` (a one-member mapping, or an item of the list at ``path``) under
        ``path``; missing parents are created by the same block."""
        root = _positions(self.text) if self.text.strip() else None
        node, depth = root, 0
        while depth < len(path) and node is not None and _has(node, path[depth]):
            child = node[path[depth]]
            if child is None or _is_flow(child) or (hasattr(child, "lc") and not child):
                return self._fill_empty(
                    node, path[depth], _nest(path[depth + 1 :], value, item), expected
                )
            if not hasattr(child, "lc"):
                raise YamlEditError(f"{_dotted(path[: depth + 1])} is not a mapping or list")
            node, depth = child, depth + 1
        if depth == len(path):
            if item:
                text = self._render_item(value, self._item_indent(node))
            else:
                text = self._render(value, self._key_indent(node) if depth else 0)
        else:
            if node is not None and not isinstance(node, dict):
                raise YamlEditError(f"{_dotted(path[:depth])} is not a mapping")
            inner = {str(path[depth]): _nest(path[depth + 1 :], value, item)}
            text = self._render(inner, self._key_indent(node) if depth else 0)
        at = self._end_of(node) if depth else len(self.text)
        return self._place(at, text, expected)

    def _fill_empty(
        self, parent: Any, key: Key, inner: Any, expected: dict[str, Any]
    ) -> tuple[YamlDocument, Inserted]:
        """``key:`` holds null, ``{}`` or ``[]``: our block replaces that value."""
        lines = self._lines()
        node: Any = parent
        if isinstance(node, dict):
            key_line, key_col = _pos(node, "key", key)
            line, col = _pos(node, "value", key)
        else:
            line, col = _pos(node, "item", key)
            key_line, key_col = line, self._item_indent(node)
        body = self._body(inner, key_col + 2)
        start = lines[line][0] + col
        null = _NULL.match(self.text, start) if line == key_line else None
        if node[key] is None and null is None:  # "key:" with nothing after it
            eol = self.text.find("\n", lines[key_line][0])
            return self._place(len(self.text) if eol < 0 else eol + 1, body, expected)
        if null is not None:  # "key: null" or "key: ~" -> "key:" + our block
            while start > 0 and self.text[start - 1] == " ":
                start -= 1
            old = self.text[start : null.end()]
            new = self.newline + body.rstrip("\r\n")
            doc = self._checked(self._splice(start, null.end(), new), expected)
            return doc, Inserted(new, json.dumps([new, old]))
        close = "}" if self.text[start] == "{" else "]"
        while start > 0 and self.text[start - 1] == " ":  # "key: {}" -> "key:" + our block
            start -= 1
        end = self.text.find(close, start) + 1
        old = self.text[start:end]
        if end <= 0 or old.replace(" ", "") not in ("{}", "[]"):
            raise YamlEditError(f"{_dotted((key,))} is written in flow style")
        new = self.newline + body.rstrip("\r\n")
        doc = self._checked(self._splice(start, end, new), expected)
        return doc, Inserted(new, json.dumps([new, old]))

    def _place(self, at: int, text: str, expected: dict[str, Any]) -> tuple[YamlDocument, Inserted]:
        if at == len(self.text) and self.text and not self.text.endswith("\n"):
            text = self.newline + text
        doc = self._checked(self._splice(at, at, text), expected)
        return doc, Inserted(text, json.dumps([text, ""]))

    def _key_indent(self, node: Any) -> int:
        found: Any = node
        if isinstance(found, dict) and found:
            return int(_pos(found, "key", _first_own(found))[1])
        return 0

    def _item_indent(self, node: Any) -> int:
        """The column of the ``-`` of the list's items."""
        line, col = _pos(node, "item", 0)
        text = self._lines()[line][1]
        dash = text.rfind("-", 0, col)
        return int(dash if dash >= 0 else max(0, col - 2))

    def _end_of(self, node: Any) -> int:
        """The offset just after the last line that belongs to the block ``node``."""
        lines = self._lines()
        is_seq = not isinstance(node, dict)
        first = int(_pos(node, "item", 0)[0] if is_seq else _pos(node, "key", _first_own(node))[0])
        col = self._item_indent(node) if is_seq else self._key_indent(node)
        last = first
        for i in range(first + 1, len(lines)):
            text = lines[i][1]
            stripped = text.lstrip(" ")
            indent = len(text) - len(stripped)
            if not stripped:
                continue
            if stripped.startswith("#"):
                if indent >= col:
                    last = i
                continue
            if indent > col or (indent == col and (not is_seq or stripped.startswith("-"))):
                last = i
                continue
            break
        return lines[last + 1][0] if last + 1 < len(lines) else len(self.text)

    def _block_span(self, path: Path_) -> tuple[int, int]:
        """The lines that define ``path``: its key (or item) line and all lines below it that
        are indented deeper; trailing blank and comment lines belong to what follows."""
        parent: Any = _positions(self.text)
        for key in path[:-1]:
            parent = parent[key]
        key = path[-1]
        in_map = isinstance(parent, dict)
        line, col = _pos(parent, "key" if in_map else "item", key)
        if not in_map:
            col = self._item_indent(parent)
        lines = self._lines()
        stop = len(lines)
        for i in range(line + 1, len(lines)):
            text = lines[i][1]
            stripped = text.lstrip(" ")
            indent = len(text) - len(stripped)
            if not stripped or stripped.startswith("#"):
                continue
            if indent > col or (in_map and indent == col and stripped.startswith("- ")):
                continue
            stop = i
            break
        while stop - 1 > line and (
            not lines[stop - 1][1].strip() or lines[stop - 1][1].lstrip().startswith("#")
        ):
            stop -= 1
        end = lines[stop][0] if stop < len(lines) else len(self.text)
        return lines[line][0], end

    def _remove(
        self, target: Path_, expected: dict[str, Any], interior: str | None
    ) -> YamlDocument:
        if interior:
            try:
                inserted, replaced = (str(x) for x in json.loads(interior))
            except (ValueError, TypeError):
                inserted, replaced = "", ""
            start = len(self.text)
            for _ in range(MAX_CANDIDATES if inserted else 0):
                start = self.text.rfind(inserted, 0, start)
                if start < 0:
                    break
                try:
                    return self._checked(
                        self._splice(start, start + len(inserted), replaced), expected, target
                    )
                except YamlEditError:
                    continue
        start, end = self._block_span(target)
        if interior and inserted:
            # the user tuned our entry since we inserted it: the parents we created with it
            # (the "key:" lines right above it, exactly as inserted) go with it
            lines = inserted.splitlines(keepends=True)
            for k in range(min(len(lines) - 1, len(target)), 0, -1):
                prefix = "".join(lines[:k])
                if all(not ln.strip() or ln.rstrip().endswith(":") for ln in lines[:k]) and (
                    self.text[max(0, start - len(prefix)) : start] == prefix
                ):
                    try:
                        cut = self._splice(start - len(prefix), end, replaced)
                        return self._checked(cut, expected, target)
                    except YamlEditError:
                        break
        try:
            return self._checked(self._splice(start, end, ""), expected, target)
        except YamlEditError:
            raise YamlEditError(
                f"{_dotted(target)} was changed in a way msd-install cannot undo safely"
            ) from None


def _flow(value: Any) -> str:
    """JSON is valid YAML flow style, and a quoted string can never change type (ASCII only:
    YAML reads some characters that JSON leaves raw, such as NEL, as line breaks)."""
    return json.dumps(value)


def _key(key: str) -> str:
    plain = key.replace("_", "").replace("-", "").isalnum() and key[:1].isalpha()
    return key if plain else json.dumps(key, ensure_ascii=False)


def _dotted(path: Path_) -> str:
    return ".".join(str(k) for k in path) or "(top level)"


def _nest(keys: Path_, value: Any, item: bool) -> Any:
    """What goes under the first missing key: the rest of the path down to our value."""
    inner: Any = [value] if item else value
    for key in reversed(keys):
        inner = {str(key): inner}
    return inner


def _first_own(mapping: Any) -> Any:
    """The first key written in ``mapping`` itself: keys a merge (``<<: *base``) brings in
    have no position of their own."""
    own = list(_lc(mapping).data or ())
    if not own:
        raise YamlEditError("a mapping holding only a merge key (<<) cannot be added to here")
    return own[0]


def _pos(node: Any, kind: str, key: Any) -> tuple[int, int]:
    """Line and column of a key, a value or an item of a round-trip node. What has no
    position of its own (brought in by a merge key, an alias) is refused, not guessed."""
    try:
        line, col = getattr(_lc(node), kind)(key)
    except (AttributeError, KeyError, IndexError, TypeError):
        raise YamlEditError(
            f"{key!r} is not written where msd-install can edit it (a merge key or an alias?)"
        ) from None
    return int(line), int(col)


def _lc(node: Any) -> Any:
    """ruamel.yaml's line/column record of a round-trip node."""
    return node.lc


def _is_flow(node: Any) -> bool:
    return hasattr(node, "fa") and bool(node.fa.flow_style())
