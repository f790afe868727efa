"""Job control and signals to a side-by-side run (``--all``, ``msd_install.parallel``).

Workers have process groups of their own (a Ctrl-C reaches the parent alone, which passes it
on once), so the parent also passes on what a terminal's Ctrl-Z means: a stopped command
stops every worker, and ``fg``/``bg`` resumes them. A second SIGTERM while the parent ends
its own work has the first one's outcome (exit 130, one line), never a raw death.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from helpers import cli_env, run_cli, snapshot
from msd_install import parallel
from msd_install.installer import interrupts
from msd_install.runtimes import RUNTIMES

ALL = ["--all", "--global", "--yes"]


def _state(pid: int) -> str:
    """The process's state letter (R, S, T, Z...), or '' once it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat.rsplit(")", 1)[1].split()[0]


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(n) for n in text.split()]


def _start(home: Path, *extra: str) -> subprocess.Popen[str]:
    # a process group of its own, in the test's session: like a job a shell started (a
    # stop signal to a process whose group has no parent outside it would be discarded)
    return subprocess.Popen(
        [sys.executable, "-m", "msd_install", *ALL, *extra],
        cwd=home,
        env=cli_env(home, MSD_INSTALL_JOBS="2"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        process_group=0,
    )


def _end(proc: subprocess.Popen[str]) -> None:
    """A run a failed test left behind (stopped, perhaps) is killed with its workers."""
    if proc.poll() is None:
        for pid in [*_children(proc.pid), proc.pid]:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
        proc.communicate(timeout=30)


def _until(what: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not what() and time.monotonic() < deadline:
        time.sleep(0.001)


def test_ctrl_z_stops_every_worker_and_fg_resumes_them(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    # the record of manifests exists already: every run goes side by side from the start
    assert run_cli(["--kimi", "--global", "--yes"], home).returncode == 0
    proc = run_cli(ALL, home, MSD_INSTALL_JOBS="2")
    assert proc.returncode == 0, proc.stderr
    uninterrupted = snapshot(home)
    assert run_cli([*ALL, "--uninstall"], home).returncode == 0
    assert run_cli(["--kimi", "--global", "--yes"], home).returncode == 0

    proc = _start(home)
    try:
        _until(lambda: len(_children(proc.pid)) >= 2)  # both workers forked
        assert len(_children(proc.pid)) >= 2, "the run ended before its workers could be seen"
        proc.send_signal(signal.SIGTSTP)  # what a terminal's Ctrl-Z sends the foreground job
        _until(lambda: _state(proc.pid) == "T", 10)
        assert _state(proc.pid) == "T"
        # a SIGSTOP takes effect once the kernel next schedules the worker: soon, not at once
        _until(lambda: {_state(p) for p in _children(proc.pid)} <= {"T", "Z", ""}, 5)
        stopped = {pid: _state(pid) for pid in _children(proc.pid)}
        # every worker still there is stopped (one that had ended is a zombie, or gone)
        assert stopped and set(stopped.values()) <= {"T", "Z"}, stopped
        assert "T" in stopped.values(), stopped
        still = snapshot(home)
        time.sleep(0.3)
        assert snapshot(home) == still  # nothing moves while the job is stopped
        proc.send_signal(signal.SIGCONT)  # fg / bg
        out, err = proc.communicate(timeout=120)
    finally:
        _end(proc)
    assert proc.returncode == 0, err
    assert snapshot(home) == uninterrupted
    assert len([line for line in out.splitlines() if line.startswith("install ")]) == len(RUNTIMES)
    doctor = json.loads(run_cli(["doctor", "--json"], home).stdout)
    assert all(i["healthy"] for i in doctor["installs"] if i["installed"])


def _terminated_twice(home: Path) -> tuple[bool, subprocess.Popen[str], str]:
    """A run sent SIGTERM once its workers run, and again once they all ended, if it is still
    there then (held by SIGSTOP so that the second one lands in its own last steps, not after
    its exit): whether it was, the process, its stderr."""
    proc = _start(home)
    caught = False
    try:
        _until(lambda: len(_children(proc.pid)) >= 2)
        proc.send_signal(signal.SIGTERM)
        _until(lambda: not _children(proc.pid) or proc.poll() is not None, 60)
        if proc.poll() is None:  # the workers are gone; msd-install is finishing
            proc.send_signal(signal.SIGSTOP)
            _until(lambda: _state(proc.pid) in ("T", "Z", ""), 10)
            if _state(proc.pid) == "T":
                caught = True
                proc.send_signal(signal.SIGTERM)  # delivered once it runs again
                proc.send_signal(signal.SIGCONT)
        _, err = proc.communicate(timeout=120)
    finally:
        _end(proc)
    return caught, proc, err


def test_a_second_sigterm_after_the_workers_ended_has_the_first_ones_outcome(
    tmp_path: Path,
) -> None:
    """SIGTERM stops the run; a second one once every worker has rolled back and ended, while
    msd-install does its own last steps, ends the command the same way: 130, one line,
    nothing half done (it was a death by the signal, 143, with no word)."""
    caught = 0
    for attempt in range(6):
        home = tmp_path / f"home{attempt}"
        home.mkdir()
        assert run_cli(["--kimi", "--global", "--yes"], home).returncode == 0
        held, proc, err = _terminated_twice(home)
        caught += held
        assert proc.returncode == 130, (proc.returncode, err)
        assert err.strip().splitlines() == [
            "msd-install: interrupted; every change of this run was rolled back"
        ], err
        assert not list(home.rglob(".msd-journal")) and not list(home.rglob("*.msd-tmp.*"))
        doctor = json.loads(run_cli(["doctor", "--json"], home).stdout)
        assert all(i["healthy"] for i in doctor["installs"] if i["installed"])
        if caught >= 2:
            break
    assert caught, "msd-install always ended before the second signal could reach it"


def _kept_once_signalled(name: str) -> str:
    """A worker's run that has done its work (sealed, as a run removing its journal is)
    when SIGTERM reaches the command: it asks for one, gets it passed on, and is kept."""
    with interrupts.deferred():
        interrupts.seal()
        if name in ("a", "kept"):  # one signal to the command, which passes it on to each
            os.kill(os.getppid(), signal.SIGTERM)
        _until(lambda: interrupts._pending, 10)  # the signal, passed on to this worker
        interrupts.unseal(committed=True)  # raises InterruptedAfterCommitError
    return name


def _rolled_back_once_signalled(name: str) -> str:
    if name == "kept":
        time.sleep(0.3)  # the other worker, forked right after this one, is under way
        return _kept_once_signalled(name)
    time.sleep(30)  # killed by the SIGTERM passed on (its default action here)
    return name


@pytest.mark.parametrize(
    ("run_one", "plan", "raised"),
    [
        (_kept_once_signalled, [["a"]], interrupts.InterruptedAfterCommitError),
        (_rolled_back_once_signalled, [["kept"], ["slow"]], KeyboardInterrupt),
    ],
)
def test_a_signal_is_reported_as_what_it_did_to_the_runs(
    run_one: Callable[[str], str], plan: list[list[str]], raised: type[BaseException]
) -> None:
    """Every run under way had finished its work when the signal came: it was kept, and the
    command says so (``InterruptedAfterCommitError``), as one process does; if any run was
    rolled back, that is what is said."""
    rank = {n: i for i, n in enumerate(n for g in plan for n in g)}
    with pytest.raises(KeyboardInterrupt) as caught:
        parallel.run_groups(plan, run_one, rank=rank, workers=2)
    assert type(caught.value) is raised


def test_a_signal_once_every_run_ended_reports_them_all_kept(tmp_path: Path) -> None:
    """A SIGTERM that reaches the parent after every worker ended (their runs committed)
    is exit 130 "kept, nothing else was started", and the --json document lists every run
    that ended (it was an internal error, exit 3, with no results)."""
    home = tmp_path / "home"
    home.mkdir()
    assert run_cli(["--claude", "--global", "--yes"], home).returncode == 0  # the record first
    proc = _start(home, "--json")
    try:
        deadline = time.monotonic() + 30
        while not _children(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.005)
        os.kill(proc.pid, signal.SIGSTOP)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            states = [_state(k) for k in _children(proc.pid)]
            if all(s in ("Z", "") for s in states):
                break
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGTERM)
        os.kill(proc.pid, signal.SIGCONT)
        out, err = proc.communicate(timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
    assert proc.returncode == 130, err
    assert "internal error" not in err
    assert err.strip() == f"msd-install: {interrupts_line()}"
    doc = json.loads(out)
    assert doc["exit_code"] == 130 and doc["error"]["kind"] == "interrupted"
    ended = [r["runtime"] for r in doc["results"]]
    assert ended and len(set(ended)) == len(ended)  # the runs of the workers that ran
    for result in doc["results"]:
        assert (Path(result["root"]) / "msd-file-manifest.json").is_file()
    assert not list(home.rglob(".msd-journal"))
    health = run_cli(["doctor", "--json"], home)
    installed = {i["runtime"] for i in json.loads(health.stdout)["installs"] if i["installed"]}
    assert installed == {*ended, "claude"}  # what was reported, and nothing else started


def interrupts_line() -> str:
    from msd_install.cli import INTERRUPTED_AFTER

    return INTERRUPTED_AFTER


def test_a_signal_while_the_report_is_written_keeps_the_runs_and_adds_no_document(
    tmp_path: Path,
) -> None:
    """Every run committed, the --json report is being written to a pipe no one reads yet
    (it fills at 64 KiB): a Ctrl-C then cuts the report short only. Exit 130 "kept", and no
    second JSON document after the first one's start (there were two, the second saying
    every change was rolled back)."""
    home = tmp_path / "home"
    home.mkdir()
    read_end, write_end = os.pipe()
    with contextlib.suppress(OSError):  # a small pipe: the report surely fills it
        import fcntl

        fcntl.fcntl(write_end, getattr(fcntl, "F_SETPIPE_SZ", 1031), 4096)
    proc = subprocess.Popen(
        [sys.executable, "-m", "msd_install", *ALL, "--json"],
        cwd=home,
        env=cli_env(home),
        stdout=write_end,
        stderr=subprocess.PIPE,
        process_group=0,
    )
    os.close(write_end)
    stdout = os.fdopen(read_end, "rb")
    try:
        deadline = time.monotonic() + 120
        manifests = 0
        while time.monotonic() < deadline and proc.poll() is None:
            with contextlib.suppress(FileNotFoundError):  # a journal going while it is walked
                manifests = len(list(home.rglob("msd-file-manifest.json")))
            if manifests == len(RUNTIMES) and not _children(proc.pid):
                break
            time.sleep(0.05)
        assert manifests == len(RUNTIMES) and proc.poll() is None  # blocked on its report
        time.sleep(0.3)
        os.kill(proc.pid, signal.SIGINT)
        out = stdout.read()
        _, err = proc.communicate(timeout=60)
    finally:
        stdout.close()
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
    assert proc.returncode == 130, err
    assert err.decode().strip().splitlines()[-1] == f"msd-install: {interrupts_line()}"
    assert out.count(b'"format"') <= 1 and b'"results": []' not in out
    assert len(list(home.rglob("msd-file-manifest.json"))) == len(RUNTIMES)
