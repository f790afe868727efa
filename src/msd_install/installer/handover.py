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

from collections.abc import Callable

from ..errors import MsdError
from . import manifest
from .configdoc import ConfigDoc, fmt_of
from .configedit import invert, open_doc
from .fs import read_file
from .manifest import ConfigOp
from .manifestcheck import MANIFEST_NAME, PACK_MANIFEST
from .plan import Bounds
from .registry import Registry


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
        if doc.text == fmt_of(record["fmt"]).empty and record["created"]:
            continue  # the file goes: nothing to hand over
        left = [op for op in record["ops"] if _structure(op, doc)]
        if not left and not record["created"]:
            continue
        heir = next((s for s in siblings if s.config_for(path) is not None), None)
        if heir is None:
            continue  # what holds the containers is the user's own: they stay, as before
        own = heir.config_for(path)
        assert own is not None
        own["ops"] = [*left, *own["ops"]]
        own["created"] = own["created"] or record["created"]
        record["ops"] = [op for op in record["ops"] if op not in left]
        record["created"] = False
        changed[heir.name] = heir
    return list(changed.values())


def _structure(op: ConfigOp, undone: ConfigDoc) -> bool:
    """An op of the file's structure that the sibling still needs once ours are undone: a
    container still holding something, or a member without a marker of ours (the
    ``"version": 1`` of a hooks file), which is no entry of anyone's in particular."""
    if op["op"] != "member" or op.get("marker"):
        return False
    if op.get("label") == "container":
        return undone.node((*op["path"], op["key"])) is not None
    return True


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
