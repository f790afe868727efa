"""The runner of installer migrations (``migration`` says what one is).

The engine calls ``migrate`` with the root's manifest before resolving an install: the plans
of the migrations the manifest has not recorded become steps, run inside the install's
transaction and journal (a rollback undoes them with the rest), and a migrated copy of the
manifest, the base the install is then resolved against. The new manifest records every
migration of this version as applied.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .configdoc import ConfigDoc
from .configedit import open_doc, refused
from .confine import leads_out, read_plain
from .fs import read_file, sha256_bytes
from .manifest import ConfigOp, Manifest
from .manifest import MigrationRecord as Applied
from .pending import pending, records
from .report import Result
from .steps import MakeDir, Remove, RemoveDirIfEmpty, Step, Write, missing_dirs
from .valuehash import has_string, value_hash

if TYPE_CHECKING:
    from .migration import Migration, Move, Op, RemoveIfOurs, RewriteValue

__all__ = ["Migrated", "migrate"]


@dataclass
class Migrated:
    manifest: Manifest  # the old manifest as the migrations leave it (the base of resolution)
    steps: list[Step] = field(default_factory=list)
    applied: list[Applied] = field(default_factory=list)  # what the new manifest records


def migrate(
    old: Manifest | None,
    migrations: Sequence[Migration],
    result: Result,
    project: Path | None = None,
) -> Migrated:
    """Plan every pending migration of ``old`` into steps and a migrated copy of it (pure)."""
    if old is None:  # a fresh install is already in the newest layout
        return Migrated(Manifest(Path("/"), "", ""), applied=records(migrations))
    out = Migrated(copy.deepcopy(old), applied=list(old.migrations))
    if not old.trusted:  # a foreign manifest has lost its markers: nothing to migrate with
        return out
    todo = pending(old, migrations)
    run = _Run(out.manifest, result, project)
    if todo:  # only then the operations' classes (none is created on a run with none)
        from .migration import View

        for migration in todo:
            for op in migration.plan(View(run.manifest, project)):
                run.apply(op, migration.id)
    out.steps = run.finish()
    known = {(a["id"], a["version"]) for a in out.applied}
    out.applied += [a for a in records(migrations) if (a["id"], a["version"]) not in known]
    return out


class _Run:
    def __init__(self, manifest: Manifest, result: Result, fence: Path | None = None) -> None:
        self.manifest = manifest
        self.result = result
        # a --local run's project: nothing is moved, removed or rewritten through a symlink
        # that leads out of it (resolution then meets the link as it does without a migration)
        self.fence = fence
        self.steps: list[Step] = []
        self.planned: set[Path] = set()
        self.emptied: set[Path] = set()  # folders a move may leave empty
        # what the moves of this run will have put where, and taken away (the steps run later:
        # a migration after another sees the tree as the earlier one leaves it)
        self.moved: dict[Path, tuple[bytes, int]] = {}
        self.gone: set[Path] = set()
        self.docs: dict[str, tuple[bytes, ConfigDoc]] = {}  # config files edited, by rel

    def apply(self, op: Op, why: str) -> None:
        from .migration import Move, RemoveIfOurs, RenameConfigEntry

        if isinstance(op, Move):
            self._move(op, why)
        elif isinstance(op, RemoveIfOurs):
            self._remove(op, why)
        elif isinstance(op, RenameConfigEntry):
            for _rec, found in self._ops(op.old_label):
                found["label"] = op.new_label
        else:
            self._rewrite(op, why)

    def _escapes(self, path: Path, why: str, what: str) -> bool:
        """Does ``path`` lead out of the project through a symlink? If so, it is named."""
        if not leads_out(self.fence, path):
            return False
        self.result.add("skip", path, f"{why}: not {what}, it leads out of the project (a symlink)")
        return True

    def _ours(self, rel: str) -> bytes | None:
        """The bytes at ``rel`` when the manifest records them as ours, unchanged."""
        record = self.manifest.files.get(rel)
        path = self.manifest.abs(rel)
        earlier = self.moved.get(path)
        data = earlier[0] if earlier else None if path in self.gone else read_plain(path)
        if record is None or data is None or record.get("adopted"):
            return None
        return data if sha256_bytes(data) == record["sha256"] else None

    def _move(self, op: Move, why: str) -> None:
        m = self.manifest
        src, dst = m.abs(op.src), m.abs(op.dst)
        is_state = op.src in m.state
        if op.src not in m.files and not is_state:
            return
        record = m.files.get(op.src)
        if not is_state and (record is None or record.get("adopted")):
            return  # a file that was the user's before msd-install: theirs, where it is
        if self._escapes(src, why, "moved") or self._escapes(dst, why, "moved"):
            return
        # a file an earlier migration of this run moved here is not on disk yet: its bytes
        earlier = self.moved.get(src)
        data = earlier[0] if earlier else read_plain(src)
        if data is None:  # a link or a FIFO of the user's took its place: theirs, kept
            return
        # a file the user changed moves too, their bytes as they are: the install then finds
        # it changed at its new path and saves it as a patch set (the bytes msd installed as
        # its base, from the pristine store), for --reapply to merge into the new version
        edited = not is_state and record is not None and sha256_bytes(data) != record["sha256"]
        taken = (dst.exists() or dst.is_symlink()) and dst not in self.gone
        if taken or dst in self.moved or any(b["path"] == op.src for b in m.backups):
            self.result.add("skip", src, f"{why}: not moved, {op.dst} is taken")
            return
        for directory in missing_dirs(dst, self.planned):
            self.planned.add(directory)
            self.steps.append(MakeDir(directory))
            m.dirs.append(m.rel(directory))
        mode = earlier[1] if earlier else src.stat().st_mode & 0o7777
        self.steps += [Write(dst, data, mode), Remove(src)]
        self.moved.pop(src, None)
        self.moved[dst] = (data, mode)
        self.gone.add(src)
        self.gone.discard(dst)
        if is_state:
            m.state = [op.dst if s == op.src else s for s in m.state]
        else:
            m.files[op.dst] = m.files.pop(op.src)
        self.emptied.update(p for p in src.parents if p.is_relative_to(m.root) and p != m.root)
        mine = ", with your edits" if edited else ""
        self.result.add("migrate", dst, f"{why}: moved from {op.src}{mine}")

    def _remove(self, op: RemoveIfOurs, why: str) -> None:
        path = self.manifest.abs(op.rel)
        if self._ours(op.rel) is None or self._escapes(path, why, "removed"):
            return
        self.steps.append(Remove(path))
        del self.manifest.files[op.rel]
        root = self.manifest.root
        self.emptied.update(p for p in path.parents if p.is_relative_to(root) and p != root)
        self.result.add("migrate", path, f"{why}: removed, no longer part of msd")

    def _ops(self, label: str) -> Iterator[tuple[str, ConfigOp]]:
        for rec in self.manifest.config:
            for found in rec["ops"]:
                if found.get("label") == label:
                    yield rec["file"], found

    def _rewrite(self, op: RewriteValue, why: str) -> None:
        for rel, found in self._ops(op.label):
            path = self.manifest.abs(rel)
            if rel not in self.docs and self._escapes(path, why, "rewritten"):
                continue
            if rel not in self.docs:
                raw = read_file(path)
                if raw is None:
                    continue
                fmt = next(r["fmt"] for r in self.manifest.config if r["file"] == rel)
                self.docs[rel] = (raw, open_doc(path, raw, fmt))
            raw, doc = self.docs[rel]
            where = _locate(doc, found)
            if where is None:
                continue
            current = doc.node(where).value
            from .tuning import Merged
            from .tuning import apply as splice

            # leaf by leaf where the editor can, else the entry re-rendered (a TOML array)
            merged = Merged(_swap(current, op.old, op.new))
            merged.edits = [(leaf, op.new) for leaf in _leaves(current, op.old)]
            try:
                spliced = splice(doc, where, merged)
            except ValueError as exc:
                raise refused(path, exc) from None
            _carry_interior(found, doc.text, spliced.text)
            self.docs[rel] = (raw, spliced)
            _rerecord(found, current, op)
            self.result.add("migrate", path, f"{why}: {op.label}: {op.old} -> {op.new}")

    def finish(self) -> list[Step]:
        for rel, (raw, doc) in self.docs.items():
            if doc.text.encode() != raw:
                path = self.manifest.abs(rel)
                self.steps.append(Write(path, doc.text.encode(), None, expect=raw, in_place=True))
        # folders of ours a move left empty, and the empty ones of ours below them (a cache
        # folder nothing was ever written into) go; one holding anything stays, recorded
        recorded = {self.manifest.abs(d) for d in self.manifest.dirs}
        below = {d for d in recorded if any(d.is_relative_to(e) for e in self.emptied)}
        for directory in sorted(below, key=lambda p: (len(p.parts), p), reverse=True):
            if directory not in self.planned and directory != self.manifest.root:
                self.steps.append(RemoveDirIfEmpty(directory))
        return self.steps


def _locate(doc: ConfigDoc, op: ConfigOp) -> tuple[Any, ...] | None:
    """Where our recorded entry is now: by the hash recorded, else by our marker."""
    path = tuple(op["path"])
    marker = op.get("marker", "")
    if op["op"] != "item":
        node = doc.node((*path, op["key"]))
        if node is None:
            return None
        if value_hash(node.value) == op["sha256"] or (marker and has_string(node.value, marker)):
            return (*path, op["key"])
        return None
    arr = doc.node(path)
    if arr is None or arr.kind != "array":
        return None
    for i in range(len(arr.items) - 1, -1, -1):
        if value_hash(arr.items[i].value) == op["sha256"]:
            return (*path, i)
    hits = [i for i, item in enumerate(arr.items) if marker and has_string(item.value, marker)]
    return (*path, hits[0]) if len(hits) == 1 else None


def _leaves(value: Any, old: str, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Where ``value`` holds a string exactly equal to ``old``."""
    if isinstance(value, str):
        return [at] if value == old else []
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in _leaves(v, old, (*at, k))]
    if isinstance(value, list):
        return [leaf for i, v in enumerate(value) for leaf in _leaves(v, old, (*at, i))]
    return []


def _swap(value: Any, old: str, new: str) -> Any:
    if isinstance(value, str):
        return new if value == old else value
    if isinstance(value, dict):
        return {k: _swap(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_swap(v, old, new) for v in value]
    return value


def _rerecord(op: ConfigOp, current: Any, rewrite: RewriteValue) -> None:
    """The manifest's record of an entry whose strings were rewritten: the hash of what the
    file holds now, our own value (the base of the next three-way merge) and the marker."""
    had_ours = "ours" in op
    ours_value = _swap(op["value"], rewrite.old, rewrite.new) if "value" in op else None
    if value_hash(current) == op["sha256"]:
        op["sha256"] = value_hash(_swap(current, rewrite.old, rewrite.new))
    elif not had_ours and "value" in op and op["sha256"] == value_hash(op["value"]):
        op["sha256"] = value_hash(ours_value)
    if "value" in op:
        op["value"] = ours_value
        if had_ours or value_hash(ours_value) != op["sha256"]:
            op["ours"] = value_hash(ours_value)
    if op.get("ours") == op["sha256"]:
        op.pop("ours")
    if op.get("marker") == rewrite.old:
        op["marker"] = rewrite.new


def _carry_interior(op: ConfigOp, before: str, after: str) -> None:
    """The text a TOML or YAML insertion recorded (``interior``: uninstall looks for exactly
    that text first), with the rewrite applied to it, where the rewrite fell inside it."""
    interior = op.get("interior")
    if not interior:
        return
    head = 0
    while head < min(len(before), len(after)) and before[head] == after[head]:
        head += 1
    tail = 0
    while (
        tail < min(len(before), len(after)) - head
        and before[len(before) - 1 - tail] == after[len(after) - 1 - tail]
    ):
        tail += 1
    old, new = before[head : len(before) - tail], after[head : len(after) - tail]
    try:
        pair = json.loads(interior)  # YAML: [inserted, replaced]
    except ValueError:
        pair = None
    inserted = pair[0] if isinstance(pair, list) and len(pair) == 2 else interior
    if not isinstance(inserted, str):
        return
    start = before.rfind(inserted)
    if start < 0 or not (start <= head and len(before) - tail <= start + len(inserted)):
        return
    offset = head - start
    text = inserted[:offset] + new + inserted[offset + len(old) :]
    if isinstance(pair, list) and len(pair) == 2 and inserted is pair[0]:
        op["interior"] = json.dumps([text, pair[1]])
    else:
        op["interior"] = text
