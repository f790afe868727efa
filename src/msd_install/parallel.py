"""Side by side: the runs of a multi-runtime command (``--all``) in forked worker processes.

Each runtime's run is a transaction of its own, under its own root's lock, with its own
journal and manifest; the user's registry of manifests is changed under a lock of its own.
So runs in different roots only meet where they may create, fill or empty the same folders:
``~/.config`` for OpenCode, Kilo and Trae, ``~/.gemini`` for Gemini and Antigravity (whose
root is inside Gemini's). ``groups`` keeps such runtimes together: every runtime whose root
or config files lie under the same top-level entry of the home directory (of the project,
for ``--local``), or anywhere outside it, is in one group, run one after the other in the
usual order, exactly as a one-process run would. Groups run side by side, at most ``jobs``
at a time, each in a child forked from this process (the payload and the plans already
loaded are shared, copy on write), which sends each runtime's outcome back, pickled, as soon
as that run ends.

What the user sees does not change: results are reported in the usual order; the first
error stops the command (no further group starts; the ones running finish their current
runtime's transaction, which commits or rolls back as a whole) and is reported with every
run that finished before it; Ctrl-C or SIGTERM reaches every worker, each rolls back its
run, and the command exits 130. A worker that dies without a word (SIGKILL, out of memory)
leaves its run to the journal, which the next run of msd-install rolls back.

Why processes: the work is Python code and the GIL holds threads to one core; why fork:
a fresh interpreter would pay the imports and the payload again. ``MSD_INSTALL_JOBS``
sets the number of workers (1: one process, as before); the default is the number of CPUs
this process may use, at most 4. Windows (no fork) always runs one process.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import struct
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from .errors import MsdError, UsageError

JOBS_ENV = "MSD_INSTALL_JOBS"
MAX_JOBS = 4  # more workers than this only add contention on the disk and the registry
_FRAME = struct.Struct("!Q")


def jobs(env: Mapping[str, str]) -> int:
    """How many runs may go side by side: ``MSD_INSTALL_JOBS``, else the CPUs this process
    may use (at most ``MAX_JOBS``); 1 where processes cannot be forked."""
    raw = env.get(JOBS_ENV, "").strip()
    if raw:
        if not raw.isdigit() or not 1 <= int(raw) <= 64:
            raise UsageError(f"{JOBS_ENV}={raw!r} is not a number of workers from 1 to 64")
        wanted = int(raw)
    else:
        try:
            wanted = min(len(os.sched_getaffinity(0)), MAX_JOBS)
        except AttributeError:  # pragma: no cover - macOS
            wanted = min(os.cpu_count() or 1, MAX_JOBS)
    return wanted if hasattr(os, "fork") else 1


def groups(
    names: Sequence[str], touched: Callable[[str], Sequence[Path]], base: Path
) -> list[list[str]]:
    """``names`` in groups that must run one after the other, each in the order given, the
    groups in the order of their first runtime. Two runtimes share a group when any path
    either touches (its root, its config files) lies under the same top-level entry of
    ``base``, or both touch anything outside ``base`` (or ``base`` itself)."""
    owner: dict[str, str] = {}  # key -> the group's first runtime (union-find, by name)
    parent = {name: name for name in names}

    def find(name: str) -> str:
        while parent[name] != name:
            parent[name] = parent[parent[name]]
            name = parent[name]
        return name

    for name in names:
        for path in touched(name):
            key = _key(path, base)
            if key in owner:
                a, b = find(owner[key]), find(name)
                if a != b:  # the earlier runtime's group absorbs the later one's
                    first, later = sorted((a, b), key=names.index)
                    parent[later] = first
            else:
                owner[key] = name
    out: dict[str, list[str]] = {}
    for name in names:
        out.setdefault(find(name), []).append(name)
    return list(out.values())


def _key(path: Path, base: Path) -> str:
    absolute = Path(os.path.abspath(path))  # noqa: PTH100 - no link may be followed
    if absolute.is_relative_to(base) and absolute != base:
        return "in:" + absolute.relative_to(base).parts[0]
    return "out"  # outside base (an override like CODEX_HOME), or base itself: one group


@dataclass
class Outcome:
    """What a run sent back: its result, or the error that stopped it."""

    name: str
    result: Any = None
    error: BaseException | None = None


@dataclass
class _Worker:
    pid: int
    fd: int
    group: list[str]
    buffer: bytearray = field(default_factory=bytearray)
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def finished(self) -> bool:
        """Every run of its group ended, or one stopped it."""
        return len(self.outcomes) == len(self.group) or any(
            o.error is not None for o in self.outcomes
        )


class WorkerCrashError(Exception):
    """A worker's run raised something that is not an MsdError (a bug); ``trace`` is the
    child's own traceback, which the crash log shows (cli.py ``_write_crash_log``)."""

    def __init__(self, summary: str, trace: str = "") -> None:
        super().__init__(summary)
        self.trace = trace


def run_groups(
    plan: Sequence[Sequence[str]],
    run_one: Callable[[str], Any],
    *,
    rank: Mapping[str, int],
    workers: int,
    progress: Callable[[list[str], int], None] | None = None,
    forking: Callable[[], AbstractContextManager[Any]] = nullcontext,
) -> list[Outcome]:
    """Run every group of ``plan`` (each group's runtimes in order, in one worker), at most
    ``workers`` groups at a time, none after the first error. The outcome of every run that
    ended (finished, or stopped by an error), ordered by ``rank`` (the command line's order:
    a run that finished after an error elsewhere still happened, and is reported).
    ``progress(runs under way, runs ended)`` is called in this process as that changes;
    ``forking()`` is held around each fork (the progress line's drawing lock: no other
    thread may hold a lock the child inherits)."""
    pending = [list(g) for g in plan if g]
    order = sorted((n for g in pending for n in g), key=rank.__getitem__)
    running: dict[int, _Worker] = {}
    done: dict[str, Outcome] = {}
    failed = False

    def changed() -> None:
        if progress is not None:
            now = [w.group[len(w.outcomes)] for w in running.values() if not w.finished]
            progress(sorted(now, key=rank.__getitem__), len(done))

    with _forwarding(running) as stopping:
        while pending or running:
            while pending and len(running) < workers and not failed and not stopping():
                with forking():
                    worker = _fork(pending.pop(0), run_one)
                running[worker.fd] = worker
                changed()
            if not running:
                break
            try:
                ready, _, _ = select.select(list(running), [], [])
            except InterruptedError:  # pragma: no cover - PEP 475 retries select
                continue
            for fd in ready:
                worker = running[fd]
                chunk = os.read(fd, 1 << 20)
                if chunk:
                    worker.buffer += chunk
                    for outcome in _frames(worker):
                        done[outcome.name] = outcome
                        failed = failed or outcome.error is not None
                    changed()
                    continue
                del running[fd]
                os.close(fd)
                _, status = os.waitpid(worker.pid, 0)
                lost = _lost(worker, status)
                if lost is not None:
                    done[lost.name] = lost
                    failed = True
    return [done[n] for n in order if n in done]


def _frames(worker: _Worker) -> Iterator[Outcome]:
    buf = worker.buffer
    while len(buf) >= _FRAME.size:
        (size,) = _FRAME.unpack_from(buf)
        if len(buf) < _FRAME.size + size:
            return
        outcome = pickle.loads(bytes(buf[_FRAME.size : _FRAME.size + size]))
        del buf[: _FRAME.size + size]
        worker.outcomes.append(outcome)
        yield outcome


def _lost(worker: _Worker, status: int) -> Outcome | None:
    """The outcome of the run a worker died in without sending it, if it did."""
    told = {o.name for o in worker.outcomes}
    if any(o.error is not None for o in worker.outcomes) or told == set(worker.group):
        return None
    name = next(n for n in worker.group if n not in told)
    code = os.waitstatus_to_exitcode(status)
    if code in (-signal.SIGINT, -signal.SIGTERM):
        return Outcome(name, error=KeyboardInterrupt())
    how = f"killed by signal {-code}" if code < 0 else f"exit status {code}"
    return Outcome(
        name,
        error=MsdError(
            f"the run for {name} stopped before it finished ({how})",
            hint="run the same command again: it rolls back what was interrupted first",
        ),
    )


def _fork(group: list[str], run_one: Callable[[str], Any]) -> _Worker:
    read, write = os.pipe()
    # no signal may reach the child before it has put back its own handlers: the parent's
    # (``_forwarding``) would signal the other workers from inside it
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    pid = os.fork()
    if pid:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        os.close(write)
        return _Worker(pid, read, group)
    code = 0
    try:  # the child: never returns into the parent's code, never runs its atexit hooks
        os.close(read)
        # a process group of its own: a Ctrl-C at the terminal (or a signal to the whole
        # group) reaches the parent only, which passes it on exactly once (``_forwarding``)
        os.setpgid(0, 0)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        for name in group:
            outcome = _run(name, run_one)
            _send(write, outcome)
            if outcome.error is not None:
                break
    except BaseException:  # a child must reach os._exit, whatever happened
        code = 70
    finally:
        os._exit(code)


def _run(name: str, run_one: Callable[[str], Any]) -> Outcome:
    try:
        return Outcome(name, result=run_one(name))
    except (MsdError, KeyboardInterrupt) as exc:
        return Outcome(name, error=exc)
    except Exception as exc:  # a bug: the parent reports it as its own crash
        trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        return Outcome(name, error=WorkerCrashError(f"{type(exc).__name__}: {exc}", trace))


def _send(fd: int, outcome: Outcome) -> None:
    data = pickle.dumps(outcome) if outcome.error is None else _error_frame(outcome)
    view = memoryview(_FRAME.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]


def _error_frame(outcome: Outcome) -> bytes:
    """An error's outcome, pickled; an error that does not come back whole from a pickle
    (an ``__init__`` of its own) is sent as an MsdError with its line and exit code."""
    try:
        data = pickle.dumps(outcome)
        pickle.loads(data)
        return data
    except Exception:  # an error object that does not pickle: its one line instead
        error = outcome.error
        line = error.one_line() if isinstance(error, MsdError) else f"{error}"
        stand_in = MsdError(line)
        stand_in.exit_code = getattr(error, "exit_code", MsdError.exit_code)
        return pickle.dumps(Outcome(outcome.name, error=stand_in))


@contextmanager
def _forwarding(running: dict[int, _Worker]) -> Iterator[Callable[[], bool]]:
    """While workers run: SIGTERM and SIGINT sent to this process (a Ctrl-C at the terminal
    reaches it alone: each worker has a process group of its own) go on to every worker, once;
    no further group starts, and this process waits for every worker to roll back before the
    command ends with 130."""
    stop: list[int] = []

    def forward(number: int, _frame: FrameType | None) -> None:
        stop.append(number)
        for worker in list(running.values()):
            with suppress(ProcessLookupError):
                os.kill(worker.pid, number)

    previous = {n: signal.signal(n, forward) for n in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield lambda: bool(stop)
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    if stop:
        raise KeyboardInterrupt
