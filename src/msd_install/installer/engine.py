"""Run a plan or an uninstall as one transaction under the root's lock.

Order of a real run: create the root if needed, take the lock, read the manifest, resolve,
execute every step through the transaction, release the lock. Any exception, Ctrl-C
included, rolls the transaction back to the exact prior tree (the root too, if we made it).
A dry run resolves without lock, transaction or directories, and so cannot write.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType

from ..errors import FileAccessError
from . import lock, manifest
from .context import Context
from .fs import Transaction
from .plan import Plan
from .report import Result
from .resolve import resolve_install
from .steps import execute
from .uninstall import resolve_uninstall

Fault = Callable[[int], None]


def install(
    plan: Plan,
    ctx: Context,
    *,
    dry_run: bool = False,
    fault: Fault | None = None,
    lock_timeout: float = 30.0,
) -> Result:
    result = Result("install", plan.runtime, plan.scope, plan.root, dry_run)
    result.notes.extend(plan.notes)
    if dry_run:
        old = manifest.load(plan.root) if plan.root.is_dir() else None
        resolve_install(plan, ctx, old, result)
        return result
    with _transaction(fault) as tx:
        created = tx.makedirs(plan.root)
        with lock.hold(plan.root, lock_timeout):
            old = manifest.load(plan.root)
            res = resolve_install(plan, ctx, old, result, root_created=tuple(created))
            execute(res.steps, tx)
    return result


def uninstall(
    runtime: str,
    scope: str,
    root: Path,
    *,
    dry_run: bool = False,
    fault: Fault | None = None,
    lock_timeout: float = 30.0,
) -> Result:
    result = Result("uninstall", runtime, scope, root, dry_run)
    if not root.is_dir():
        result.notes.append(f"nothing to uninstall: {root} does not exist")
        return result
    if dry_run:
        found = manifest.load(root)
        if found is None:
            result.notes.append(_no_manifest(root))
        else:
            resolve_uninstall(found, result)
        return result
    with _transaction(fault) as tx:
        with lock.hold(root, lock_timeout):
            found = manifest.load(root)
            if found is None:
                result.notes.append(_no_manifest(root))
                return result
            steps = resolve_uninstall(found, result)
            for directory in execute(steps, tx):
                result.add("skip", directory, "directory not empty: kept")
            above = [found.abs(d) for d in found.dirs if _at_or_above(found.abs(d), root)]
        # the root and its parents hold the lock file: they go once the lock is released
        for directory in sorted(above, key=lambda p: len(p.parts), reverse=True):
            if not tx.rmdir(directory) and directory.exists():
                result.add("skip", directory, "directory not empty: kept")
    return result


@contextlib.contextmanager
def _transaction(fault: Fault | None) -> Iterator[Transaction]:
    """A transaction that commits on success and rolls back on anything else, Ctrl-C included."""
    tx = Transaction(fault)
    with _interrupts_raise():
        try:
            yield tx
        except OSError as exc:
            tx.rollback()
            raise _access_error(exc) from exc
        except BaseException:
            tx.rollback()
            raise
        tx.commit()


def _access_error(exc: OSError) -> FileAccessError:
    where = Path(exc.filename) if exc.filename else None
    return FileAccessError(
        f"{exc.strerror or exc}; every change of this run was rolled back", path=where
    )


def _at_or_above(directory: Path, root: Path) -> bool:
    return directory == root or root.is_relative_to(directory)


def _no_manifest(root: Path) -> str:
    return (
        f"nothing to uninstall: no {manifest.MANIFEST_NAME} in {root} "
        "(msd-install only removes what its manifest lists; nothing was changed)"
    )


@contextlib.contextmanager
def _interrupts_raise() -> Iterator[None]:
    """Turn SIGTERM into KeyboardInterrupt during a run, so it rolls back like Ctrl-C."""

    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
