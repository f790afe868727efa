"""The baseline scan (``--adopt``): a new manifest for a root whose manifest is missing or
damaged, built from what is on disk. The documented way out of a damaged manifest.

Each path in the parts of the root msd installs into (its top-level folders and files) is
classified: **ours** (a path msd ships, with the exact bytes of this version's rendering or
the content hash of a released version, ``migrations/released.json``), **yours** (a path
msd ships, with other content) or **unknown** (not a path msd ships). Only ours is adopted;
yours and unknown files are never touched, so uninstall will never remove them. Our entries
in config files are adopted where the file holds exactly this version's value. A damaged
manifest is moved aside (``msd-file-manifest.json.damaged``, never deleted); a valid one is
left alone (there is nothing to rebuild).

What the damaged manifest still knows is not thrown away. Its complete top-level members are
salvaged (a truncated file loses only its tail) and each record that passes the manifest's
own rules (``manifestcheck``) is carried over where it still describes the disk: a file's
``adopted`` flag (yours before install: never removed), a backup of yours kept under
``msd-backups/`` for one of msd's files, and, only from a manifest the user's registry vouches
for (``trusted``), the value of yours a config entry of msd's replaced (``previous``) and a
symlink of yours to re-create. A damaged manifest is untrusted input otherwise (it may have
come with a cloned project): ``Manifest.restrict``'s rules. Files under ``msd-backups/`` no
carried record names are reported, never silently left.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import MsdError
from . import pristine
from .configdoc import ConfigDoc, fmt_of, open_doc
from .configedit import invert
from .confine import read_plain
from .fs import read_file, sha256_bytes
from .manifest import BackupRecord, ConfigOp, ConfigRecord, Manifest, MigrationRecord
from .manifestcheck import (
    BACKUPS_DIR,
    JOURNAL_DIR,
    MANIFEST_NAME,
    MAX_ENTRIES,
    MAX_OPS,
    PATCHES_DIR,
    problem,
)
from .plan import ITEM, MEMBER, Bounds, ConfigEntry, Plan
from .registry import Registry
from .report import Result
from .steps import Step, Write
from .valuehash import has_string, value_hash

KnownFiles = Mapping[str, frozenset[str]]  # rel -> sha256 of every released rendering
ASIDE = f"{MANIFEST_NAME}.damaged"
ADOPTED = "adopted"  # the manifest's installer_version: which version wrote the files is unknown
_SKIP = {BACKUPS_DIR, PATCHES_DIR, JOURNAL_DIR, "__pycache__"}


def aside_path(root: Path) -> Path:
    """Where a damaged manifest goes: a name nothing else uses (``.damaged``, ``.damaged-2``)."""
    path, n = root / ASIDE, 1
    while os.path.lexists(path):
        n += 1
        path = root / f"{ASIDE}-{n}"
    return path


def vouched(registry: Registry, root: Path, damaged: bytes | None, local: bool) -> bool:
    """Does the user's registry vouch for a damaged manifest? Its exact bytes are the ones
    recorded, or (outside a project, where nothing comes with a clone) this user's
    msd-install wrote a manifest in this root and the damage came after."""
    if damaged is None:
        return False
    try:
        recorded = registry.digest(root)
    except MsdError:
        return False
    return recorded is not None and (recorded == sha256_bytes(damaged) or not local)


def resolve_adopt(
    plan: Plan,
    interpreter: str,
    known: KnownFiles,
    damaged: bytes | None,
    result: Result,
    applied: list[MigrationRecord],
    trusted: bool = False,
) -> tuple[list[Step], Manifest]:
    """The steps of an adoption (a damaged manifest set aside, the new one written) and the
    new manifest. Reads only. ``trusted``: the user's registry vouches for ``damaged``."""
    root = plan.root
    new = Manifest(root=root, runtime=plan.runtime, scope=plan.scope, interpreter=interpreter)
    # the layout of whatever version put these files here is not known: every migration is
    # pending for the next install (each one only moves what it finds)
    new.installer_version = ADOPTED
    new.migrations = list(applied)
    steps: list[Step] = []
    if damaged is not None:
        aside = aside_path(root)
        steps.append(Write(aside, damaged, 0o600))
        result.add("backup", aside, "the damaged manifest, kept for you to inspect")
    current = {op.path.relative_to(root).as_posix(): op for op in plan.files}
    shipped = set(current) | set(known)
    old = _salvage(damaged, plan, plan.bounds(), shipped)
    theirs: set[str] = set()
    for rel in _walk(root, shipped):
        path = root / rel
        if rel not in shipped:  # never read: a user's own large assets cost nothing
            theirs.add(rel)
            result.add("skip", path, "unknown: not a file msd ships, kept")
            continue
        data = read_plain(path)
        if data is not None and (
            (rel in current and data == current[rel].content)
            or sha256_bytes(data) in known.get(rel, frozenset())
        ):
            mode = path.stat().st_mode & 0o7777
            new.files[rel] = {"sha256": sha256_bytes(data), "mode": mode}
            if old.files.get(rel, {}).get("adopted") is True:  # yours before install
                new.files[rel]["adopted"] = True
                result.add("adopt", path, "yours before install, with msd's bytes: never removed")
            else:
                result.add("adopt", path, "ours")
        else:
            theirs.add(rel)
            result.add("skip", path, "yours: a path msd ships, with other content; kept")
    made = {d.relative_to(root).as_posix() for d in plan.dirs if d.is_relative_to(root)}
    new.dirs = _our_dirs(root, set(new.files) | {f"{d}/_" for d in made}, theirs)
    new.state = [s.relative_to(root).as_posix() for s in plan.state_files]
    new.backups = _backups(root, old, new, trusted, result)
    for file in plan.config_files():
        entries = [e for e in plan.entries if e.file == file]
        replaced = _replaced(old, new.rel(file), trusted, result, file)
        record = _adopt_config(file, entries, result, replaced)
        if record is not None:
            record["file"] = new.rel(file)
            new.config.append(record)
    store = read_plain(root / pristine.STORE_NAME)
    if store is not None and pristine.blobs(pristine.unpack(store)):  # msd's bookkeeping
        new.pristine = sha256_bytes(store)  # so that uninstall takes it away too
    steps.append(Write(new.path, new.to_bytes(), 0o644, barrier=True))
    return steps, new


def _salvage(damaged: bytes | None, plan: Plan, bounds: Bounds, shipped: set[str]) -> Manifest:
    """The records of the damaged manifest that pass its own rules, each checked alone (an
    empty manifest when nothing can be read). Only files msd ships are looked at, and no more
    records than a valid manifest may hold: a hostile one costs no more than a real one."""
    out = Manifest(root=plan.root, runtime=plan.runtime, scope=plan.scope)
    doc = _members(damaged)

    def ok(part: dict[str, Any]) -> bool:
        base = {"runtime": plan.runtime, "scope": plan.scope}
        return problem({**base, **part}, plan.root, bounds) is None

    files = doc.get("files")
    if isinstance(files, dict):
        out.files = {
            rel: rec for rel, rec in files.items() if rel in shipped and ok({"files": {rel: rec}})
        }
    backups = doc.get("backups")
    if isinstance(backups, list) and len(backups) <= MAX_ENTRIES:
        seen: set[str] = set()
        for rec in backups:
            path = rec.get("path") if isinstance(rec, dict) else None
            if not isinstance(path, str) or path in seen or path not in out.files:
                continue
            if ok({"files": {path: out.files[path]}, "backups": [rec]}):
                out.backups.append(rec)
                seen.add(path)
    config = doc.get("config")
    if isinstance(config, list) and len(config) <= MAX_ENTRIES:
        for rec in config:
            ops_in = rec.get("ops") if isinstance(rec, dict) else None
            if not isinstance(ops_in, list) or len(ops_in) > MAX_OPS:
                continue
            head: dict[str, Any] = {k: rec.get(k) for k in ("file", "fmt", "created")}
            ops = [op for op in rec["ops"] if ok({"config": [{**head, "ops": [op]}]})]
            if ops and ok({"config": [{**head, "ops": []}]}):
                out.config.append(
                    ConfigRecord(
                        file=head["file"], fmt=head["fmt"], created=head["created"], ops=ops
                    )
                )
    return out


def _members(damaged: bytes | None) -> dict[str, Any]:
    """The complete top-level members of a JSON object, read up to the first damage (a
    truncated or half-written manifest keeps what comes before the cut)."""
    if damaged is None:
        return {}
    try:
        text = damaged.decode("utf-8", errors="replace")
        whole = json.loads(text)
        return whole if isinstance(whole, dict) else {}
    except (ValueError, RecursionError):
        pass
    decoder = json.JSONDecoder()
    out: dict[str, Any] = {}
    i = _skip_ws(text, 0)
    if not text.startswith("{", i):
        return {}
    i += 1
    try:
        while True:
            i = _skip_ws(text, i)
            key, i = decoder.raw_decode(text, i)
            i = _skip_ws(text, i)
            if not isinstance(key, str) or not text.startswith(":", i):
                return out
            value, i = decoder.raw_decode(text, _skip_ws(text, i + 1))
            out[key] = value
            i = _skip_ws(text, i)
            if not text.startswith(",", i):
                return out
            i += 1
    except (ValueError, RecursionError):
        return out


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def _backups(
    root: Path, old: Manifest, new: Manifest, trusted: bool, result: Result
) -> list[BackupRecord]:
    """The damaged manifest's backups of yours that still belong to one of msd's files (as
    found on disk) and are kept as plain files under ``msd-backups/``; every other file there
    is named, so that it is never silently left behind."""
    out: list[BackupRecord] = []
    named: set[str] = set()
    for rec in old.backups:
        rel = rec["path"]
        if rec.get("link"):
            if trusted and rel in new.files:
                out.append(rec)
                result.add(
                    "adopt", root / rel, "the symlink of yours it replaced, put back on uninstall"
                )
            else:
                why = (
                    "msd no longer owns the file" if trusted else "the manifest is not vouched for"
                )
                result.notes.append(
                    f"{rel} was a symlink to {rec['link']!r}: not re-created ({why})"
                )
            continue
        backup = root / rec["backup"]
        if rel not in new.files or read_plain(backup) is None or backup.is_symlink():
            continue
        if not trusted and "mode" in rec:
            rec = {**rec, "mode": rec["mode"] & 0o777}  # never setuid from here
        out.append(rec)
        named.add(rec["backup"])
        result.add("adopt", backup, f"yours, restored on uninstall: {rel}")
    for rel in _walk(root, {f"{BACKUPS_DIR}/_"}):
        if rel not in named:
            result.add(
                "skip",
                root / rel,
                "yours: kept by an earlier --force, not put back; move it yourself",
            )
    return out


def _replaced(
    old: Manifest, rel: str, trusted: bool, result: Result, file: Path
) -> dict[tuple[tuple[str, ...], str], ConfigOp]:
    """The damaged manifest's ``replace`` ops in config file ``rel`` (by path and key): the
    value of yours each one replaced, put back on uninstall, from a trusted manifest only."""
    out: dict[tuple[tuple[str, ...], str], ConfigOp] = {}
    for rec in old.config:
        if rec["file"] != rel:
            continue
        for op in rec["ops"]:
            if op["op"] != "replace":
                continue
            if trusted:
                out[(tuple(op["path"]), op["key"])] = op
            else:
                label = op.get("label", op["key"])
                result.notes.append(
                    f"{file}: {label}: the value msd replaced is not put back "
                    "(the damaged manifest is not vouched for by your registry)"
                )
    return out


def _walk(root: Path, shipped: set[str]) -> list[str]:
    """Every file in the parts of ``root`` msd installs into (never following a link out)."""
    tops = {rel.split("/")[0] for rel in shipped}
    out: list[str] = []
    for top in sorted(tops):
        path = root / top
        if path.is_symlink() or not path.is_dir():
            if os.path.lexists(path):
                out.append(top)
            continue
        for dirpath, dirnames, filenames in os.walk(path):
            dirnames[:] = sorted(d for d in dirnames if d not in _SKIP)
            base = Path(dirpath).relative_to(root).as_posix()
            out += [f"{base}/{name}" for name in sorted(filenames)]
            out += [f"{base}/{d}" for d in dirnames if (Path(dirpath) / d).is_symlink()]
    return out


def _our_dirs(root: Path, ours: set[str], theirs: set[str]) -> list[str]:
    """Folders holding only files of ours (below the root): uninstall removes them once empty."""
    holding = {str(Path(rel).parent.as_posix()) for rel in ours}
    dirs: set[str] = set()
    for rel in holding:
        while rel not in (".", ""):
            dirs.add(rel)
            rel = Path(rel).parent.as_posix()
    return sorted(d for d in dirs if not any(t.startswith(d + "/") for t in theirs))


def _adopt_config(
    file: Path,
    entries: list[ConfigEntry],
    result: Result,
    replaced: dict[tuple[tuple[str, ...], str], ConfigOp] | None = None,
) -> ConfigRecord | None:
    """Our entries in ``file`` holding exactly this version's value, as recorded ops (with the
    containers that hold nothing else, and ``created`` when nothing else is in the file)."""
    raw = read_file(file)
    if raw is None or not entries:
        return None
    fmt = entries[0].fmt
    doc = open_doc(file, raw, fmt)
    ops: list[ConfigOp] = []
    for entry in entries:
        want = value_hash(entry.value)
        there = _ours_in(doc, entry)
        if there is None:
            continue
        op: ConfigOp = {
            "op": "item" if entry.kind == ITEM else "member",
            "path": list(entry.path),
            "sha256": there,
            "label": entry.label or entry.ident,
            "value": entry.value,
        }
        if there != want:  # the user's tuning of it: kept, and recorded as such
            op["ours"] = want
        if entry.kind == MEMBER:
            op["key"] = entry.key
            was = (replaced or {}).get((tuple(entry.path), entry.key))
            if was is not None and was["sha256"] == there:  # still the value msd put there
                op["op"] = "replace"
                op["previous"] = was["previous"]
        if entry.marker:
            op["marker"] = entry.marker
        ops.append(op)
        tuned = " (with your changes)" if there != want else ""
        result.add("adopt", file, f"{op['label']}: ours{tuned}")
    if not ops:
        return None
    containers = _containers(doc, ops)
    left, _kept = invert(doc, [*containers, *ops])
    created = fmt_of(fmt).is_empty(left.text)
    return ConfigRecord(file="", fmt=fmt, created=created, ops=[*containers, *ops])


def _ours_in(doc: ConfigDoc, entry: ConfigEntry) -> str | None:
    """The hash of our entry as the file holds it: this version's exact value, or a value of
    the same shape holding our marker (the command naming our script) where the user changed
    a leaf (a timeout). One the user built their own hooks into is not adopted: uninstall
    would take theirs away with it."""
    want = value_hash(entry.value)

    def ours(value: Any) -> bool:
        return bool(entry.marker) and has_string(value, entry.marker) and _shape(value, entry.value)

    if entry.kind == ITEM:
        arr = doc.node(entry.path)
        items = arr.items if arr is not None and arr.kind == "array" else []
        if any(value_hash(item.value) == want for item in items):
            return want
        marked = [value_hash(i.value) for i in items if ours(i.value)]
        return marked[0] if len(marked) == 1 else None
    node = doc.node((*entry.path, entry.key))
    if node is None:
        return None
    there = value_hash(node.value)
    return there if there == want or ours(node.value) else None


def _shape(a: Any, b: Any) -> bool:
    """Same keys and list lengths all the way down (scalars may differ)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_shape(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_shape(x, y) for x, y in zip(a, b, strict=True))
    return not isinstance(a, (dict, list)) and not isinstance(b, (dict, list))


def _containers(doc: ConfigDoc, ops: list[ConfigOp]) -> list[ConfigOp]:
    """The objects and arrays above our entries that would be left empty without them:
    recorded first, so that uninstall (newest first) removes them after the entries."""
    left, _kept = invert(doc, ops)
    paths = sorted({tuple(op["path"][:n]) for op in ops for n in range(1, len(op["path"]) + 1)})
    out: list[ConfigOp] = []
    for path in paths:  # outermost first: inverted last
        node = left.node(path)
        if node is None or not _hollow(node.value):
            continue
        empty: Any = [] if isinstance(node.value, list) else {}
        out.append(
            {
                "op": "member",
                "path": list(path[:-1]),
                "key": str(path[-1]),
                "sha256": value_hash(empty),
                "label": "container",
            }
        )
    return out


def _hollow(value: Any) -> bool:
    """An empty list, or an object holding nothing but hollow containers."""
    if isinstance(value, list):
        return not value
    if isinstance(value, dict):
        return all(isinstance(v, (dict, list)) and _hollow(v) for v in value.values())
    return False
