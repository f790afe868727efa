"""Reconcile one user config file with the entries a plan wants there. Pure text in, text out.

Every edit is recorded as a primitive op (``member`` / ``item`` / ``replace``) with what its
exact inverse needs; uninstall and upgrade invert the recorded ops in reverse order, each only
if the value there still hashes to what we wrote. So a user's own entries, and our entries
that the user changed, are never removed; and install + uninstall gives back the same bytes.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigFileError
from .jsonedit import JsonDocument, JsonSyntaxError, canonical
from .manifest import ConfigOp
from .plan import IF_ABSENT, ITEM, MEMBER, ConfigEntry

EMPTY_FILE = "{}\n"  # what a config file we create starts as


def value_hash(value: Any) -> str:
    return hashlib.sha256(canonical(value).encode()).hexdigest()


@dataclass
class EntryOutcome:
    entry: ConfigEntry
    verb: str  # "add" | "identical" | "skip" | "conflict" | "backup"
    detail: str = ""


@dataclass
class Reconciled:
    text: str
    ops: list[ConfigOp]
    outcomes: list[EntryOutcome] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # our old entries the user changed: left alone


def open_doc(path: Path, raw: bytes | None, fmt: str) -> JsonDocument:
    """Parse a config file, or raise ``ConfigFileError`` naming the file and the position."""
    if raw is None:
        return JsonDocument(EMPTY_FILE, jsonc=fmt == "jsonc")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigFileError(f"not valid UTF-8 at byte {exc.start}", path=path) from None
    try:
        doc = JsonDocument(text, jsonc=fmt == "jsonc")
    except JsonSyntaxError as exc:
        raise ConfigFileError(
            f"invalid JSON: {exc}", path=path, hint="fix the file, then run msd-install again"
        ) from None
    if doc.root.kind != "object":
        raise ConfigFileError("the top level is not a JSON object", path=path)
    return doc


def invert(doc: JsonDocument, ops: list[ConfigOp]) -> tuple[JsonDocument, list[str]]:
    """Undo recorded ops, newest first. Returns the document and labels of ops left in place."""
    kept: list[str] = []
    for op in reversed(ops):
        path = tuple(op["path"])
        kind = op["op"]
        if kind == "item":
            arr = doc.node(path)
            index = _find_item(arr.items if arr and arr.kind == "array" else [], op["sha256"])
            if index is None:
                kept.append(op.get("label") or ".".join(path))
                continue
            doc = doc.remove_item(path, index, op.get("interior"))
        elif kind == "member":
            node = doc.node((*path, op["key"]))
            if node is None or value_hash(node.value) != op["sha256"]:
                kept.append(op.get("label") or ".".join((*path, op["key"])))
                continue
            doc = doc.remove_member(path, op["key"], op.get("interior"))
        elif kind == "replace":
            target = (*path, op["key"])
            node = doc.node(target)
            if node is None or value_hash(node.value) != op["sha256"]:
                kept.append(op.get("label") or ".".join(target))
                continue
            doc = doc.replace_value_text(target, op["previous"])
    return doc, kept


def _find_item(items: list[Any], sha: str) -> int | None:
    for i in range(len(items) - 1, -1, -1):
        if value_hash(items[i].value) == sha:
            return i
    return None


def satisfied(doc: JsonDocument, entries: list[ConfigEntry], ops: list[ConfigOp]) -> bool:
    """True when the file already holds exactly what the entries want: no write needed."""
    leaf_ops = [op for op in ops if op.get("label") != "container"]
    matched: set[int] = set()
    for entry in entries:
        want = value_hash(entry.value)
        hit = None
        for i, op in enumerate(leaf_ops):
            if i in matched or list(entry.path) != op["path"] or op["sha256"] != want:
                continue
            if entry.kind == ITEM and op["op"] == "item":
                arr = doc.node(entry.path)
                if arr is not None and _find_item(arr.items, want) is not None:
                    hit = i
            elif (
                entry.kind == MEMBER
                and op["op"] in ("member", "replace")
                and op["key"] == entry.key
            ):
                node = doc.node((*entry.path, entry.key))
                if node is not None and value_hash(node.value) == want:
                    hit = i
            if hit is not None:
                break
        if hit is not None:
            matched.add(hit)
            continue
        # Not recorded as ours: fine only if we would leave it alone again (the user's own).
        if entry.kind == MEMBER and not entry.force and doc.node((*entry.path, entry.key)):
            continue
        return False
    return len(matched) == len(leaf_ops)


def reconcile(
    path: Path, doc: JsonDocument, entries: list[ConfigEntry], old_ops: list[ConfigOp]
) -> Reconciled:
    """Remove our old entries, then add the wanted ones; the result records the new ops."""
    doc, kept = invert(doc, old_ops)
    ops: list[ConfigOp] = []
    outcomes: list[EntryOutcome] = []
    for entry in entries:
        doc = _ensure_containers(path, doc, entry, ops)
        if entry.kind == ITEM:
            arr = doc.node(entry.path)
            if arr is None or arr.kind != "array":
                raise ConfigFileError(f"{'.'.join(entry.path)} is not an array", path=path)
            if _find_item(arr.items, value_hash(entry.value)) is not None:
                outcomes.append(EntryOutcome(entry, "skip", "an identical entry is already there"))
                continue
            doc, ins = doc.append_item(entry.path, entry.value)
            ops.append(_op("item", entry, ins.interior))
            outcomes.append(EntryOutcome(entry, "add"))
            continue
        target = (*entry.path, entry.key)
        existing = doc.node(target)
        if existing is None:
            doc, ins = doc.add_member(entry.path, entry.key, entry.value)
            ops.append(_op("member", entry, ins.interior))
            outcomes.append(EntryOutcome(entry, "add"))
        elif value_hash(existing.value) == value_hash(entry.value) and not entry.force:
            outcomes.append(EntryOutcome(entry, "skip", "the same value is already there"))
        elif entry.force:
            previous = doc.text[existing.start : existing.end]
            doc, _old = doc.replace_value(target, entry.value)
            op = _op("replace", entry, None)
            op["previous"] = previous
            ops.append(op)
            outcomes.append(
                EntryOutcome(entry, "backup", "yours is kept and restored on uninstall")
            )
        elif entry.policy == IF_ABSENT:
            outcomes.append(EntryOutcome(entry, "skip", "you already have one"))
        else:
            outcomes.append(
                EntryOutcome(entry, "conflict", "an entry of yours is there; --force replaces it")
            )
    return Reconciled(doc.text, ops, outcomes, kept)


def _op(kind: str, entry: ConfigEntry, interior: str | None) -> ConfigOp:
    op: ConfigOp = {
        "op": kind,
        "path": list(entry.path),
        "sha256": value_hash(entry.value),
        "label": entry.label or entry.ident,
    }
    if kind != "item":
        op["key"] = entry.key
    if interior is not None:
        op["interior"] = interior
    return op


def _ensure_containers(
    file: Path, doc: JsonDocument, entry: ConfigEntry, ops: list[ConfigOp]
) -> JsonDocument:
    """Create missing parent objects (and the array of an ITEM), recording each as ours."""
    path = entry.path
    for depth in range(len(path)):
        parent, key = path[:depth], path[depth]
        node = doc.node((*parent, key))
        want = "array" if (entry.kind == ITEM and depth == len(path) - 1) else "object"
        if node is not None:
            if node.kind != want:
                raise ConfigFileError(f"{'.'.join((*parent, key))} is not an {want}", path=file)
            continue
        empty: Any = [] if want == "array" else {}
        doc, ins = doc.add_member(parent, key, empty)
        op: ConfigOp = {
            "op": "member",
            "path": list(parent),
            "key": key,
            "sha256": value_hash(empty),
            "label": "container",
        }
        if ins.interior is not None:
            op["interior"] = ins.interior
        ops.append(op)
    return doc
