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
from pathlib import Path

from helpers import cli_env, run_cli, snapshot
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


def _until(what: object, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not what() and time.monotonic() < deadline:  # type: ignore[operator]
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
