"""Install resolution: plan + disk + manifest -> steps, report actions and the new manifest.

Reads only. Decides per file: ``create`` (absent), ``identical`` (same bytes: no write),
``update`` (ours and unmodified, or modified by the user: their copy is backed up to
``msd-local-patches/`` first), ``conflict`` (a file that is not ours is in the way; ``--force``
backs it up under ``msd-backups/`` and uninstall restores it). Config files go through
``configedit``; files we owned before but no longer ship are removed when unmodified.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .. import schemas
from ..errors import ConfigFileError
from .configedit import (
    EMPTY_FILE,
    check_writable,
    open_doc,
    reconcile,
    satisfied,
    value_hash,
)
from .context import Context
from .fs import real_target, sha256_bytes
from .jsonedit import JsonDocument
from .manifest import BackupRecord, ConfigRecord, Manifest
from .plan import IF_ABSENT, MEMBER, ConfigEntry, FileOp, Plan
from .report import Result
from .steps import ABSENT, MakeDir, Remove, Step, Symlink, Write, missing_dirs

PATCHES_DIR = "msd-local-patches"
BACKUPS_DIR = "msd-backups"


@dataclass
class Resolution:
    steps: list[Step] = field(default_factory=list)
    planned_dirs: set[Path] = field(default_factory=set)
    not_installed: set[Path] = field(default_factory=set)  # plan files left out (conflicts)

    def ensure_parent(self, path: Path) -> None:
        for directory in missing_dirs(path, self.planned_dirs):
            self.planned_dirs.add(directory)
            self.steps.append(MakeDir(directory))


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise ConfigFileError("a directory is in the way of a file", path=path) from None


def resolve_install(
    plan: Plan,
    ctx: Context,
    old: Manifest | None,
    result: Result,
    *,
    root_created: tuple[Path, ...] = (),
) -> Resolution:
    """Decide every step of an install. ``root_created``: the root (and parents) this run made."""
    res = Resolution()
    new = Manifest(
        root=plan.root, runtime=plan.runtime, scope=plan.scope, interpreter=str(ctx.interpreter)
    )
    if old is not None:
        new.dirs = list(old.dirs)
        new.backups = list(old.backups)
    for directory in root_created:
        if new.rel(directory) not in new.dirs:
            new.dirs.append(new.rel(directory))
    # Resolution only reads: an unparsable config file stops the run before any step runs.
    for op in plan.files:
        _resolve_file(op, ctx, old, new, res, result)
    config_steps = _resolve_config(plan, old, new, res, result)
    _remove_stale(plan, old, new, res, result)
    for directory in plan.dirs:
        if not directory.exists() and directory not in res.planned_dirs:
            res.ensure_parent(directory / "_")
    new.state = [new.rel(p) for p in plan.state_files]
    res.steps.extend(config_steps)
    for directory in sorted(res.planned_dirs):
        if directory == plan.root or plan.root.is_relative_to(directory):
            continue  # the root and above: created only in a dry run's imagination
        rel = new.rel(directory)
        if rel not in new.dirs:
            new.dirs.append(rel)
    if old is None or old.to_bytes() != new.to_bytes():
        res.steps.append(Write(new.path, new.to_bytes(), 0o644, barrier=True))
    return res


def _resolve_file(
    op: FileOp, ctx: Context, old: Manifest | None, new: Manifest, res: Resolution, result: Result
) -> None:
    rel = new.rel(op.path)
    record = old.files.get(rel) if old else None
    want_sha = sha256_bytes(op.content)
    if record is not None and record.get("adopted") and not op.path.is_symlink():
        current = _read(op.path)
        if current is not None and sha256_bytes(current) != record["sha256"]:
            record = None  # it was always the user's file, and they have changed it since
    if op.path.is_symlink():
        # Never write through a link in our place: it belongs to the user (dotfiles), even
        # where our file used to be. --force moves the link aside and puts it back later.
        if not ctx.force:
            result.add("conflict", op.path, "a symlink of yours is there; --force replaces it")
            res.not_installed.add(op.path)
            return
        _back_up(op.path, rel, new, res, result)
        res.steps.append(Write(op.path, op.content, op.mode))
        result.add("update", op.path)
        new.files[rel] = {"sha256": want_sha, "mode": op.mode}
        return
    current = _read(op.path)
    if current is None:
        res.ensure_parent(op.path)
        res.steps.append(Write(op.path, op.content, op.mode))
        result.add("create", op.path)
    elif (
        current == op.content
        and record is not None
        and (_mode(op.path) == op.mode or record.get("adopted"))
    ):
        result.add("identical", op.path)
        if record.get("adopted"):
            new.files[rel] = record
            return
    elif record is not None and sha256_bytes(current) == record["sha256"]:
        if record.get("adopted"):  # the user's own copy: keep it to give back on uninstall
            _back_up(op.path, rel, new, res, result)
        res.steps.append(Write(op.path, op.content, op.mode))
        result.add("update", op.path)
    elif record is not None:
        patch = new.root / PATCHES_DIR / rel
        res.ensure_parent(patch)
        res.steps.append(Write(patch, current, None))
        res.steps.append(Write(op.path, op.content, op.mode))
        result.add("backup", patch, f"your changes to {rel} are kept here")
        result.add("update", op.path)
    elif current == op.content:
        # The user already had our exact bytes: adopt it without touching it, and leave it
        # to them on uninstall (it was theirs before we came).
        result.add("identical", op.path, "yours already; kept on uninstall")
        new.files[rel] = {"sha256": want_sha, "mode": _mode(op.path), "adopted": True}
        return
    elif ctx.force:
        _back_up(op.path, rel, new, res, result)
        res.steps.append(Write(op.path, op.content, op.mode))
        result.add("update", op.path)
    else:
        result.add("conflict", op.path, "a file of yours is there; --force replaces it")
        res.not_installed.add(op.path)
        return
    new.files[rel] = {"sha256": want_sha, "mode": op.mode}


def _back_up(path: Path, rel: str, new: Manifest, res: Resolution, result: Result) -> None:
    """Keep the user's file (or symlink) that --force replaces; uninstall puts it back."""
    if path.is_symlink():
        new.backups.append({"path": rel, "backup": "", "link": str(path.readlink()), "mode": 0})
        res.steps.append(Remove(path))
        result.add("backup", path, "your symlink, put back on uninstall")
        return
    backup = new.root / BACKUPS_DIR / rel
    res.ensure_parent(backup)
    res.steps.append(Write(backup, path.read_bytes(), 0o600))
    new.backups.append({"path": rel, "backup": new.rel(backup), "mode": _mode(path)})
    result.add("backup", backup, f"yours, restored on uninstall: {rel}")


def restore_steps(manifest: Manifest, record: BackupRecord) -> list[Step]:
    """Put back what --force replaced: the user's bytes with their mode, or their symlink."""
    path = manifest.abs(record["path"])
    if record.get("link"):
        return [Remove(path), Symlink(path, record["link"])]
    backup = manifest.abs(record["backup"])
    if not backup.is_file():
        return []
    return [Write(path, backup.read_bytes(), record.get("mode")), Remove(backup)]


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o7777


def _remove_stale(
    plan: Plan, old: Manifest | None, new: Manifest, res: Resolution, result: Result
) -> None:
    if old is None:
        return
    wanted = {old.rel(op.path) for op in plan.files}
    for rel, record in sorted(old.files.items()):
        if rel in wanted:
            continue
        path = old.abs(rel)
        backup = next((b for b in new.backups if b["path"] == rel), None)
        current = None if path.is_symlink() else _read(path)
        if current is not None and sha256_bytes(current) != record["sha256"]:
            result.add("skip", path, "no longer part of msd, but modified by you: kept")
        elif record.get("adopted"):
            result.add("skip", path, "no longer part of msd; it was yours before: kept")
        elif backup is not None and (restore := restore_steps(old, backup)):
            res.steps.extend(restore)
            new.backups.remove(backup)
            result.add("restore", path, "no longer part of msd: yours is back")
        elif current is not None:
            if backup is not None:  # the user deleted the backup: nothing to give back
                new.backups.remove(backup)
            res.steps.append(Remove(path))
            result.add("remove", path, "no longer part of msd")


def _resolve_config(
    plan: Plan, old: Manifest | None, new: Manifest, res: Resolution, result: Result
) -> list[Step]:
    steps: list[Step] = []
    files = list(plan.config_files())
    if old is not None:
        for old_record in old.config:
            old_path = old.abs(old_record["file"])
            if old_path not in files:
                files.append(old_path)
    for path in files:
        entries = []
        for entry in plan.entries:
            if entry.file != path:
                continue
            missing = [r for r in entry.requires if r in res.not_installed]
            if missing:
                result.add(
                    "skip", path, f"{entry.label}: not added, {missing[0].name} is not installed"
                )
                continue
            entries.append(entry)
        record = old.config_for(path) if old else None
        old_ops = record["ops"] if record else []
        raw = _read(path)
        fmt = entries[0].fmt if entries else (record["fmt"] if record else "json")
        doc = open_doc(path, raw, fmt)
        created = raw is None or bool(record and record["created"])
        if record is not None and satisfied(doc, entries, old_ops):
            new.config.append(record)
            result.add("identical", path)
            _report_untouched(entries, doc, result)
            continue
        rec = reconcile(path, doc, entries, old_ops)
        for note in rec.kept:
            result.add("skip", path, note)
        for outcome in rec.outcomes:
            if outcome.verb in ("skip", "conflict", "backup"):
                result.add(outcome.verb, path, f"{outcome.entry.label}: {outcome.detail}")
        text = rec.text
        if raw is None and not rec.ops:
            continue
        if created and not rec.ops and text == EMPTY_FILE:
            steps.append(Remove(real_target(path)))  # a dotfile link stays; its target goes
            result.add("remove", real_target(path))
            continue
        _validate(path, entries, raw, text)
        if rec.ops:
            new.config.append(
                ConfigRecord(file=new.rel(path), fmt=fmt, created=created, ops=rec.ops)
            )
        if raw is not None and text.encode() == raw:
            result.add("identical", path)
            continue
        check_writable(path)
        if raw is None:
            res.ensure_parent(real_target(path))  # a dangling dotfile link: create its target
        mode = None if raw is not None else 0o644
        steps.append(Write(path, text.encode(), mode, expect=ABSENT if raw is None else raw))
        result.add("create" if raw is None else "update", path)
    return steps


def _report_untouched(entries: list[ConfigEntry], doc: JsonDocument, result: Result) -> None:
    """On an identical run, still tell the user about entries we leave to them."""
    for entry in entries:
        if entry.kind == MEMBER and not entry.force:
            node = doc.node((*entry.path, entry.key))
            if node is not None and value_hash(node.value) != value_hash(entry.value):
                verb = "skip" if entry.policy == IF_ABSENT else "conflict"
                result.add(verb, entry.file, f"{entry.label}: yours is kept")


def _validate(path: Path, entries: list[ConfigEntry], raw: bytes | None, text: str) -> None:
    """Refuse to save an edit that breaks the file's published schema (errors we introduced)."""
    names = {e.schema for e in entries if e.schema}
    if not names:
        return
    import json

    import jsonschema

    after = json.loads(text)
    before = json.loads(raw.decode()) if raw else {}
    for name in sorted(n for n in names if n):
        validator = jsonschema.Draft7Validator(schemas.load(name))
        old_errors = {_err(e) for e in validator.iter_errors(before)}
        for err in validator.iter_errors(after):
            if _err(err) not in old_errors:
                raise ConfigFileError(
                    f"the edited file would not match the {name} schema at "
                    f"{'.'.join(str(p) for p in err.absolute_path) or '/'}: "
                    f"{err.message}",
                    path=path,
                )


def _err(err: object) -> tuple[str, str]:
    path = getattr(err, "absolute_path", ())
    return ".".join(str(p) for p in path), str(getattr(err, "message", ""))
