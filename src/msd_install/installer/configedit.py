"""Reconcile one user config file with the entries a plan wants there. Pure text in, text out.

Every edit is recorded as a primitive op (``member`` / ``item`` / ``replace``) with what its
exact inverse needs; uninstall and upgrade invert the recorded ops in reverse order, each only
if the value there still hashes to what we wrote. So a user's own entries, and our entries
that the user changed, are never removed; and install + uninstall gives back the same bytes.
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigFileError
from .jsonedit import JsonDocument, JsonSyntaxError, canonical
from .manifest import ConfigOp
from .plan import IF_ABSENT, ITEM, MEMBER, ConfigEntry

EMPTY_FILE = "{}\n"  # what a config file we create starts as
CHANGED_BUT_OURS = "changed by you, but it runs msd's files, which this run takes away: removed"


def value_hash(value: Any) -> str:
    # surrogatepass: a user's file may hold a lone surrogate escape ("\\ud83d"); hash it anyway
    return hashlib.sha256(canonical(value).encode("utf-8", "surrogatepass")).hexdigest()


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


def check_writable(path: Path) -> None:
    """A config file the user made read-only is a decision: never edit around it."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return
    if not mode & 0o222:
        raise ConfigFileError(
            "is read-only, so msd-install leaves it alone",
            path=path,
            hint="make it writable (chmod u+w) and run again; nothing was changed",
        )


def invert(doc: JsonDocument, ops: list[ConfigOp]) -> tuple[JsonDocument, list[str]]:
    """Undo recorded ops, newest first. Returns the document and notes on ops left in place.

    An entry is ours while it hashes to what we wrote, or, when the user changed it (a new
    timeout, a hook of their own added to our group), while it still carries our exact marker
    (the command naming our script): such an entry is useless once our files are gone, so the
    element holding the marker goes and everything the user added stays.
    """
    kept: list[str] = []
    for op in reversed(ops):
        path = tuple(op["path"])
        label = op.get("label") or ".".join(path)
        if op["op"] == "item":
            arr = doc.node(path)
            items = arr.items if arr is not None and arr.kind == "array" else []
            index = _find_item(items, op["sha256"])
            if index is not None:
                doc = doc.remove_item(path, index, op.get("interior"))
            elif op.get("marker") and (found := _marked(doc, path, items, op["marker"])):
                where, at = found
                doc = doc.remove_item(where, at, op.get("interior") if where == path else None)
                kept.append(f"{label}: {CHANGED_BUT_OURS}")
            else:
                kept.append(f"{label}: no longer there")
            continue
        target = (*path, op["key"])
        node = doc.node(target)
        exact = node is not None and value_hash(node.value) == op["sha256"]
        marked = (
            node is not None
            and bool(op.get("marker"))
            and _has_string(node.value, op.get("marker", ""))
        )
        if marked and not exact:
            kept.append(f"{label}: {CHANGED_BUT_OURS}")
        if not (exact or marked):
            if label != "container":
                kept.append(
                    f"{label}: "
                    + ("no longer there" if node is None else "changed by you, left as is")
                )
        elif op["op"] == "member":
            doc = doc.remove_member(path, op["key"], op.get("interior"))
        else:  # replace: put the user's own value back, byte for byte
            doc = doc.replace_value_text(target, op["previous"])
    return doc, kept


def _has_string(value: Any, marker: str) -> bool:
    """Does ``value`` hold a string exactly equal to ``marker`` (never a substring match)?"""
    if isinstance(value, str):
        return value == marker
    if isinstance(value, dict):
        return any(_has_string(v, marker) for v in value.values())
    if isinstance(value, list):
        return any(_has_string(v, marker) for v in value)
    return False


def _marked(
    doc: JsonDocument, path: tuple[str, ...], items: list[Any], marker: str
) -> tuple[tuple[Any, ...], int] | None:
    """Where our marked element sits: the whole item, or our element inside the item's
    array member when the user added elements of their own next to it."""
    for i in range(len(items) - 1, -1, -1):
        item = items[i]
        if not _has_string(item.value, marker):
            continue
        for member in item.members:
            inner = member.value
            if inner.kind != "array" or len(inner.items) < 2:
                continue
            hits = [j for j, el in enumerate(inner.items) if _has_string(el.value, marker)]
            if len(hits) == 1 and _has_string(inner.value, marker):
                return (*path, i, member.key), hits[0]
        return path, i
    return None


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
        if entry.kind == ITEM:
            arr = doc.node(entry.path)
            if arr is not None and arr.kind == "array" and _find_item(arr.items, want) is not None:
                continue
        return False
    return len(matched) == len(leaf_ops)


def reconcile(
    path: Path, doc: JsonDocument, entries: list[ConfigEntry], old_ops: list[ConfigOp]
) -> Reconciled:
    """Remove our old entries, then add the wanted ones; the result records the new ops."""
    # A value the user once let us replace (--force, --force-statusline) stays replaced
    # until uninstall: a plain reinstall must not hand it back as a side effect of an upgrade.
    forced = {(tuple(op["path"]), op["key"]) for op in old_ops if op["op"] == "replace"}
    entries = [
        dataclasses.replace(e, force=True) if e.kind == MEMBER and (e.path, e.key) in forced else e
        for e in entries
    ]
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
    if entry.marker:
        op["marker"] = entry.marker
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
