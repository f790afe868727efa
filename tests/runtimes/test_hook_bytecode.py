"""Registered hooks run from bytecode Python caches beside them, and uninstall removes it.

Each registered hook is installed as a launcher and its code (payload/hookcode.py). Here, for
every runtime and scope: every launcher installed runs (its first call writes the bytecode, the
second loads it), and uninstall then gives back the exact tree from before the install.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from helpers import run_cli, snapshot
from msd_install.payload.hookcode import CODE_SUFFIX
from msd_install.runtimes import ADAPTERS

MARK = b"MSD Core hook launcher"
CASES = [(n, s) for n in sorted(ADAPTERS) for s in ("global", "local") if s in ADAPTERS[n].scopes]


def _launchers(where: Path) -> list[Path]:
    return sorted(
        p
        for p in where.rglob("*.py")
        if p.is_file() and not p.is_symlink() and MARK in p.read_bytes()[:200]
    )


def _run(launcher: Path, cwd: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-I", "-S", *flags, str(launcher)],
        input="{}",
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
    )


@pytest.mark.parametrize(("runtime", "scope"), CASES, ids=[f"{n}-{s}" for n, s in CASES])
def test_hooks_run_from_cached_bytecode_and_leave_nothing(
    tmp_path: Path, runtime: str, scope: str
) -> None:
    home, project = tmp_path / "home", tmp_path / "home" / "proj"
    project.mkdir(parents=True)
    before = snapshot(home)
    args = [f"--{runtime}", f"--{scope}", "--yes"]
    assert run_cli(args, home, cwd=project).returncode == 0
    launchers = _launchers(home)
    if not launchers:
        pytest.skip(f"{runtime} {scope}: no msd hook is installed")
    for launcher in launchers:
        code = launcher.with_name(launcher.name[: -len(".py")] + CODE_SUFFIX)
        assert code.is_file(), launcher
        first = _run(launcher, project)
        assert "Traceback" not in first.stderr, (launcher, first.stderr)
        cached = list((launcher.parent / "__pycache__").glob(f"{code.stem}.*.pyc"))
        assert len(cached) == 1, launcher  # written by the first call
        second = _run(launcher, project, "-v")  # -v: Python says where code comes from
        assert f"{cached[0]} matches {code}" in second.stderr, second.stderr[-2000:]
    assert run_cli([*args, "--uninstall"], home, cwd=project).returncode == 0
    assert snapshot(home) == before


def test_an_edited_hook_runs_as_edited(tmp_path: Path) -> None:
    """The cache is Python's own, checked against the source: an edit is never run stale."""
    home = tmp_path / "home"
    home.mkdir()
    assert run_cli(["--claude", "--global", "--yes"], home).returncode == 0
    launcher = home / ".claude/hooks/msd-session-state.py"
    assert _run(launcher, home).returncode == 0
    code = launcher.with_name("msd-session-state" + CODE_SUFFIX)
    code.write_text('import sys\nsys.stdout.write("edited " + __name__ + " " + __file__)\n')
    assert _run(launcher, home).stdout == f"edited __main__ {code}"
