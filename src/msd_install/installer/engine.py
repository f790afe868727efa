"""Run a plan or an uninstall as one transaction under the root's lock.

Order of a real run: create the root if needed, take the lock, read (and validate) the
manifest, resolve, execute every step through the transaction (each path re-checked by the
``Guard`` right before its change), record the new manifest in the user's registry, release
the lock. Any exception, Ctrl-C included, rolls the transaction back to the exact prior tree
(the root too, if we made it). A dry run resolves without lock, transaction or directories,
and so cannot write. A manifest that fails validation stops every kind of run before any
change.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import FileAccessError, MsdError
from . import lock, manifest
from .claims import refuse_claimed, spare_others
from .confine import escaping_link, read_plain, show
from .context import Context
from .fs import Transaction
from .guard import Guard
from .interrupts import atomic, deferred, seal, unseal
from .journal import Journal
from .manifestcheck import JOURNAL_DIR, manifest_name
from .plan import Bounds, Plan
from .registry import Registry
from .report import Result
from .steps import Write, execute, preflight

if TYPE_CHECKING:
    from .baseline import KnownFiles
    from .migration import Migration

# Each verb imports what only it needs (an uninstall plans, merges and migrates nothing:
# tests/cli/test_cli_imports.py); recovery is imported only when a journal is there.

Fault = Callable[[int], None]
FOREIGN = (
    "this root's manifest was not written by your msd-install (it came with the project, "
    "was edited, or predates the record in your state directory): only what still hashes "
    "as msd's is removed, and only backups in msd-backups/ are put back"
)


def install(
    plan: Plan,
    ctx: Context,
    *,
    dry_run: bool = False,
    fault: Fault | None = None,
    lock_timeout: float = 30.0,
    migrations: Sequence[Migration] = (),
    shipped: Callable[[], KnownFiles] = dict,
) -> Result:
    """Install ``plan``. ``migrations`` (``msd_install.migrations.ALL``): those the root's
    manifest has not recorded run first, in the same transaction (``installer/migrate.py``);
    a dry run reports them and resolves the rest against the tree as they would leave it
    (``preview``, in memory), so that it reports what the real run does. ``shipped``:
    what msd released for this runtime (``released.known``), the only bases of a saved
    edit a foreign manifest's pristine store may give."""
    from .migrate import migrate
    from .pending import widened
    from .resolve import resolve_install

    result = Result("install", plan.runtime, plan.scope, plan.root, dry_run)
    result.notes.extend(plan.notes)
    registry = Registry(ctx.manifest_registry())
    name = manifest_name(plan.namespace)
    bounds = widened(plan.bounds, plan.root, migrations)
    if ctx.is_local:
        _root_in_project(plan.root, ctx.cwd)
    if dry_run:
        blocker = _blocker(plan)  # what the real run would stop at, named the same way
        if blocker is not None:
            raise FileAccessError(f"{_in_the_way(blocker)}; nothing was changed", path=blocker)
        try:
            if plan.root.is_dir():
                _recover(plan.root, bounds, registry, result, ctx, lock_timeout=lock_timeout)
            here = plan.root.is_dir()
            refuse_claimed(plan)
            old = _load(plan.root, bounds, registry, result, name) if here else None
            moved = migrate(old, migrations, result, ctx.cwd if ctx.is_local else None)
            preview = None
            if old is not None and moved.steps:  # resolved as the real run resolves: against
                from .preview import Preview  # the tree the migrations leave (in memory here)

                preview = Preview(moved.steps)
                old = moved.manifest
                old.disk_digest = ""
                old.dirs = [d for d in old.dirs if preview.is_dir(old.abs(d))]
            res = resolve_install(
                plan, ctx, old, result, applied=moved.applied, shipped=shipped, preview=preview
            )
            preflight([*moved.steps, *res.steps])  # the owner checks the real run makes first
        except OSError as exc:
            where = Path(exc.filename) if isinstance(exc.filename, str) else None
            text = f"{exc.strerror or exc}; nothing was changed"
            raise FileAccessError(text, path=where) from exc
        return result
    try:
        return _install(plan, ctx, result, registry, fault, lock_timeout, migrations, shipped)
    except FileAccessError as exc:
        # an ENOTDIR or EEXIST below a directory opened by descriptor names no full path
        cause = exc.__cause__
        named = isinstance(cause, OSError) and cause.errno in (errno.ENOTDIR, errno.EEXIST)
        blocker = _blocker(plan) if named and "rolling back failed" not in exc.message else None
        if blocker is None or exc.path == blocker:
            raise
        text = f"{_in_the_way(blocker)}; every change of this run was rolled back"
        raise FileAccessError(text, path=blocker) from cause


def _install(
    plan: Plan,
    ctx: Context,
    result: Result,
    registry: Registry,
    fault: Fault | None,
    lock_timeout: float,
    migrations: Sequence[Migration],
    shipped: Callable[[], KnownFiles],
) -> Result:
    from .migrate import migrate
    from .pending import widened
    from .resolve import resolve_install

    name = manifest_name(plan.namespace)
    bounds = widened(plan.bounds, plan.root, migrations)
    project = ctx.cwd if ctx.is_local else None
    with _transaction(fault) as tx:
        created: list[Path] = []
        with _root_lock(tx, plan.root, lock_timeout, created):
            _recover(plan.root, bounds, registry, result, ctx, locked=True)
            refuse_claimed(plan)
            with _journaled(tx, plan.root, "install", tuple(created), plan.namespace):
                old = _load(plan.root, bounds, registry, result, name)
                moved = migrate(old, migrations, result, project)
                if old is not None and moved.steps:
                    execute(moved.steps, tx, Guard(plan.root, bounds().config_files, True, project))
                    old = moved.manifest
                    old.disk_digest = ""  # not the bytes on disk any more: compared by content
                    old.dirs = [d for d in old.dirs if old.abs(d).is_dir()]
                made, applied = tuple(created), moved.applied
                res = resolve_install(
                    plan, ctx, old, result, root_created=made, applied=applied, shipped=shipped
                )
                guard = Guard(plan.root, bounds().config_files, res.follow_links, res.fence)
                for kept in execute(res.steps, tx, guard):
                    if kept in res.pruned:  # filled since resolution decided: yours now
                        result.add("skip", kept, "directory not empty: kept, yours now")
                note = registry.record(tx, plan.root, res.digest, name)
                result.notes.extend([note] if note else [])
            registry.confirm(plan.root, name)
    return result


def adopt(
    plan: Plan,
    ctx: Context,
    known: KnownFiles,
    *,
    dry_run: bool = False,
    fault: Fault | None = None,
    lock_timeout: float = 30.0,
    migrations: Sequence[Migration] = (),
) -> Result:
    """``--adopt``: a new manifest for ``plan.root`` from a baseline scan (``baseline``); a
    damaged manifest is set aside, a valid one left alone. ``known``: released (path, hash)."""
    from .baseline import resolve_adopt, vouched
    from .pending import widened

    result = Result("adopt", plan.runtime, plan.scope, plan.root, dry_run)
    registry = Registry(ctx.manifest_registry())
    bounds = widened(plan.bounds, plan.root, migrations)
    if not plan.root.is_dir():
        result.notes.append(f"nothing to adopt: {plan.root} does not exist")
        return result
    with contextlib.ExitStack() as stack:
        tx = None if dry_run else stack.enter_context(_transaction(fault))
        if tx is not None:
            stack.enter_context(lock.hold(plan.root, lock_timeout))
        with contextlib.suppress(MsdError):  # a damaged manifest is what we are here for
            _recover(plan.root, bounds, registry, result, ctx, locked=tx is not None)
        try:
            found = manifest.validated(plan.root, bounds)
            damaged = None
        except MsdError as exc:
            found, damaged = None, read_plain(plan.root / manifest.MANIFEST_NAME)
            if damaged is None:
                raise FileAccessError(
                    "is not a plain file, so it cannot be kept aside: move it away yourself, "
                    "then run --adopt again",
                    path=plan.root / manifest.MANIFEST_NAME,
                ) from exc
        if found is not None:
            result.notes.append(
                "nothing to adopt: this root's manifest is valid (install or uninstall as usual)"
            )
            return result
        python = "" if ctx.is_local else str(ctx.interpreter)
        trusted = vouched(registry, plan.root, damaged, ctx.is_local)
        steps, _new = resolve_adopt(plan, python, known, damaged, result, [], trusted)
        if tx is not None:
            with _journaled(tx, plan.root, "install"):  # recovery undoes it like one
                execute(
                    steps,
                    tx,
                    Guard(
                        plan.root, bounds().config_files, True, ctx.cwd if ctx.is_local else None
                    ),
                )
                note = registry.record(tx, plan.root, _new.digest())
                result.notes.extend([note] if note else [])
            registry.confirm(plan.root)
    return result


def uninstall(
    runtime: str,
    ctx: Context,
    root: Path,
    bounds: Callable[[], Bounds],
    *,
    dry_run: bool = False,
    fault: Fault | None = None,
    lock_timeout: float = 30.0,
    namespace: str = "",
) -> Result:
    """Remove what the manifest of ``root`` lists. ``bounds``: the config and state files the
    runtime's adapter names for this root and ``ctx``'s scope (``Plan.bounds``).
    ``namespace``: a pack's name, whose own manifest is meant (MSD Core's when empty)."""
    from . import handover
    from .uninstall import resolve_uninstall

    result = Result("uninstall", runtime, ctx.scope, root, dry_run)
    if ctx.is_local:
        _root_in_project(root, ctx.cwd, "uninstall")
    registry = Registry(ctx.manifest_registry())
    name = manifest_name(namespace)
    if not root.is_dir():
        gone = "is not a folder" if root.exists() or root.is_symlink() else "does not exist"
        result.notes.append(f"nothing to uninstall: {root} {gone}")
        if not dry_run and registry.path.exists():  # a run killed in its very last step
            with _transaction(fault) as tx:
                registry.drop_if_empty(tx)
        return result
    if dry_run:
        _recover(root, bounds, registry, result, ctx, lock_timeout=lock_timeout)
        found = _load(root, bounds, registry, result, name)
        if found is None:
            result.notes.append(_no_manifest(root, name))
        else:
            spare_others(found, result)
            steps = resolve_uninstall(
                found, result, _fence(ctx), shared=registry.shared_files(root)
            )
            preflight(steps)  # the owner checks the real run makes before its first change
        return result
    with _transaction(fault) as tx:
        held = contextlib.ExitStack()
        try:
            held.enter_context(_root_lock(tx, root, lock_timeout))
        except FileNotFoundError:  # another run removed the root while this one waited
            result.notes.append(f"nothing to uninstall: {root} does not exist")
            return result
        with held:
            _recover(root, bounds, registry, result, ctx, locked=True)
            found = _load(root, bounds, registry, result, name)
            if found is None:
                result.notes.append(_no_manifest(root, name))
                held.close()  # the root's lock let go first: the root may be one to remove
                if registry.path.exists():  # an uninstall killed in its very last steps
                    registry.drop_if_empty(tx)
                return result
            with _journaled(tx, root, "uninstall", namespace=namespace):
                heirs = handover.heirs(found, bounds, registry)  # MSD Core's and packs'
                spare_others(found, result)  # a pack's never takes what another lists
                shared_files = registry.shared_files(root)
                steps = resolve_uninstall(found, result, _fence(ctx), shared=shared_files)
                steps += [Write(h.path, h.to_bytes(), 0o644, barrier=True) for h in heirs]
                guard = Guard(root, bounds().config_files, found.trusted, _fence(ctx))
                kept = list(execute(steps, tx, guard))
                above = [found.abs(d) for d in found.dirs if _at_or_above(found.abs(d), root)]
                # a folder we made that another install still fills (~/.config for OpenCode
                # and Kilo) is left to the registry, which removes it with the last install
                # that empties it; recorded here, under the journal, before the root goes, as
                # are the root and the parents made for it, which go once the lock is let go:
                # a kill before then leaves them to the next uninstall (``drop_if_empty``)
                shared = [*kept, *above] if found.trusted else []
                note = registry.forget(tx, root, shared, name, shared_files)
                result.notes.extend([note] if note else [])
                for heir in heirs:  # after ``forget``: its record is pruned of ours
                    note = registry.record(tx, root, heir.digest(), heir.name)
                    result.notes.extend([note] if note else [])
            for done in (name, *(h.name for h in heirs)):
                registry.confirm(root, done)
        # the root and its parents hold the lock file and the journal: they go once the lock
        # is released (a kill right here leaves at most empty directories, nothing of msd's,
        # and the record names them); then the record drops them
        for directory in sorted(above, key=lambda p: len(p.parts), reverse=True):
            if not tx.rmdir(directory) and directory.exists():
                kept.append(directory)
        if registry.path.exists():
            registry.drop_if_empty(tx)
        for directory in kept:
            result.add("skip", directory, "directory not empty: kept")
    return result


def reapply(
    runtime: str,
    ctx: Context,
    root: Path,
    bounds: Callable[[], Bounds],
    *,
    done: bool = False,
    dry_run: bool = False,
    fault: Fault | None = None,
    lock_timeout: float = 30.0,
) -> Result:
    """Merge the patch sets saved in ``root`` into msd's files (``reapply``); ``done``: and
    remove the sets that are merged. One transaction under the lock, like an install."""
    from .reapply import resolve_reapply

    result = Result("reapply", runtime, ctx.scope, root, dry_run)
    if ctx.is_local:
        _root_in_project(root, ctx.cwd, "reapply patches in")
    registry = Registry(ctx.manifest_registry())
    if not root.is_dir():
        result.notes.append(f"nothing to reapply: {root} does not exist")
        return result
    if dry_run:
        _recover(root, bounds, registry, result, ctx, lock_timeout=lock_timeout)
        found = _load(root, bounds, registry, result)
        if found is None:
            result.notes.append(f"nothing to reapply: msd is not installed in {root}")
        else:
            resolve_reapply(found, result, done=done)
        return result
    with _transaction(fault) as tx, lock.hold(root, lock_timeout):
        _recover(root, bounds, registry, result, ctx, locked=True)
        found = _load(root, bounds, registry, result)
        if found is None:
            result.notes.append(f"nothing to reapply: msd is not installed in {root}")
            return result
        with _journaled(tx, root, "reapply"):
            steps = resolve_reapply(found, result, done=done)
            guard = Guard(root, bounds().config_files, found.trusted, _fence(ctx))
            for kept in execute(steps, tx, guard):
                result.add("skip", kept, "directory not empty: kept")
            if any(isinstance(s, Write) and s.path == found.path for s in steps):
                note = registry.record(tx, root, found.digest())
                result.notes.extend([note] if note else [])
        registry.confirm(root)
    return result


@contextlib.contextmanager
def _transaction(fault: Fault | None) -> Iterator[Transaction]:
    """A transaction that commits on success and rolls back on anything else, Ctrl-C included."""
    tx = Transaction(fault)
    with deferred():
        try:
            yield tx
        except OSError as exc:
            with atomic(stopping=True):
                _rollback(tx, exc)
            _unseal(tx, committed=False)
            raise _access_error(exc) from exc
        except BaseException as exc:
            with atomic(stopping=True):
                _rollback(tx, exc)
            _unseal(tx, committed=False)
            raise
        if not tx.sealed:  # a run without a journal: its commit's last steps run whole too
            tx.sealed = True  # (the record's folders go there, once its lock is let go)
            seal()
        tx.commit()
        _unseal(tx, committed=True)


@contextlib.contextmanager
def _root_lock(
    tx: Transaction, root: Path, timeout: float, made: list[Path] | None = None
) -> Iterator[None]:
    """The root's lock. ``made``: an install, which makes the root first (the folders it made
    are added to it); if another run removes the root while this one waits for its lock
    (an uninstall ending), it is made again, a few times at most. Without ``made``, a root
    gone meanwhile is FileNotFoundError."""
    for attempt in range(3):
        if made is not None:
            made += tx.makedirs(root)
        held = contextlib.ExitStack()
        try:
            held.enter_context(lock.hold(root, timeout))
        except FileNotFoundError:
            if made is None or attempt == 2:
                raise
            continue
        with held:
            yield
        return


def _unseal(tx: Transaction, *, committed: bool) -> None:
    if tx.sealed:
        tx.sealed = False
        unseal(committed=committed)


def _rollback(tx: Transaction, cause: BaseException, keep: int = 0) -> None:
    """Roll back (the changes after ``keep``); if that fails too, report the failure that
    started it (exit 4), and what could not be put back."""
    try:
        tx.rollback(keep)
    except (OSError, MsdError) as failed:
        first = cause.one_line() if isinstance(cause, MsdError) else _os_text(cause)
        first = first.replace("; every change of this run was rolled back", "")
        undo = failed.one_line() if isinstance(failed, MsdError) else _os_text(failed)
        raise FileAccessError(
            f"{first}; rolling back failed too ({undo}): some changes of this run may remain"
        ) from cause


def _os_text(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror or exc}"
    return "interrupted" if isinstance(exc, KeyboardInterrupt) else f"{exc}"


@contextlib.contextmanager
def _journaled(
    tx: Transaction, root: Path, verb: str, made: tuple[Path, ...] = (), namespace: str = ""
) -> Iterator[None]:
    """The run's changes in ``root``, each journaled before it is made (``journal``).

    On an exception the changes are rolled back here, under the lock, and only then does the
    journal go: if the rollback itself fails, the journal stays for the next run to finish it.
    """
    mark = tx.mark()
    journal = None
    try:
        with atomic():  # made whole, or not at all (``interrupts``)
            journal = tx.journal = Journal(
                root, verb, made, manifest_name(namespace) if namespace else ""
            )
        yield
    except BaseException as exc:
        with atomic(stopping=True):  # a second Ctrl-C cuts neither the rollback nor this
            if journal is not None:
                journal.close()
            _rollback(tx, exc, keep=mark)  # a failed one keeps the journal, names the cause
            if journal is not None:
                journal.finish()
            tx.journal = None
        raise
    if not tx.sealed:  # the work is done: no signal rolls it back now (``interrupts.seal``)
        tx.sealed = True
        seal()
    journal.finish()
    tx.journal = None


def _recover(
    root: Path,
    bounds: Callable[[], Bounds],
    registry: Registry,
    result: Result,
    ctx: Context,
    *,
    locked: bool = False,
    lock_timeout: float = 30.0,
) -> None:
    if not os.path.lexists(root / JOURNAL_DIR):  # as ``recover`` checks first: none to undo
        return
    from .recovery import recover

    fence = ctx.cwd if ctx.is_local else None
    note = recover(root, bounds, registry, fence=fence, locked=locked, lock_timeout=lock_timeout)
    if note:
        result.notes.append(note)


def _access_error(exc: OSError) -> FileAccessError:
    where = Path(exc.filename) if isinstance(exc.filename, str) and exc.filename else None
    blocker = _file_in_the_way(where) if exc.errno == errno.ENOTDIR and where else None
    if blocker is not None:  # name what the user must move, not the path we wanted below it
        text = f"{_in_the_way(blocker)}; every change of this run was rolled back"
        return FileAccessError(text, path=blocker)
    return FileAccessError(
        f"{exc.strerror or exc}; every change of this run was rolled back", path=where
    )


def _in_the_way(blocker: Path) -> str:
    what = "a symlink to nothing" if blocker.is_symlink() and not blocker.exists() else "a file"
    return f"is {what} where msd needs a folder (move it away, then run msd-install again)"


def _blocker(plan: Plan) -> Path | None:
    """The first path on the way to something the plan writes (the root, its files, its
    config files) that is there but is not a folder: the thing the user must move."""
    seen: set[Path] = set()
    for path in (plan.root / "_", *(op.path for op in plan.files), *plan.config_files()):
        if path.parent in seen:
            continue
        seen.add(path.parent)
        blocker = _file_in_the_way(path.parent)
        if blocker is not None:
            return blocker
    return None


def _file_in_the_way(path: Path) -> Path | None:
    """The first of ``path``'s ancestors (or ``path`` itself) that exists and is not a folder
    (a file, a link to one), or None."""
    for parent in [*reversed(path.parents), path]:
        if parent.is_symlink() or parent.exists():
            if not parent.is_dir():
                return parent
        else:
            return None
    return None


def _load(
    root: Path,
    bounds: Callable[[], Bounds],
    registry: Registry,
    result: Result,
    name: str = manifest.MANIFEST_NAME,
) -> manifest.Manifest | None:
    found = manifest.load(root, bounds, registry, name)
    if found is not None and not found.trusted:
        result.notes.append(FOREIGN)
        result.notes.extend(found.withheld)
    return found


def _fence(ctx: Context) -> Path | None:
    """A --local run changes nothing outside the project, whoever wrote the manifest."""
    return ctx.cwd if ctx.is_local else None


def _root_in_project(root: Path, project: Path, verb: str = "install") -> None:
    """A --local root reached through a symlink leading out of the project is refused: a
    cloned project could point ``.claude`` at any directory of the user's (for every verb:
    an uninstall through it would remove files outside the project)."""
    if not root.is_relative_to(project):
        return
    link = escaping_link(project, root.relative_to(project).as_posix() + "/_")
    if link is not None:
        raise FileAccessError(
            f"passes through {show(link)}, a symlink leading out of the project ({project}): "
            f"msd-install does not {verb} a --local runtime through it",
            path=root,
            hint=f"nothing was changed; replace the link with a directory, or {verb}"
            f"{' into' if verb == 'install' else ''} its target with --global --config-dir",
        )


def _at_or_above(directory: Path, root: Path) -> bool:
    return directory == root or root.is_relative_to(directory)


def _no_manifest(root: Path, name: str = manifest.MANIFEST_NAME) -> str:
    return (
        f"nothing to uninstall: no {name} in {root} "
        "(msd-install only removes what its manifest lists; nothing was changed)"
    )
