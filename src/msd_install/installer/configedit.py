"""Reconcile one user config file with the entries a plan wants there. Pure text in, text out.

Every edit is recorded as a primitive op (``member`` / ``item`` / ``replace``) with what its
exact inverse needs; uninstall and upgrade invert the recorded ops in reverse order, each only
if the value there still hashes to what we wrote. So a user's own entries, and our entries
that the user changed, are never removed; and install + uninstall gives back the same bytes.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigFileError
from .configdoc import ConfigDoc, EditRefusedError, open_doc
from .manifest import ConfigOp
from .plan import IF_ABSENT, ITEM, MEMBER, ConfigEntry
from .valuehash import has_string as _has_string
from .valuehash import value_hash

__all__ = [
    "ConfigDoc",
    "Reconciled",
    "invert",
    "open_doc",
    "reconcile",
    "refused",
    "satisfied",
    "value_hash",
]
CHANGED_BUT_OURS = "changed by you, but it runs msd's files, which this run takes away: removed"
# a reinstall that cannot keep the change as a tuning (the user built their own entries into
# ours): our part is registered again, what the user added stays as their own
CHANGED_REPLACED = "changed by you: what you added stays yours, msd's part is registered anew"


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
    tuned: list[str] = field(default_factory=list)  # the user's tuning of our entries, kept


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


def invert(
    doc: ConfigDoc, ops: list[ConfigOp], wanted: frozenset[str] = frozenset()
) -> tuple[ConfigDoc, list[str]]:
    """Undo recorded ops, newest first. Returns the document and notes on ops left in place.

    ``wanted``: labels of entries this run adds again (a reinstall): their changed-but-ours
    elements are replaced, not taken away with our files.

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
                kept.append(f"{label}: {_changed(label, wanted)}")
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
            kept.append(f"{label}: {_changed(label, wanted)}")
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


def _changed(label: str, wanted: frozenset[str]) -> str:
    return CHANGED_REPLACED if label in wanted else CHANGED_BUT_OURS


def _marked(
    doc: ConfigDoc, path: tuple[str, ...], items: list[Any], marker: str
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


def satisfied(doc: ConfigDoc, entries: list[ConfigEntry], ops: list[ConfigOp]) -> bool:
    """True when the file already holds exactly what the entries want: no write needed."""
    leaf_ops = [op for op in ops if op.get("label") != "container"]
    matched: set[int] = set()
    for entry in entries:
        want = value_hash(entry.value)
        hit = None
        for i, op in enumerate(leaf_ops):
            # a tuned entry: our value is ``ours``, the file holds ``sha256`` (ours + theirs)
            there = op["sha256"]
            if i in matched or list(entry.path) != op["path"] or op.get("ours", there) != want:
                continue
            if entry.kind == ITEM and op["op"] == "item":
                arr = doc.node(entry.path)
                if arr is not None and _find_item(arr.items, there) is not None:
                    hit = i
            elif (
                entry.kind == MEMBER
                and op["op"] in ("member", "replace")
                and op["key"] == entry.key
            ):
                node = doc.node((*entry.path, entry.key))
                if node is not None and value_hash(node.value) == there:
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


def refused(path: Path, exc: ValueError) -> ConfigFileError:
    """An edit refusal as the one-line error of the file it is about (nothing is written)."""
    return ConfigFileError(
        f"msd-install cannot edit it safely: {exc}", path=path, hint="nothing was changed"
    )


def reconcile(
    path: Path, doc: ConfigDoc, entries: list[ConfigEntry], old_ops: list[ConfigOp]
) -> Reconciled:
    """Remove our old entries, then add the wanted ones; the result records the new ops."""
    try:
        return _reconcile(path, doc, entries, old_ops)
    except EditRefusedError as exc:
        raise refused(path, exc) from None


def _reconcile(
    path: Path, doc: ConfigDoc, entries: list[ConfigEntry], old_ops: list[ConfigOp]
) -> Reconciled:
    # A value the user once let us replace (--force, --force-statusline) stays replaced
    # until uninstall: a plain reinstall must not hand it back as a side effect of an upgrade.
    forced = {(tuple(op["path"]), op["key"]) for op in old_ops if op["op"] == "replace"}
    entries = [
        dataclasses.replace(e, force=True) if e.kind == MEMBER and (e.path, e.key) in forced else e
        for e in entries
    ]
    # Our entries the user tuned are kept in place (``tunedentry``); the rest is taken out
    # and added again, as this version wants it.
    from .tunedentry import keep_tuned  # only where a file is edited: a reinstall edits none

    doc, tuned = keep_tuned(doc, entries, old_ops)
    wanted = frozenset(e.label or e.ident for i, e in enumerate(entries) if i not in tuned.ops)
    doc, kept = invert(doc, tuned.rest, wanted)
    # containers we created that still hold something (a kept entry, the user's own) stay
    # recorded as ours: uninstall removes them once they are empty again
    ops: list[ConfigOp] = [
        op
        for op in tuned.rest
        if op.get("label") == "container" and doc.node((*op["path"], op["key"])) is not None
    ]
    outcomes: list[EntryOutcome] = []
    for index, entry in enumerate(entries):
        if index in tuned.ops:
            ops.append(tuned.ops[index])
            continue
        doc = _ensure_containers(path, doc, entry, ops)
        if entry.kind == ITEM:
            arr = doc.node(entry.path)
            # YAML's "pre_tool_call:" with nothing (or only comments) under it is an empty list
            hollow = arr is not None and arr.value is None and doc.implicit_parents
            if (arr is None and not doc.implicit_parents) or (
                arr and arr.kind != "array" and not hollow
            ):
                raise ConfigFileError(f"{'.'.join(entry.path)} is not an array", path=path)
            if arr is not None and _find_item(arr.items, value_hash(entry.value)) is not None:
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
            previous = doc.value_text(target)
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
    return Reconciled(doc.text, ops, outcomes, kept, tuned.notes)


def ours_exactly(ops: list[ConfigOp], entries: list[ConfigEntry]) -> bool:
    """Does a foreign record hold exactly the ops this run would record for ``entries`` (one
    per entry, with our own label, marker and value, and the containers above them) and
    nothing of a user's tuning or a replaced value? Then it is what msd-install writes, and
    believing it gives nothing away: every marker and value in it is this plan's own."""
    allowed = {"op", "path", "sha256", "label", "key", "marker", "interior", "value"}
    parents = {(*e.path[:depth], e.path[depth]) for e in entries for depth in range(len(e.path))}
    leaves: list[ConfigOp] = []
    for op in ops:
        if not set(op) <= allowed or not isinstance(op.get("interior", ""), str):
            return False
        if op.get("label") == "container":
            where = (*op["path"], op.get("key"))
            empty = value_hash({}), value_hash([])
            if op["op"] != "member" or where not in parents or op["sha256"] not in empty:
                return False
            if "marker" in op or "value" in op:
                return False
        else:
            leaves.append(op)
    if len(leaves) != len(entries):
        return False
    for op, entry in zip(leaves, entries, strict=True):
        want = _op("item" if entry.kind == ITEM else "member", entry, None)
        if {k: v for k, v in op.items() if k != "interior"} != want:
            return False
    return True


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
    op["value"] = entry.value  # the base of a later three-way decision (tuning.merge)
    return op


def _ensure_containers(
    file: Path, doc: ConfigDoc, entry: ConfigEntry, ops: list[ConfigOp]
) -> ConfigDoc:
    """Create missing parent objects (and the array of an ITEM), recording each as ours."""
    if doc.implicit_parents:
        return doc
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
