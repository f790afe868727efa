"""Our recorded entries found again in the user's file, with the user's tuning kept.

Before a reinstall or upgrade takes our old entries out (``configedit.invert``), each entry the
plan still wants is looked for where its recorded op put it: by the hash we recorded, or by our
marker (the command naming our script). Found, it is updated in place by the three-way merge of
``tuning`` (the user's changed leaves stay, ours are applied) and its op is carried over with
the merged value's hash, so uninstall still removes it, ``--check`` and ``doctor`` see it as
installed, and the next run does not report the same tuning again. Not found (the user removed
it or pointed it at a script of their own), the entry takes the old path: re-added, the user's
version left as theirs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .configdoc import ConfigDoc
from .manifest import ConfigOp
from .plan import ITEM, MEMBER, ConfigEntry
from .tuning import UNKNOWN, apply, describe, merge
from .valuehash import has_string, value_hash


@dataclass
class Kept:
    ops: dict[int, ConfigOp] = field(default_factory=dict)  # entry index -> its carried op
    rest: list[ConfigOp] = field(default_factory=list)  # old ops no wanted entry took over
    notes: list[str] = field(default_factory=list)  # "hook x: your timeout 99 kept"


def keep_tuned(doc: ConfigDoc, entries: list[ConfigEntry], old_ops: list[ConfigOp]) -> tuple[
    ConfigDoc, Kept
]:  # fmt: skip
    kept = Kept()
    used: set[int] = set()
    for e_index, entry in enumerate(entries):
        for o_index, op in enumerate(old_ops):
            if o_index in used or not _same_slot(entry, op):
                continue
            where = _locate(doc, entry, op)
            if where is None:
                break
            current = doc.node(where).value
            merged = merge(_base(op, current, entry), current, entry.value, op.get("marker", ""))
            if merged is None:  # the user built on our entry: the old remove-and-re-add path
                break
            doc = apply(doc, where, merged)
            kept.ops[e_index] = _carried(op, entry, value_hash(merged.value))
            used.add(o_index)
            label = entry.label or entry.ident
            # news: a tuning not seen before, or this version changing a leaf the user tuned
            # (``ours`` named: with a recorded base, only when our value of it moved)
            fresh = value_hash(current) != op["sha256"]
            if merged.kept and (fresh or any(ours is not UNKNOWN for _l, _t, ours in merged.kept)):
                kept.notes.append(f"{label}: {describe(merged.kept)}")
            break
    kept.rest = [op for i, op in enumerate(old_ops) if i not in used]
    return doc, kept


def _same_slot(entry: ConfigEntry, op: ConfigOp) -> bool:
    """Is ``op`` the record of ``entry`` (same place, same kind, same marker or name)?"""
    if op.get("label") == "container" or list(entry.path) != op["path"]:
        return False
    if entry.kind == ITEM:
        if op["op"] != "item":
            return False
        same_marker = bool(entry.marker) and op.get("marker") == entry.marker
        return same_marker or op.get("label") == (entry.label or entry.ident)
    return entry.kind == MEMBER and op["op"] in ("member", "replace") and op["key"] == entry.key


def _locate(doc: ConfigDoc, entry: ConfigEntry, op: ConfigOp) -> tuple[Any, ...] | None:
    """Where the entry of ``op`` is now: by the hash we recorded, else by our old marker."""
    marker = op.get("marker", "")
    if entry.kind == MEMBER:
        target = (*entry.path, entry.key)
        node = doc.node(target)
        if node is None:
            return None
        if value_hash(node.value) == op["sha256"] or (marker and has_string(node.value, marker)):
            return target
        return None
    arr = doc.node(entry.path)
    if arr is None or arr.kind != "array":
        return None
    items = arr.items
    for i in range(len(items) - 1, -1, -1):
        if value_hash(items[i].value) == op["sha256"]:
            return (*entry.path, i)
    if marker:
        hits = [i for i, item in enumerate(items) if has_string(item.value, marker)]
        if len(hits) == 1:  # two copies of our marker: which one is ours is not known
            return (*entry.path, hits[0])
    return None


def _base(op: ConfigOp, current: Any, entry: ConfigEntry) -> Any:
    """Our value as we last wrote it: recorded since this version; before that, what we can
    prove (the file still holds exactly what we wrote, or our value has not changed)."""
    ours = op.get("ours", op["sha256"])
    if "value" in op and value_hash(op["value"]) == ours:
        return op["value"]
    if "ours" not in op and value_hash(current) == op["sha256"]:
        return current
    if value_hash(entry.value) == ours:
        return entry.value
    return UNKNOWN


def _carried(op: ConfigOp, entry: ConfigEntry, sha: str) -> ConfigOp:
    """The old op, now recording the value that is in the file (ours with the user's tuning)
    and our own value as the base of the next three-way decision."""
    new: ConfigOp = {**op}
    new["sha256"] = sha
    new["label"] = entry.label or entry.ident
    new["value"] = entry.value
    ours = value_hash(entry.value)
    if ours != sha:
        new["ours"] = ours
    else:
        new.pop("ours", None)
    if entry.marker:
        new["marker"] = entry.marker
    else:
        new.pop("marker", None)
    return new
