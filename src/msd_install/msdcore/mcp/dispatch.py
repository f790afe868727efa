"""Tool calls off the reader loop: a bounded worker pool, a deadline per call, cancellation.

The reader thread only parses and answers the cheap requests (``initialize``, ``ping``,
``tools/list``...) and hands each ``tools/call`` to this dispatcher, so a slow call never
delays the next request. Every call gets a ``CallGuard`` with a deadline counted from its
arrival:

* a worker runs it and sends the reply, unless it was answered or cancelled meanwhile;
* a watchdog thread answers a call that reaches its deadline (queued or running) with a
  ``deadline_exceeded`` tool error, after stopping its guard, which lets a change in progress
  finish and refuses every later one, and makes the tool's loops give up at their next check;
* ``notifications/cancelled`` stops the guard the same way and drops the call: per the MCP
  spec, a cancelled request gets no response at all.

A worker stuck in an abandoned call is replaced (up to ``MAX_THREADS``), so the pool keeps its
capacity; when it finally returns and the pool is over strength, it exits. The queue is
bounded too: past ``MAX_QUEUED`` waiting calls a new one is refused at once as busy.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable

from ..callguard import CallGuard
from . import log
from .calls import error_result
from .protocol import INTERNAL_ERROR, INVALID_REQUEST, RpcError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    JSONObject = dict[str, Any]

WORKERS = 4
MAX_THREADS = 16
MAX_QUEUED = 64
# Deep recursion (a parser on hostile nesting) must hit RecursionError, not the end of a small
# platform-default thread stack.
STACK_SIZE = 16 * 1024 * 1024


class Job:
    __slots__ = ("abandoned", "guard", "msg_id", "run", "state")

    def __init__(
        self, msg_id: Any, run: Callable[[CallGuard], JSONObject], deadline: float
    ) -> None:
        self.msg_id = msg_id
        self.run = run
        self.guard = CallGuard(deadline)
        self.state = "queued"  # -> running -> done
        self.abandoned = False  # answered (or cancelled) while a worker still runs it


def _reply(msg_id: Any, result: JSONObject) -> JSONObject:
    return {"jsonrpc": "2.0", "id": msg_id, "result": result}


def _error(msg_id: Any, exc: RpcError) -> JSONObject:
    return {"jsonrpc": "2.0", "id": msg_id, "error": exc.to_json()}


class Dispatcher:
    def __init__(self, send: Callable[[JSONObject], None], timeout: float) -> None:
        self._send = send
        self.timeout = timeout
        self._cond = threading.Condition()
        self._inflight: dict[tuple[type, Any], Job] = {}
        self._queue: queue.Queue[Job | None] = queue.Queue(MAX_QUEUED)
        self._threads = 0
        self._stuck = 0  # workers busy with a call that was already answered
        with contextlib.suppress(ValueError, RuntimeError):  # a platform may refuse the size
            threading.stack_size(STACK_SIZE)
        for _ in range(WORKERS):
            self._spawn()
        threading.Thread(target=self._watchdog, name="msd-mcp-watchdog", daemon=True).start()

    def _spawn(self) -> None:
        self._threads += 1
        threading.Thread(target=self._worker, name="msd-mcp-worker", daemon=True).start()

    @staticmethod
    def _key(msg_id: Any) -> tuple[type, Any]:
        return type(msg_id), msg_id  # 1 and "1" are different requests

    def submit(self, msg_id: Any, run: Callable[[CallGuard], JSONObject]) -> None:
        job = Job(msg_id, run, time.monotonic() + self.timeout)
        with self._cond:
            if self._key(msg_id) in self._inflight:
                self._send(_error(msg_id, RpcError(INVALID_REQUEST, "id already in use")))
                return
            try:
                self._queue.put_nowait(job)
            except queue.Full:
                busy = error_result("busy", f"{MAX_QUEUED} calls are already waiting; retry")
                self._send(_reply(msg_id, busy))
                return
            self._inflight[self._key(msg_id)] = job
            self._cond.notify_all()

    def cancel(self, msg_id: Any) -> None:
        with self._cond:
            job = self._inflight.pop(self._key(msg_id), None)
            if job is None:
                return  # unknown, or already answered: nothing to do
            running = job.state == "running"
            job.state = "done"
            self._cond.notify_all()
        job.guard.cancel()
        if running:
            self._replace(job)
        log.note("DEBUG", "call %r cancelled", msg_id)

    def _replace(self, job: Job) -> None:
        """A worker is still busy with ``job``, which needs no answer any more: add one."""
        with self._cond:
            job.abandoned = True
            self._stuck += 1
            if self._threads < MAX_THREADS:
                self._spawn()

    def _finish(self, job: Job, message: JSONObject) -> str | None:
        """Send ``message`` for ``job`` unless it was answered or cancelled already; return
        the state the job was in (None if it needed no answer any more)."""
        with self._cond:
            before = job.state
            if before == "done":
                return None
            job.state = "done"
            self._inflight.pop(self._key(job.msg_id), None)
            self._cond.notify_all()
        self._send(message)
        return before

    def _worker(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            with self._cond:
                if job.state != "queued":
                    continue
                job.state = "running"
            try:
                message = _reply(job.msg_id, job.run(job.guard))
            except RpcError as exc:
                message = _error(job.msg_id, exc)
            except Exception:  # a bug must cost one request, not the worker
                log.get().exception("internal error in tools/call %r", job.msg_id)
                message = _error(job.msg_id, RpcError(INTERNAL_ERROR, "internal error"))
            self._finish(job, message)
            with self._cond:
                if job.abandoned:
                    self._stuck -= 1
                if self._threads - self._stuck > WORKERS:
                    self._threads -= 1
                    return  # a replacement took this worker's place meanwhile

    def _expire(self, job: Job) -> None:
        job.guard.expire()  # waits for a change in progress; none starts after this
        changed = ", ".join(sorted({c.path for c in job.guard.changes}))
        note = (
            f"; it changed: {changed} (see the audit log)" if changed else "; nothing was changed"
        )
        result = error_result(
            "deadline_exceeded", f"the call did not finish within {self.timeout:g} s{note}"
        )
        if self._finish(job, _reply(job.msg_id, result)) == "running":
            self._replace(job)

    def _watchdog(self) -> None:
        while True:
            with self._cond:
                now = time.monotonic()
                due = [j for j in self._inflight.values() if j.guard.deadline <= now]  # type: ignore[operator]
                if not due:
                    nearest = min(
                        (j.guard.deadline for j in self._inflight.values()),  # type: ignore[type-var]
                        default=None,
                    )
                    self._cond.wait(None if nearest is None else max(0.0, nearest - now) + 0.001)
                    continue
            for job in due:
                self._expire(job)

    def drain(self) -> None:
        """Wait until every call has been answered (bounded by their deadlines), then stop."""
        with self._cond:
            while self._inflight:
                self._cond.wait(0.5)
        for _ in range(self._threads):
            try:
                self._queue.put_nowait(None)
            except queue.Full:
                break
