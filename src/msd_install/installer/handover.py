"""Config structure shared by MSD Core and packs in one root, handed over on uninstall.

MSD Core and each pack (``--payload``) keep their own manifest in a root, and may add entries
to the same config file (hooks in ``settings.json``). Whichever came first created the file
and the containers (``hooks``, ``hooks.PreToolUse``), recording them as its own. When it is
uninstalled first, those containers still hold the other's entries and stay; without a hand
over, the last uninstall would then leave them behind empty (``{"hooks": {}}``), or leave a
file the first one created. So the uninstall gives what it leaves in place to a sibling
manifest that has entries in the same file (a manifest this user's msd-install wrote, never a
foreign one): the container ops go first in its list (undone last, once empty), and the file
counts as created by it. Install + uninstall in any order then gives back the original bytes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import MsdError
from . import manifest
from .configdoc import ConfigDoc, fmt_of
from .configedit import invert, open_doc
from .fs import read_file
from .manifest import ConfigOp
from .manifestcheck import MANIFEST_NAME, PACK_MANIFEST
from .plan import Bounds
from .registry import Registry
from .valuehash import value_hash


def heirs(
    found: manifest.Manifest, bounds: Callable[[], Bounds], registry: Registry
) -> list[manifest.Manifest]:
    """The sibling manifests of ``found`` changed to take over the structure its uninstall
    leaves in place; ``found`` itself no longer lists what it handed over."""
    if not found.trusted or not found.config:
        return []
    siblings = _siblings(found, bounds, registry)
    changed: dict[str, manifest.Manifest] = {}
    for record in found.config:
        path = found.abs(record["file"])
        raw = read_file(path)
        if raw is None:
            continue
        try:
            doc, _kept = invert(open_doc(path, raw, record["fmt"]), record["ops"])
        except (ValueError, MsdError):
            continue  # the uninstall itself reports it
        if fmt_of(record["fmt"]).is_empty(doc.text) and record["created"]:
            continue  # the file goes: nothing to hand over
        left = [op for op in record["ops"] if _structure(op, doc)]
        left += [p for op in record["ops"] if (p := _implied_parents(op, doc)) is not None]
        if not left and not record["created"]:
            continue
        holders = [s for s in siblings if s.config_for(path) is not None]
        if not holders:
            continue  # what holds the containers is the user's own: they stay, as before
        given: dict[str, list[ConfigOp]] = {}
        for op in left:
            heir = _heir(op, holders, path)
            given.setdefault(heir.name, []).append(op)
        # the file goes with the last of them: whoever holds its outermost container
        outer = min(left, key=lambda op: len(op["path"]), default=None)
        creator = _heir(outer, holders, path) if outer is not None else holders[0]
        for heir in holders:
            if heir.name not in given and heir is not creator:
                continue
            own = heir.config_for(path)
            assert own is not None
            own["ops"] = _ordered([*given.get(heir.name, []), *own["ops"]])
            if heir is creator:
                own["created"] = own["created"] or record["created"]
            changed[heir.name] = heir
        record["ops"] = [op for op in record["ops"] if op not in left]
        record["created"] = False
    return list(changed.values())


def _heir(op: ConfigOp, holders: list[manifest.Manifest], path: Path) -> manifest.Manifest:
    """The sibling that takes ``op`` over: the first whose own entries live inside the
    container ``op`` makes (it empties it, so its uninstall can remove it), else the first
    with entries in the file."""
    if op["op"] == "member" and op.get("label") == "container":
        inside = (*op["path"], op["key"])
        for sibling in holders:
            own = sibling.config_for(path)
            assert own is not None
            if any(_within(mine, inside) for mine in own["ops"]):
                return sibling
    return holders[0]


def _within(op: ConfigOp, container: tuple[str, ...]) -> bool:
    """``op`` is an entry (not a container) somewhere inside ``container``."""
    if op.get("label") == "container":
        return False
    at = tuple(op["path"]) if op["op"] == "item" else (*op["path"], op["key"])
    return len(at) > len(container) - (op["op"] == "item") and at[: len(container)] == container


def _ordered(ops: list[ConfigOp]) -> list[ConfigOp]:
    """Containers first, outer before inner, then the entries: undone newest first, every
    entry goes before the containers, and an inner container before the one holding it (an
    outer one is removed only once it is empty)."""
    containers = [op for op in ops if op["op"] == "member" and op.get("label") == "container"]
    containers.sort(key=lambda op: len(op["path"]))
    return [*containers, *(op for op in ops if op not in containers)]


def _structure(op: ConfigOp, undone: ConfigDoc) -> bool:
    """An op of the file's structure that the sibling still needs once ours are undone: a
    container still holding something, or a member without a marker of ours (the
    ``"version": 1`` of a hooks file), which is no entry of anyone's in particular."""
    if op["op"] != "member" or op.get("marker"):
        return False
    if op.get("label") == "container":
        return undone.node((*op["path"], op["key"])) is not None
    return True


_YAML_KEY_LINE = re.compile(r" *[^\s:#-][^:#]*:[ \t]*")


def _implied_parents(op: ConfigOp, undone: ConfigDoc) -> ConfigOp | None:
    """YAML creates the parents of an entry with it (``hooks:`` / ``  pre_tool_call:`` lines
    above the item, in the inserted text the op records), not as container ops. When they
    stay because a sibling's entries are under them, they become a container op of the
    sibling's: the topmost of them, as it will be once every entry under it is gone (the
    keys down to a null), removed when it hashes so."""
    interior = op.get("interior")
    if not interior or op["op"] == "replace":
        return None
    try:
        inserted = str(json.loads(interior)[0])
    except (ValueError, TypeError, IndexError, KeyError):
        return None  # a JSON interior: whitespace, never parents
    path = list(op["path"]) if op["op"] == "item" else [*op["path"], op["key"]]
    lines = inserted.split("\n")
    made = 0
    while made < len(path) and _YAML_KEY_LINE.fullmatch(lines[made]):
        made += 1
    if op["op"] == "member" and made and _key_of(lines[made - 1]) == op["key"]:
        made -= 1  # the member's own ``key:`` line (a block value): an entry, not a parent
    made = min(made, len(path) - (0 if op["op"] == "item" else 1))
    if not made:
        return None
    top = len(path) - made - (0 if op["op"] == "item" else 1)
    if undone.node(tuple(path[: top + 1])) is None:
        return None
    empty: Any = None
    for key in reversed(path[top + 1 : len(path) - (0 if op["op"] == "item" else 1)]):
        empty = {key: empty}
    return {
        "op": "member",
        "path": path[:top],
        "key": path[top],
        "sha256": value_hash(empty),
        "label": "container",
    }


def _key_of(line: str) -> str:
    return line.strip().removesuffix(":").strip().strip("\"'")


def _siblings(
    found: manifest.Manifest, bounds: Callable[[], Bounds], registry: Registry
) -> list[manifest.Manifest]:
    """MSD Core's manifest first, then the packs', each only if this user's msd wrote it."""
    try:
        names = sorted(p.name for p in found.root.iterdir())
    except OSError:
        return []
    names = [n for n in names if PACK_MANIFEST.fullmatch(n)]
    out = []
    for name in [MANIFEST_NAME, *names]:
        if name == found.name or not (found.root / name).is_file():
            continue
        try:
            sibling = manifest.load(found.root, bounds, registry, name)
        except MsdError:
            continue
        if sibling is not None and sibling.trusted:
            out.append(sibling)
    return out
