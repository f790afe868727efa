"""A pack installs no path another manifest of the same root lists (MSD Core's or a pack's).

Names are namespaced by prefix (``<pack>-<name>``), and a prefix is not unique: pack ``acme``'s
``commands/git/commit.md`` and pack ``acme-git``'s ``commands/commit.md`` both become
``acme-git-commit``. Whichever came second would take the first one's file (``--force``
overwrites what it finds), and the uninstalls then leave one of them behind. So a pack's
install is refused, before anything is written, when one of its paths is in another manifest
of the root. ``--force`` does not change that: it is for the user's own files, never for what
another install of msd owns.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..errors import UsageError
from . import manifest
from .manifestcheck import MANIFEST_MAX_BYTES, MANIFEST_NAME, PACK_MANIFEST, STORE_NAME
from .plan import Plan
from .report import Result


def refuse_claimed(plan: Plan) -> None:
    """Raise ``UsageError`` naming both owners and the path when ``plan`` (a pack's) would
    install a file another manifest of its root lists. The others are read as they are, not
    validated with the pack's bounds (MSD Core's lists state files a pack's may not): a
    manifest is never skipped for being another owner's."""
    if not plan.namespace:
        return
    own = manifest.manifest_name(plan.namespace)
    wanted = {op.path for op in plan.files}
    for name in _manifests(plan.root):
        if name == own:
            continue
        for rel in sorted(_listed(_loose(plan.root / name))):
            path = Path(os.path.normpath(plan.root / rel))
            if path in wanted:
                raise UsageError(
                    f"pack {plan.namespace} would install this file, which {_owner(name)} "
                    f"installed ({name}): rename the pack or its file; nothing was changed",
                    path=path,
                )


def _listed(doc: dict[str, Any]) -> list[str]:
    """The files and state files a manifest (read as it is) names."""
    files, state = doc.get("files"), doc.get("state")
    listed = [
        *(files if isinstance(files, dict) else ()),
        *(state if isinstance(state, list) else ()),
    ]
    return [rel for rel in listed if isinstance(rel, str)]


def _manifests(root: Path) -> list[str]:
    try:
        names = sorted(p.name for p in root.iterdir())
    except OSError:
        return []
    return [n for n in names if n == MANIFEST_NAME or PACK_MANIFEST.fullmatch(n)]


def _owner(name: str) -> str:
    if name == MANIFEST_NAME:
        return "MSD Core"
    return f"pack {name.removeprefix('msd-file-manifest.').removesuffix('.json')}"


def spare_others(found: manifest.Manifest, result: Result) -> None:
    """Leave out of a pack's uninstall every file and config entry another manifest of its
    root lists (MSD Core's or another pack's), each reported as skipped: a pack's manifest,
    planted or damaged, never takes what another install owns. The others are read as they
    are, unvalidated: whatever one of them names is kept."""
    if found.name == MANIFEST_NAME:
        return
    owners: dict[str, str] = {}
    entries: dict[tuple[str, str], str] = {}
    for name in _manifests(found.root):
        if name == found.name:
            continue
        doc = _loose(found.root / name)
        for rel in _listed(doc):
            owners.setdefault(found.rel(found.abs(rel)), name)
        if found.pristine and doc.get("pristine") == found.pristine:
            found.pristine = ""  # the store is the other's: it stays
            store = found.root / STORE_NAME
            result.add("skip", store, f"owned by {_owner(name)} ({name}): kept")
        config = doc.get("config")
        for record in config if isinstance(config, list) else ():
            if not isinstance(record, dict) or not isinstance(record.get("file"), str):
                continue
            ops = record.get("ops")
            for op in ops if isinstance(ops, list) else ():
                entries.setdefault((found.rel(found.abs(record["file"])), _key(op)), name)
    for rel in sorted(found.files):
        owner = owners.get(rel)
        if owner is not None:
            del found.files[rel]
            result.add("skip", found.abs(rel), f"owned by {_owner(owner)} ({owner}): kept")
    for rel in [r for r in found.state if found.rel(found.abs(r)) in owners]:
        found.state.remove(rel)
        owner = owners[found.rel(found.abs(rel))]
        result.add("skip", found.abs(rel), f"owned by {_owner(owner)} ({owner}): kept")
    for record in found.config:
        kept: list[manifest.ConfigOp] = []
        for op in record["ops"]:
            owner = entries.get((record["file"], _key(op)))
            if owner is None:
                kept.append(op)
            else:
                label = op.get("label") or ".".join(op.get("path", []))
                result.add(
                    "skip",
                    found.abs(record["file"]),
                    f"{label}: owned by {_owner(owner)} ({owner}): kept",
                )
        if len(kept) != len(record["ops"]) or record["file"] in owners:
            record["created"] = False  # the file holds another's entries: it stays
        record["ops"] = kept


def _loose(path: Path) -> dict[str, Any]:
    """Another manifest of the root, read loosely (anything unreadable is no claim): never
    through a link or from a FIFO, at most a manifest's bound, nesting within the parser's."""
    from .dirfd import Spot, read_at

    try:
        raw = read_at(Spot(None, str(path), path), MANIFEST_MAX_BYTES)
        doc = json.loads(raw) if raw is not None else {}
    except (OSError, ValueError, RecursionError):
        return {}
    return doc if isinstance(doc, dict) else {}


def _key(op: object) -> str:
    """An entry as two manifests would both record it: where it is and what it hashes to."""
    if not isinstance(op, dict):
        return ""
    return json.dumps([op.get(k) for k in ("op", "path", "key", "sha256")])
