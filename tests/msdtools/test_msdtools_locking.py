"""Concurrent STATE.md writers lose nothing; a stale lock is broken, a live one is waited for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from msdtools_util import cli_env, ok

WRITERS = 8


def _spawn(project: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "msd_install.msdcore.tools_cli", *args],
        cwd=project,
        env=cli_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_parallel_updates_of_different_fields_all_land(project: Path) -> None:
    # Each writer sets its own field; without the lock, read-modify-write races drop some.
    jobs = [
        ("update", "total_phases", "11"),
        ("update", "completed_phases", "12"),
        ("update", "total_plans", "13"),
        ("update", "completed_plans", "14"),
        ("patch", "--json", json.dumps({"stopped_at": "task 3", "resume_file": "x.md"})),
        ("patch", "--json", json.dumps({"milestone_name": "Launch", "current_plan": 5})),
        ("update", "last_activity", "parallel"),
        ("update", "blockers", '["b1", "b2"]'),
    ]
    assert len(jobs) == WRITERS
    procs = [_spawn(project, "state", *job) for job in jobs]
    for proc in procs:
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, out + err
    fields = ok(project, "state", "load")["fields"]
    assert fields["total_phases"] == 11
    assert fields["completed_phases"] == 12
    assert fields["total_plans"] == 13
    assert fields["completed_plans"] == 14
    assert fields["stopped_at"] == "task 3" and fields["resume_file"] == "x.md"
    assert fields["milestone_name"] == "Launch" and fields["current_plan"] == 5
    assert fields["last_activity"] == "parallel"
    assert fields["blockers"] == ["b1", "b2"]
    assert not (project / ".planning/.state.lock").exists()
    leftovers = [p.name for p in (project / ".planning").iterdir() if p.name.startswith(".")]
    assert leftovers == []  # no temp files or locks left behind


def test_a_stale_lock_is_broken(project: Path) -> None:
    lock = project / ".planning/.state.lock"
    lock.write_text("99999999\n")
    old = time.time() - 60
    os.utime(lock, (old, old))
    started = time.monotonic()
    ok(project, "state", "update", "status", "executing")
    assert time.monotonic() - started < 10
    assert not lock.exists()
    assert ok(project, "state", "get", "status")["value"] == "executing"


def test_a_live_lock_is_waited_for_not_broken(project: Path) -> None:
    lock = project / ".planning/.state.lock"
    lock.write_text(f"{os.getpid()}\n")
    released = threading.Event()

    def release() -> None:
        time.sleep(1.0)
        lock.unlink()
        released.set()

    proc = _spawn(project, "state", "update", "status", "planning")
    threading.Thread(target=release, daemon=True).start()
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, out + err
    assert released.is_set()  # the writer finished only after the holder let go
    assert ok(project, "state", "get", "status")["value"] == "planning"
