"""The user's tuning of our config entries: a three-way merge per leaf, applied in place.

An entry of ours that the user changed (a hook's ``timeout``, its ``matcher``, an ``env`` var
of the MCP server) is still ours while it is identified as ours: it holds our marker (the
command naming our script) or hashes to what we recorded. A reinstall or upgrade then decides
per leaf, between our value recorded last time (*base*), the user's current one and the plan's
new one: a leaf only the user changed keeps the user's value, a leaf only we changed gets ours,
and where both changed the same leaf the user's wins (and the report says so). Only the leaves
we change are spliced, so the user's formatting of the rest of the entry stays.

Lists are merged per index only where all three have the same length; otherwise a list is one
leaf. One exception hands the entry back to the old remove-and-re-add path (``merge`` returns
None): the user added elements of their own to a list that holds our marked element (their
own hook inside our hook group), which uninstall must be able to take apart element by element.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .configdoc import ConfigDoc
from .confine import control_char
from .valuehash import value_hash

Leaf = tuple[Any, ...]  # the path of a leaf inside the entry's value (keys and indexes)
MAX_DEPTH = 64  # our entries are 3-4 levels deep; a user's deeper value is one leaf


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


MISSING: Any = _Missing()  # a key absent on one side
UNKNOWN: Any = _Missing()  # no recorded base (a manifest from before the base was recorded)


@dataclass
class Merged:
    value: Any
    edits: list[tuple[Leaf, Any]] = field(default_factory=list)  # ours to apply (MISSING: delete)
    # (leaf, theirs, ours): ``ours`` is UNKNOWN where we did not change that leaf
    kept: list[tuple[Leaf, Any, Any]] = field(default_factory=list)


def same(a: Any, b: Any) -> bool:
    """Equal as the config file means it: ``1`` is not ``true``, ``1`` is not ``1.0``."""
    if a is MISSING or b is MISSING or a is UNKNOWN or b is UNKNOWN:
        return a is b
    return type(a) is type(b) and value_hash(a) == value_hash(b)


def merge(base: Any, current: Any, new: Any, marker: str) -> Merged | None:
    """Three-way merge of one entry's value; None when the user's change is structural."""
    out = Merged(MISSING)
    try:
        out.value = _merge(base, current, new, (), marker, out, 0)
    except _StructuralError:
        return None
    return out


class _StructuralError(Exception):
    pass


def _merge(b: Any, c: Any, n: Any, at: Leaf, marker: str, out: Merged, depth: int) -> Any:
    if same(c, n):
        return c
    if b is not UNKNOWN and same(c, b):
        out.edits.append((at, n))
        return n
    if b is UNKNOWN and isinstance(c, str) and marker and c == marker:
        out.edits.append((at, n))  # our marker, never a user's value: ours to update
        return n
    if b is not UNKNOWN and same(n, b):
        _guard_lists(b, c, marker)
        out.kept.extend((leaf, theirs, UNKNOWN) for leaf, theirs in _diff(b, c, at, depth))
        return c
    if (
        depth < MAX_DEPTH
        and isinstance(c, dict)
        and isinstance(n, dict)
        and (b is UNKNOWN or isinstance(b, dict))
    ):
        merged: dict[str, Any] = {}
        for key in [*c, *(k for k in n if k not in c)]:
            sub_b = UNKNOWN if b is UNKNOWN else b.get(key, MISSING)
            sub_c, sub_n = c.get(key, MISSING), n.get(key, MISSING)
            if b is UNKNOWN and MISSING in (sub_c, sub_n):
                sub_b = MISSING  # a key only one side has: ours to add, or theirs to keep
            value = _merge(sub_b, sub_c, sub_n, (*at, key), marker, out, depth + 1)
            if value is not MISSING:
                merged[key] = value
        return merged
    if (
        depth < MAX_DEPTH
        and isinstance(c, list)
        and isinstance(n, list)
        and len(c) == len(n)
        and (b is UNKNOWN or (isinstance(b, list) and len(b) == len(c)))
    ):
        return [
            _merge(UNKNOWN if b is UNKNOWN else b[i], c[i], n[i], (*at, i), marker, out, depth + 1)
            for i in range(len(c))
        ]
    # nothing recorded: our new value stands in for the base, so a hook of the user's built
    # into our group is never taken for a tuning of ours (uninstall would remove it with ours)
    _guard_lists(n if b is UNKNOWN else b, c, marker)
    out.kept.append((at, c, n))  # both changed this leaf (or nothing recorded): theirs wins
    return c


def _guard_lists(b: Any, c: Any, marker: str) -> None:
    """A list holding our marked element that the user grew or shrank is not a tuning."""
    if isinstance(b, dict) and isinstance(c, dict):
        for key in b.keys() & c.keys():
            _guard_lists(b[key], c[key], marker)
    elif isinstance(b, list) and isinstance(c, list):
        ours = (e for e in (*b, *c) if isinstance(e, dict))  # the marker: ours in either
        if len(b) != len(c) and any(_holds(e, marker) for e in ours):
            raise _StructuralError
        for x, y in zip(b, c, strict=False):
            _guard_lists(x, y, marker)


def _holds(value: Any, marker: str) -> bool:
    if isinstance(value, str):
        return bool(marker) and value == marker
    if isinstance(value, dict):
        return any(_holds(v, marker) for v in value.values())
    if isinstance(value, list):
        return any(_holds(v, marker) for v in value)
    return False


def _diff(b: Any, c: Any, at: Leaf, depth: int) -> list[tuple[Leaf, Any]]:
    """The leaves where the user's ``c`` differs from our ``b``: (leaf, theirs)."""
    if same(b, c):
        return []
    if depth < MAX_DEPTH and isinstance(b, dict) and isinstance(c, dict):
        out: list[tuple[Leaf, Any]] = []
        for key in [*c, *(k for k in b if k not in c)]:
            out += _diff(b.get(key, MISSING), c.get(key, MISSING), (*at, key), depth + 1)
        return out
    if depth < MAX_DEPTH and isinstance(b, list) and isinstance(c, list) and len(b) == len(c):
        return [d for i in range(len(b)) for d in _diff(b[i], c[i], (*at, i), depth + 1)]
    return [(at, c)]


def apply(doc: ConfigDoc, where: tuple[Any, ...], merged: Merged) -> ConfigDoc:
    """Splice our changes (``merged.edits``) into the entry at ``where``, leaf by leaf; the
    whole entry is re-rendered only where an editor cannot make one leaf's edit."""
    if not merged.edits:
        return doc
    want = value_hash(merged.value)
    try:
        out = doc
        for leaf, value in merged.edits:
            target = (*where, *leaf)
            if value is MISSING:
                out = out.remove_member(target[:-1], target[-1])
            elif out.node(target) is None:
                out, _ins = out.add_member(target[:-1], target[-1], value)
            else:
                out, _old = out.replace_value(target, value)
        node = out.node(where)
        if node is not None and value_hash(node.value) == want:
            return out
    except (ValueError, KeyError, TypeError, IndexError):
        pass  # e.g. a leaf inside a YAML flow mapping: the whole entry is re-rendered
    whole: ConfigDoc = doc.replace_value(where, merged.value)[0]
    return whole


def describe(kept: list[tuple[Leaf, Any, Any]]) -> str:
    """``your timeout 99, matcher "Read" kept`` (and this version's value where it differs)."""
    parts = []
    for leaf, theirs, ours in kept[:6]:
        name = _name(leaf)
        if theirs is MISSING:
            parts.append(f"removal of {name}")
        else:
            part = f"{name} {_show(theirs)}"
            if ours is not UNKNOWN:  # both changed it: theirs wins, ours is named
                part += " (this version's: " + ("none" if ours is MISSING else _show(ours)) + ")"
            parts.append(part)
    more = f" and {len(kept) - 6} more" if len(kept) > 6 else ""
    text = f"your {', '.join(parts)}{more} kept"
    # the names and values are the user's file's (a cloned project's, after a pull): printed
    # on a terminal, so a control character (ESC, BEL, a C1 CSI) never goes out raw
    return text if control_char(text) is None else json.dumps(text)[1:-1]


def _name(leaf: Leaf) -> str:
    if not leaf:
        return "value"
    last = leaf[-1]
    if isinstance(last, int):
        before = next((str(k) for k in reversed(leaf) if isinstance(k, str)), "")
        return f"{before}[{last}]"
    return str(last)


def _show(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
