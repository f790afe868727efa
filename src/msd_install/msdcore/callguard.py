"""What one tool call may still do: its deadline, its cancellation, and the record of its changes.

Every tool runs with a ``CallGuard`` (``ToolContext.guard``). Loops that can run long (walks,
edits, scans, lock waits) call ``check()``, which raises ``ToolError`` once the call was cancelled
or passed its deadline, so abandoned work stops at the next step instead of running on.

Every change to the filesystem goes through ``safewrite``, which brackets the syscall with
``begin``/``end``: ``begin`` refuses a change of a call that is cancelled or expired, then
hands the change to the journal (the audit log's intent record, written and fsync-ed before
the change happens; a journal that fails stops the change). ``expire``/``cancel`` wait for a
change in progress to finish, so once they return, this call changes nothing more, and
``changes`` is the complete list of what it did.
"""

from __future__ import annotations

import _thread
import time
from collections.abc import Callable
from dataclasses import dataclass

from .toolerror import ToolError


@dataclass(frozen=True)
class Change:
    """One change to the workspace, with paths relative to the workspace root."""

    op: str  # write | create | mkdir | move | delete
    path: str
    before_sha256: str | None = None
    after_sha256: str | None = None
    to: str | None = None  # the destination of a move


Journal = Callable[[Change], None]


class CallGuard:
    """Deadline, cancellation and change journal of one call (thread-safe)."""

    def __init__(self, deadline: float | None = None, journal: Journal | None = None) -> None:
        self.deadline = deadline  # time.monotonic() value, None for no deadline
        self.journal = journal
        self.changes: list[Change] = []
        self._stopped: str | None = None  # "cancelled" | "deadline_exceeded"
        # _thread, not threading: msd-tools builds a guard too, and must start fast.
        self._lock = _thread.RLock()

    def check(self) -> None:
        """Raise if the call must stop (cancelled, or past its deadline)."""
        if self._stopped is None and self.deadline is not None and time.monotonic() > self.deadline:
            self._stopped = "deadline_exceeded"
        if self._stopped == "cancelled":
            raise ToolError("cancelled", "the call was cancelled by the client")
        if self._stopped is not None:
            raise ToolError("deadline_exceeded", "the call ran past its deadline and was stopped")

    def begin(self, change: Change) -> None:
        """Called right before a change; raises (and the change must not happen) if refused."""
        self._lock.acquire()
        try:
            self.check()
            if self.journal is not None:
                self.journal(change)
        except BaseException:
            self._lock.release()
            raise

    def end(self, change: Change | None) -> None:
        """Called right after the change attempted since ``begin`` (None if it failed)."""
        if change is not None:
            self.changes.append(change)
        self._lock.release()

    def _stop(self, why: str) -> None:
        with self._lock:  # waits for a change in progress
            if self._stopped is None:
                self._stopped = why

    def cancel(self) -> None:
        self._stop("cancelled")

    def expire(self) -> None:
        self._stop("deadline_exceeded")

    @property
    def stopped(self) -> str | None:
        return self._stopped
