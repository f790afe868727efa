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
leaves its run to the journal, which the next run of msd-install rolls back. Ctrl-Z (SIGTSTP)
stops every worker with the command, and ``fg`` or ``bg`` (SIGCONT) resumes them all
(``_forwarding``).

Why processes: the work is Python code and the GIL holds threads to one core; why fork:
a fresh interpreter would pay the imports and the payload again. ``MSD_INSTALL_JOBS``
sets the number of workers (``jobs.py``; 1: one process, as before); the default is the
number of CPUs this process may use, at most 4. Windows (no fork) always runs one process.
"""

from __future__ import annotations

import os
import signal
import struct
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from .errors import MsdError, WorkerLostError

_FRAME = struct.Struct("!Q")


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
    # where it really is: two roots may be one folder through a link (KILO_CONFIG_DIR)
    real, home = Path(os.path.realpath(path)), Path(os.path.realpath(base))
    if real.is_relative_to(home) and real != home:
        return "in:" + real.relative_to(home).parts[0]
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
    fd: int  # what the worker sends: its outcomes
    control: int  # what this process sends: a byte (or its end) means "start no more runs"
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
    """A worker's run raised something that is not an MsdError (a bug): reported as that
    error (``kind``, its class's name, and its message), with the child's own traceback in
    the crash log (``trace``, cli.py ``_write_crash_log``)."""

    def __init__(self, kind: str, message: str = "", trace: str = "") -> None:
        super().__init__(kind, message, trace)
        self.kind, self.message, self.trace = kind, message, trace

    def __str__(self) -> str:
        return self.message


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
    ``workers`` groups at a time; after the first error no run starts, in any worker. The
    outcome of every run that ended (finished, or stopped by an error), ordered by ``rank``
    (the command line's order: a run that finished after an error elsewhere still happened,
    and is reported). ``progress(runs under way, runs ended)`` is called in this process as
    that changes; ``forking()`` is held around each fork (the progress line's drawing lock:
    no other thread may hold a lock the child inherits)."""
    import select

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
                # a signal may not land between the fork and ``running`` knowing the worker:
                # it is held until then, and ``_forwarding`` passes it on to the new one too
                with forking(), _signals_held():
                    worker = _fork(pending.pop(0), run_one)
                    running[worker.fd] = worker
                changed()
            if not running:
                break
            ready, _, _ = select.select(list(running), [], [])
            for fd in ready:
                worker = running[fd]
                chunk = os.read(fd, 1 << 20)
                if chunk:
                    worker.buffer += chunk
                    for outcome in _frames(worker):
                        done[outcome.name] = outcome
                        if outcome.error is not None and not failed:
                            failed = True
                            _stop_all(running)
                    changed()
                    continue
                del running[fd]
                os.close(fd)
                _close(worker)
                _, status = os.waitpid(worker.pid, 0)
                lost = _lost(worker, status)
                if lost is not None:
                    done[lost.name] = lost
                    if not failed:
                        failed = True
                        _stop_all(running)
    if stopping():
        raise _interrupt(list(done.values()))
    return [done[n] for n in order if n in done]


def _interrupt(outcomes: list[Outcome]) -> KeyboardInterrupt:
    """What a signal did, as one process reports it: a run rolled back if any was (a plain
    ``KeyboardInterrupt``); else the runs under way had done their work and were kept
    (``InterruptedAfterCommitError``, from the worker that says so, or made here when every
    run had ended before the signal came). ``results``: the runs that ended with a result,
    reported with it."""
    stopped = [o.error for o in outcomes if isinstance(o.error, KeyboardInterrupt)]
    rolled = [e for e in stopped if type(e) is KeyboardInterrupt]
    error: KeyboardInterrupt
    if rolled or stopped:
        error = rolled[0] if rolled else stopped[0]
    elif any(o.error is None for o in outcomes):
        from .installer.interrupts import InterruptedAfterCommitError

        error = InterruptedAfterCommitError()
    else:  # no run had started
        error = KeyboardInterrupt()
    error.results = [o.result for o in outcomes if o.error is None]  # type: ignore[attr-defined]
    return error


def _stop_all(running: dict[int, _Worker]) -> None:
    """No worker starts another run (the one under way finishes or rolls back whole)."""
    for worker in running.values():
        with suppress(OSError):
            os.write(worker.control, b"x")
        _close(worker)


def _close(worker: _Worker) -> None:
    if worker.control >= 0:
        with suppress(OSError):
            os.close(worker.control)
        worker.control = -1


_HELD = {signal.SIGINT, signal.SIGTERM, signal.SIGTSTP, signal.SIGCONT}


@contextmanager
def _signals_held() -> Iterator[None]:
    held = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _frames(worker: _Worker) -> Iterator[Outcome]:
    import pickle

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
    if len(told) < len(worker.group) and _stopped_cleanly(status):
        return None  # told to start no more runs, it started none: nothing was lost
    name = next(n for n in worker.group if n not in told)
    code = os.waitstatus_to_exitcode(status)
    if code in (-signal.SIGINT, -signal.SIGTERM):
        return Outcome(name, error=KeyboardInterrupt())
    how = f"killed by signal {-code}" if code < 0 else f"exit status {code}"
    return Outcome(
        name,
        error=WorkerLostError(
            f"the run for {name} stopped before it finished ({how})",
            hint="run the same command again: it rolls back what was interrupted first",
        ),
    )


def _stopped_cleanly(status: int) -> bool:
    return os.waitstatus_to_exitcode(status) == _STOPPED


_STOPPED = 75  # a worker's exit status when it was told to start no more runs


def _fork(group: list[str], run_one: Callable[[str], Any]) -> _Worker:
    """A worker for ``group`` (with the signals ``_forwarding`` passes on held by the caller)."""
    read, write = os.pipe()
    control_read, control = os.pipe()
    pid = os.fork()
    if pid:
        os.close(write)
        os.close(control_read)
        # its group, made on this side too (as a shell does): a Ctrl-Z that comes before the
        # child's own ``setpgid`` still finds the group to stop
        with suppress(OSError):
            os.setpgid(pid, pid)
        return _Worker(pid, read, control, group)
    code = 0
    try:  # the child: never returns into the parent's code, never runs its atexit hooks
        os.close(read)
        os.close(control)
        # a process group of its own: a Ctrl-C at the terminal (or a signal to the whole
        # group) reaches the parent only, which passes it on exactly once (``_forwarding``)
        with suppress(OSError):  # the parent may have made it already
            os.setpgid(0, 0)
        for number in (signal.SIGTERM, signal.SIGTSTP, signal.SIGCONT):
            signal.signal(number, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)
        for n, name in enumerate(group):
            if n and _told_to_stop(control_read):
                code = _STOPPED
                break
            outcome = _run(name, run_one)
            _send(write, outcome)
            if outcome.error is not None:
                break
    except BaseException:  # a child must reach os._exit, whatever happened
        code = 70
    finally:
        os._exit(code)


def _told_to_stop(control: int) -> bool:
    """An error elsewhere (a byte), or this process's parent gone (the pipe's end)."""
    import select

    ready, _, _ = select.select([control], [], [], 0)
    return bool(ready)


def _run(name: str, run_one: Callable[[str], Any]) -> Outcome:
    try:
        return Outcome(name, result=run_one(name))
    except (MsdError, KeyboardInterrupt) as exc:
        return Outcome(name, error=exc)
    except Exception as exc:  # a bug: the parent reports it as its own crash
        import traceback

        trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        return Outcome(name, error=WorkerCrashError(type(exc).__name__, f"{exc}", trace))


def _send(fd: int, outcome: Outcome) -> None:
    import pickle

    data = pickle.dumps(outcome) if outcome.error is None else _error_frame(outcome)
    view = memoryview(_FRAME.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]


def _error_frame(outcome: Outcome) -> bytes:
    """An error's outcome, pickled; an error that does not come back whole from a pickle
    (an ``__init__`` of its own) is sent as the nearest class above it that does, with its
    line and exit code."""
    import pickle

    error = outcome.error
    try:
        data = pickle.dumps(outcome)
        pickle.loads(data)
        return data
    except Exception:  # an error object that does not pickle: its one line instead
        line = error.one_line() if isinstance(error, MsdError) else f"{error}"
        ours = [c for c in type(error).__mro__ if c.__module__ == MsdError.__module__]
        for cls in ours:
            if issubclass(cls, MsdError):
                try:
                    stand_in = cls(line)
                    stand_in.exit_code = getattr(error, "exit_code", cls.exit_code)
                    data = pickle.dumps(Outcome(outcome.name, error=stand_in))
                    pickle.loads(data)
                    return data
                except Exception:  # not this one: the next class up
                    continue
        fallback = WorkerLostError(line)
        fallback.exit_code = getattr(error, "exit_code", MsdError.exit_code)
        return pickle.dumps(Outcome(outcome.name, error=fallback))


@contextmanager
def _forwarding(running: dict[int, _Worker]) -> Iterator[Callable[[], bool]]:
    """While workers run: SIGTERM and SIGINT sent to this process (a Ctrl-C at the terminal
    reaches it alone: each worker has a process group of its own) go on to every worker, once;
    no further group starts, and this process waits for every worker to roll back before the
    command ends with 130 (``run_groups`` raises the interrupt once they all have). Job
    control goes on too: SIGTSTP (Ctrl-Z) stops every worker's group, then this process (as
    the default action would); SIGCONT (``fg``, ``bg``) resumes them. A stopped run holds its
    locks and goes on from where it was once resumed."""
    stop: list[int] = []

    def forward(number: int, _frame: FrameType | None) -> None:
        stop.append(number)
        for worker in list(running.values()):
            with suppress(ProcessLookupError):
                os.kill(worker.pid, number)

    def suspend(_number: int, _frame: FrameType | None) -> None:
        _each_group(running, signal.SIGSTOP)
        signal.signal(signal.SIGTSTP, signal.SIG_DFL)
        try:  # stopped right here, until a SIGCONT (discarded, and so no stop, when no
            os.kill(os.getpid(), signal.SIGTSTP)  # shell's job holds this process)
        finally:
            signal.signal(signal.SIGTSTP, suspend)
            _each_group(running, signal.SIGCONT)

    def resume(_number: int, _frame: FrameType | None) -> None:
        _each_group(running, signal.SIGCONT)

    handlers = {
        signal.SIGTERM: forward,
        signal.SIGINT: forward,
        signal.SIGTSTP: suspend,
        signal.SIGCONT: resume,
    }
    previous = {n: signal.signal(n, h) for n, h in handlers.items()}
    try:
        yield lambda: bool(stop)
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _each_group(running: dict[int, _Worker], number: int) -> None:
    """``number`` to the process group of every worker (its own: ``_fork``)."""
    for worker in list(running.values()):
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(worker.pid, number)
