"""Ctrl-C and SIGTERM during a run: raised between two changes, never inside one.

A run rolls back on ``KeyboardInterrupt``. Raised at an arbitrary point, it can land between
a change and the record of its undo (a folder made but not yet remembered), inside the
journal's creation or its removal (a journal missing the backups its lines name, which the
next run must refuse), or inside a rollback (a second Ctrl-C), and leave exactly what the
journal exists to prevent. So while a run's transaction is open (``deferred``), both signals
only raise outside the ``atomic`` sections: each change of the transaction (its journal line,
the change itself and its undo), the journal's creation and removal, and a rollback. A
signal that arrives inside one is raised as soon as the outermost section ends (not when it
ends by an exception of its own: that one is already stopping the run).
"""

from __future__ import annotations

import contextlib
import functools
import signal
from collections.abc import Callable, Iterator
from types import FrameType
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

_depth = 0  # how many atomic sections are open (this process's main thread)
_pending = False  # a signal arrived inside one


def _handler(_signum: int, _frame: FrameType | None) -> None:
    global _pending
    if _depth:
        _pending = True
        return
    raise KeyboardInterrupt


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """While a transaction is open: SIGINT and SIGTERM raise ``KeyboardInterrupt`` outside
    atomic sections only (SIGTERM then rolls a run back like Ctrl-C). Off the main thread,
    where no handler can be set, nothing changes."""
    global _pending
    try:
        before = {n: signal.signal(n, _handler) for n in (signal.SIGINT, signal.SIGTERM)}
    except ValueError:  # not the main thread
        yield
        return
    _pending = False
    try:
        yield
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)
        _pending = False


class InterruptedAfterCommitError(KeyboardInterrupt):
    """A signal that arrived once the run had finished its work (its journal gone): the run
    was committed, not rolled back; nothing after it starts."""


@contextlib.contextmanager
def atomic(*, stopping: bool = False) -> Iterator[None]:
    """A section no signal interrupts (see the module's docstring). ``stopping``: the run is
    already on its way out (a rollback): a signal that arrives inside is dropped, never
    raised over the end of the rollback (a second Ctrl-C must not cut it short)."""
    global _depth, _pending
    _depth += 1
    failed = False
    try:
        yield
    except BaseException:
        failed = True
        raise
    finally:
        _depth -= 1
        owed = not _depth and _pending
        if owed and stopping:
            _pending = False
        elif owed and not failed:
            _pending = False
            raise KeyboardInterrupt


def seal() -> None:
    """The run's work is done and its journal is going: from here to its commit no signal
    rolls it back (a rollback then would have no journal, and the root's lock may be gone);
    one that arrives is raised by ``unseal`` as ``InterruptedAfterCommitError``."""
    global _depth
    _depth += 1


def unseal(*, committed: bool) -> None:
    """The end of ``seal``: after the commit, a signal that arrived is raised; after a
    failure (``committed`` False) it is dropped: the failure is already stopping the run."""
    global _depth, _pending
    _depth -= 1
    if not _depth and _pending:
        _pending = False
        if committed:
            raise InterruptedAfterCommitError


def atomically(func: Callable[P, R]) -> Callable[P, R]:
    """``func`` as one atomic section."""

    @functools.wraps(func)
    def inner(*args: P.args, **kwargs: P.kwargs) -> R:
        with atomic():
            return func(*args, **kwargs)

    return inner
