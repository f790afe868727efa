"""Install resolution: plan + disk + manifest -> steps, report actions and the new manifest.

Reads only (what gets copied through ``Resolution.read``). Decides per file: ``create``
(absent), ``identical`` (same bytes: no write), ``update`` (ours and unmodified, or modified
by the user: their copy and the pristine bytes it was edited from are saved as a patch set
in ``msd-local-patches/`` first, see ``patches``), ``skip`` (the user's edits, merged by
``--reapply``, while this version's file is the one they were merged into), ``conflict`` (a file
that is not ours is in the way; ``--force`` backs it up under ``msd-backups/`` and uninstall
restores it). Config files go through
``resolveconfig``; files we owned before but no longer ship are removed when unmodified.
The bytes of every file installed are kept in the pristine store (``pristine``), the base
of the next upgrade's patch sets.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from . import pristine
from .confine import read_beneath
from .context import Context
from .fs import sha256_bytes
from .manifest import BackupRecord, Manifest, MigrationRecord
from .manifestcheck import BACKUPS_DIR, PATCHES_DIR, manifest_name
from .patches import Saver, refuse_saving, unusable
from .plan import FileOp, Plan
from .report import Result
from .resolution import Resolution
from .resolveconfig import resolve_config
from .steps import Remove, Step, Symlink, Write

if TYPE_CHECKING:
    import threading

    from .baseline import KnownFiles
    from .preview import Preview

    Patching = tuple[Saver, "_Bases", Callable[[], KnownFiles]]


def resolve_install(
    plan: Plan,
    ctx: Context,
    old: Manifest | None,
    result: Result,
    *,
    root_created: tuple[Path, ...] = (),
    applied: list[MigrationRecord] | None = None,
    shipped: Callable[[], KnownFiles] = dict,
    preview: Preview | None = None,
) -> Resolution:
    """Decide every step of an install. ``root_created``: the root (and parents) this run made.
    ``applied``: the migrations the new manifest records (default: those ``old`` records).
    ``shipped``: every (path, sha256) msd released for this runtime (``released.json``), the
    only bases a foreign manifest's pristine store may give (default: none). ``preview``: a
    dry run's view of the tree as the migrations it reports would leave it (``preview``)."""
    res = Resolution(
        follow_links=old is None or old.trusted,
        fence=ctx.cwd if ctx.is_local else None,
        preview=preview,
    )
    # a project's manifest is committed with it: its commands run `python3` from the PATH, so
    # it names no interpreter of this machine (doctor has none to check)
    python = "" if ctx.is_local else str(ctx.interpreter)
    new = Manifest(
        root=plan.root,
        runtime=plan.runtime,
        scope=plan.scope,
        interpreter=python,
        name=manifest_name(plan.namespace),
    )
    if old is not None:
        new.dirs = list(old.dirs)
        new.backups = list(old.backups)
    new.migrations = list(applied if applied is not None else old.migrations if old else [])
    for directory in root_created:
        if new.rel(directory) not in new.dirs:
            new.dirs.append(new.rel(directory))
    # Resolution only reads: an unparsable config file stops the run before any step runs.
    # the pristine store is MSD Core's (--reapply is MSD Core's); a pack keeps none
    core = not plan.namespace
    # the store file as it is (compressed): inflated only when a base is needed, or when the
    # manifest's records cannot show that it already holds what this run installs
    stored = (
        res.read(plan.root, plan.root / pristine.STORE_NAME) if old is not None and core else None
    )
    foreign = old is not None and not old.trusted
    version = old.installer_version if old else ""
    saver = Saver(plan.root, plan.runtime, plan.scope, version, foreign=foreign)
    bases = _Bases(stored)
    # each content hashed once, here (SHA-256 runs at GB/s: a few ms for a whole payload; in a
    # thread, each of hundreds of small hashes waited for the GIL while this loop held it);
    # with no store yet (a first install), a thread then compresses all of it while the files
    # are resolved (one zlib call, without the GIL), used if every file is installed, as is usual
    digests = [sha256_bytes(op.content) for op in plan.files]
    compressing = (
        _Compress(dict(zip(digests, (op.content for op in plan.files), strict=True)))
        if core and stored is None
        else None
    )
    for op, digest in zip(plan.files, digests, strict=True):
        _resolve_file(op, digest, ctx, old, new, res, result, (saver, bases, shipped))
    if old is not None and old.trusted:  # the sets still there stay vouched for
        new.patches = [
            p for p in old.patches if os.path.lexists(plan.root / PATCHES_DIR / p["set"])
        ]
    if saver.entries:
        result.notes.append(saver.note(dry=result.dry_run))
        res.ensure_parent(saver.directory / "_")
        res.steps.append(Write(saver.directory / "patch.json", saver.metadata(), None))
        new.patches.append(saver.record())
    store_at = len(res.steps)  # where the store's write goes, once compressed
    job = _keep_pristine(plan, digests, old, new, stored, compressing) if core else None
    config_steps = resolve_config(plan, old, new, res, result)
    _remove_stale(plan, old, new, res, result)
    _drop_untracked_backups(new, result)
    for directory in plan.dirs:
        if res.blocked(plan.root, directory) is not None:
            continue  # behind a link out of the project: its files are conflicts, named
        if not res.exists(directory) and directory not in res.planned_dirs:
            res.ensure_parent(directory / "_")
    new.state = [new.rel(p) for p in plan.state_files]
    res.steps.extend(config_steps)
    if old is not None:  # the folders of msd's that this run's removals empty go with them
        from .emptied import prune

        keep = [*(op.path for op in plan.files), *plan.dirs, *plan.state_files]
        prune(new, [*keep, *plan.config_files()], res, result)
    listed = set(new.dirs)  # a set: a thousand commands' folders made this list quadratic
    for directory in sorted(res.planned_dirs):
        if directory == plan.root or plan.root.is_relative_to(directory):
            continue  # the root and above: created only in a dry run's imagination
        rel = new.rel(directory)
        if rel not in listed and rel.split("/")[0] != PATCHES_DIR:
            new.dirs.append(rel)  # not the patch sets' folders: yours, like the sets (kept)
            listed.add(rel)
    if job is not None:
        store = job.result()
        res.steps.insert(store_at, Write(plan.root / pristine.STORE_NAME, store, 0o644))
        new.pristine = sha256_bytes(store)
    # a foreign manifest is rewritten even when its (restricted) content is unchanged (the
    # user's registry then records it as theirs), unless it came exactly as this run would
    # write it: a teammate's committed install stays byte for byte, and becomes trusted
    data = new.to_bytes()  # once: an indented dump is Python's slow JSON encoder
    res.digest = sha256_bytes(data)
    if old is not None and not old.trusted and res.digest == old.original_digest:
        result.notes.append(VERIFIED if not result.dry_run else VERIFIED_DRY)
    elif (
        old is None or not old.trusted or (res.digest != old.disk_digest and old.to_bytes() != data)
    ):
        res.steps.append(Write(new.path, data, 0o644, barrier=True))
    return res


VERIFIED = (
    "the manifest holds exactly what this msd-install writes here: kept as it is, and "
    "recorded as yours"
)
VERIFIED_DRY = (
    "the manifest holds exactly what this msd-install writes here: a real run keeps it as "
    "it is, and records it as yours"
)


KEPT_PATCHED = "your edits, merged by --reapply: kept"


class _Bases:
    """The blobs of the root's pristine store, inflated on first use (a base is needed only
    to save a patch set, which an unchanged reinstall never does)."""

    def __init__(self, stored: bytes | None) -> None:
        self._stored = stored
        self._blobs: dict[str, bytes] | None = None

    def get(self, digest: str) -> bytes | None:
        if self._blobs is None:
            self._blobs = pristine.blobs(pristine.unpack(self._stored))
        return self._blobs.get(digest)


class _Compress:
    """A store, ``pristine.compress(pristine.pack_digests(blobs))``: packed here, compressed in
    a thread (one zlib call, which lets go of the GIL; Python code in the thread would wait
    for the GIL, held by the resolution meanwhile); ``result`` waits for it."""

    def __init__(self, blobs: dict[str, bytes]) -> None:
        self.blobs = blobs
        self._packed = pristine.pack_digests(blobs)
        self._out: bytes | BaseException = b""
        self._thread = _start(self._run)

    def _run(self) -> None:
        try:
            self._out = pristine.compress(self._packed)
        except BaseException as exc:  # handed to the caller of ``result``
            self._out = exc
        self._packed = b""

    def result(self) -> bytes:
        self._thread.join()
        if isinstance(self._out, BaseException):
            raise self._out
        return self._out


def _start(run: Callable[[], None]) -> threading.Thread:
    import threading

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def _keep_pristine(
    plan: Plan,
    digests: list[str],
    old: Manifest | None,
    new: Manifest,
    stored: bytes | None,
    compressing: _Compress | None,
) -> _Compress | None:
    """Keep the bytes of every file this version installed, for the next upgrade's bases;
    rewritten only when what it holds changes. None: the store is current (``new.pristine``
    set); else the compression of the new store, still to be written."""
    kept: dict[str, bytes] = {}
    for op, digest in zip(plan.files, digests, strict=True):
        record = new.files.get(new.rel(op.path))
        if record is not None and record["sha256"] == digest:
            kept[digest] = op.content
    if stored is not None and (
        _proven_current(old, stored, kept) or pristine.unpack(stored) == pristine.pack_digests(kept)
    ):
        new.pristine = sha256_bytes(stored)
        return None
    if compressing is not None and compressing.blobs.keys() == kept.keys():
        return compressing
    return _Compress(kept)


def _proven_current(old: Manifest | None, stored: bytes, kept: dict[str, bytes]) -> bool:
    """The store holds exactly ``kept``, shown without inflating it: this user's manifest
    records its sha256 and the very files whose bytes ``kept`` holds, and the Adler-32 that
    ends its zlib stream is that of the same store packed again (``pristine.holds``)."""
    return (
        old is not None
        and old.trusted
        and bool(old.pristine)
        and {r["sha256"] for r in old.files.values()} == kept.keys()
        and sha256_bytes(stored) == old.pristine
        and pristine.holds(stored, kept)
    )


def _resolve_file(
    op: FileOp,
    want_sha: str,
    ctx: Context,
    old: Manifest | None,
    new: Manifest,
    res: Resolution,
    result: Result,
    patching: Patching,
) -> None:
    rel = new.rel(op.path)
    record = old.files.get(rel) if old else None
    link = res.blocked(new.root, op.path)
    if link is not None:
        result.add("conflict", op.path, link)
        res.not_installed.add(op.path)
        return
    there = res.lstat(op.path)  # looked at once: what is there decides everything below
    is_link = there is not None and stat.S_ISLNK(there.st_mode)
    if record is not None and record.get("adopted") and not is_link:
        current = res.read(new.root, op.path)
        if current is not None and sha256_bytes(current) != record["sha256"]:
            record = None  # it was always the user's file, and they have changed it since
    if is_link:
        # Never write through a link in our place: it belongs to the user (dotfiles), even
        # where our file used to be. --force moves the link aside and puts it back later.
        if not ctx.force:
            result.add("conflict", op.path, "a symlink of yours is there; --force replaces it")
            res.not_installed.add(op.path)
            return
        _back_up(op.path, rel, new, res, result)  # a link: nothing is written aside
        res.steps.append(Write(op.path, op.content, op.mode, payload=True))
        result.add("update", op.path)
        new.files[rel] = {"sha256": want_sha, "mode": op.mode}
        return
    current = res.read(new.root, op.path) if there is not None else None
    if current is None:
        res.ensure_parent(op.path)
        res.steps.append(Write(op.path, op.content, op.mode, payload=True))
        result.add("create", op.path)
    elif (
        current == op.content
        and record is not None
        and there is not None
        and (there.st_mode & 0o7777 == op.mode or record.get("adopted"))
    ):
        result.add("identical", op.path)
        if record.get("adopted"):
            new.files[rel] = record
            return
    elif record is not None and sha256_bytes(current) == record["sha256"]:
        # the user's own copy: keep it to give back on uninstall
        if record.get("adopted") and not _back_up(op.path, rel, new, res, result):
            return
        res.steps.append(Write(op.path, op.content, op.mode, payload=True))
        result.add("update", op.path)
    elif record is not None and record.get("patched") == sha256_bytes(current):
        if sha256_bytes(op.content) == record["sha256"]:
            # the user's edits, merged by --reapply into this very version: theirs now (only
            # under a manifest of theirs: ``Manifest.restrict`` drops a foreign ``patched``)
            result.add("skip", op.path, KEPT_PATCHED)
            new.files[rel] = record
            return
        if not _save_patch(op, rel, current, record["sha256"], new, res, result, patching):
            return
    elif record is not None:
        if not _save_patch(op, rel, current, record["sha256"], new, res, result, patching):
            return
    elif current == op.content:
        # The user already had our exact bytes: adopt it without touching it, and leave it
        # to them on uninstall (it was theirs before we came).
        result.add("identical", op.path, "yours already; kept on uninstall")
        new.files[rel] = {"sha256": want_sha, "mode": _mode(op.path), "adopted": True}
        return
    elif ctx.force:
        if not _back_up(op.path, rel, new, res, result):
            return
        res.steps.append(Write(op.path, op.content, op.mode, payload=True))
        result.add("update", op.path)
    else:
        result.add("conflict", op.path, "a file of yours is there; --force replaces it")
        res.not_installed.add(op.path)
        return
    new.files[rel] = {"sha256": want_sha, "mode": op.mode}


def _save_patch(
    op: FileOp,
    rel: str,
    current: bytes,
    old_sha: str,
    new: Manifest,
    res: Resolution,
    result: Result,
    patching: Patching,
) -> bool:
    """Save the user's edited copy and the bytes it was edited from (when the pristine store
    has them) as part of this run's patch set, then replace the file. False: left alone."""
    saver, bases, shipped = patching
    why = unusable(new.root)
    if why is not None:  # resolution reads only: nothing has been written yet
        raise refuse_saving(new.root, why, rel)
    user = saver.user_copy(rel)
    if _aside_blocked(user, op.path, new, res, result):
        return False
    res.ensure_parent(user)
    # your file's permissions (one you made private stays private), never setuid (no link is
    # here: a link in msd's place is a conflict)
    seen = res.lstat(op.path)
    private = seen.st_mode & 0o777 if seen is not None else 0o600
    res.steps.append(Write(user, current, private))
    base = bases.get(old_sha)
    if base is not None and saver.foreign and old_sha not in shipped().get(rel, ()):
        # the project's store came with its manifest: a pair crafted together would have
        # --reapply merge the project's code into msd's file (a guard)
        base = None
    if base is None and sha256_bytes(op.content) == old_sha:
        base = op.content  # no store (an older install), but this file did not change
    if base is not None:
        res.ensure_parent(saver.base_copy(rel))
        res.steps.append(Write(saver.base_copy(rel), base, None))
    saver.add(rel, sha256_bytes(current), old_sha if base is not None else None, op.content)
    res.steps.append(Write(op.path, op.content, op.mode, payload=True))
    result.add("backup", user, saver.detail(rel, base is not None))
    result.add("update", op.path)
    return True


def _back_up(path: Path, rel: str, new: Manifest, res: Resolution, result: Result) -> bool:
    """Keep the user's file (or symlink) that --force replaces; uninstall puts it back.
    False (reported as a conflict) when it cannot be kept aside safely."""
    if path.is_symlink():
        new.backups.append({"path": rel, "backup": "", "link": str(path.readlink()), "mode": 0})
        res.steps.append(Remove(path))
        result.add("backup", path, "your symlink, put back on uninstall")
        return True
    backup = new.root / BACKUPS_DIR / rel
    if _aside_blocked(backup, path, new, res, result):
        return False
    res.ensure_parent(backup)
    data = res.read(new.root, path)
    if data is None:
        return False
    res.steps.append(Write(backup, data, 0o600))
    new.backups = [b for b in new.backups if b["path"] != rel]
    new.backups.append({"path": rel, "backup": new.rel(backup), "mode": _mode(path)})
    result.add("backup", backup, f"yours, restored on uninstall: {rel}")
    return True


def _aside_blocked(aside: Path, path: Path, new: Manifest, res: Resolution, result: Result) -> bool:
    """Under a foreign manifest, msd-backups/ or msd-local-patches/ may lead out of the root."""
    link = res.blocked(new.root, aside)
    if link is None:
        return False
    result.add("conflict", path, f"cannot keep yours aside: {link}")
    res.not_installed.add(path)
    return True


def restore_steps(manifest: Manifest, record: BackupRecord) -> list[Step]:
    """Put back what --force replaced: the user's bytes with their mode, or their symlink.

    Only from a plain file under ``<root>/msd-backups/`` (the manifest's rules); a symlink is
    re-created only from a manifest this user's msd-install wrote (``Manifest.restrict``).
    """
    path = manifest.abs(record["path"])
    if record.get("link"):
        return [Remove(path), Symlink(path, record["link"])]
    backup = manifest.abs(record["backup"])
    # read beneath the root, whoever wrote the manifest: never an outside file's bytes (a
    # project's msd-backups/ pulled in as a link out of it: refused, nothing is changed)
    data = read_beneath(manifest.root, backup)
    if data is None:
        return []
    return [Write(path, data, record.get("mode")), Remove(backup)]


def _drop_untracked_backups(new: Manifest, result: Result) -> None:
    """A backup belongs to one of msd's files; once msd no longer owns that file (the user
    changed it, or took its place), the backup is theirs to keep and no longer recorded."""
    for record in [b for b in new.backups if b["path"] not in new.files]:
        new.backups.remove(record)
        backup = new.abs(record["backup"]) if record.get("backup") else None
        if backup is not None and os.path.lexists(backup):
            result.add("skip", backup, f"yours, kept: msd no longer owns {record['path']}")


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
        if (why := res.blocked(plan.root, path)) is not None:  # never through that link
            result.add("skip", path, f"no longer part of msd, but {why}: kept")
            continue
        current = res.read_plain(path)
        if current is None and res.lexists(path):
            result.add("skip", path, "no longer part of msd, and not a plain file: kept")
        elif current is not None and sha256_bytes(current) != record["sha256"]:
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
            from . import bytecode

            res.steps.extend(bytecode.removal([path], result))  # what Python compiled from it
