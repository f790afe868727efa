"""Registered hooks run from bytecode Python caches beside them, and uninstall removes it.

Each registered hook is installed as a launcher and its code (payload/hookcode.py). Here, for
every runtime and scope: every launcher installed runs (its first call writes the bytecode, the
second loads it), and uninstall then gives back the exact tree from before the install.
"""

from __future__ import annotations

import json
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


def _read_env(launcher: Path, project: Path) -> subprocess.CompletedProcess[str]:
    event = {"session_id": "s", "cwd": str(project), "hook_event_name": "PreToolUse"}
    event |= {"tool_name": "Read", "tool_input": {"file_path": str(project / ".env")}}
    return subprocess.run(
        [sys.executable, "-I", "-S", str(launcher)],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        cwd=project,
        timeout=60,
    )


@pytest.mark.parametrize("damage", ["missing", "syntax error", "directory", "dangling link"])
def test_a_guard_whose_code_cannot_be_loaded_fails_closed(tmp_path: Path, damage: str) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    project.mkdir(parents=True)
    (project / ".env").write_text("TOKEN=x\n")
    home.mkdir()
    assert run_cli(["--claude", "--global", "--yes"], home).returncode == 0
    launcher = home / ".claude/hooks/msd-secret-read-guard.py"
    assert _read_env(launcher, project).returncode == 2  # intact: blocked by the guard
    code = launcher.with_name("msd-secret-read-guard" + CODE_SUFFIX)
    code.unlink()
    if damage == "syntax error":
        code.write_text("def (:\n")
    elif damage == "directory":
        code.mkdir()
    elif damage == "dangling link":
        code.symlink_to(tmp_path / "nowhere.py")
    proc = _read_env(launcher, project)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("MSD hook msd-secret-read-guard-code.py cannot be loaded (")


@pytest.mark.parametrize("damage", ["truncated", "not code", "empty"])
def test_a_damaged_bytecode_cache_is_passed_over(tmp_path: Path, damage: str) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    project.mkdir(parents=True)
    (project / ".env").write_text("TOKEN=x\n")
    (project / "notes.txt").write_text("hello\n")
    home.mkdir()
    assert run_cli(["--claude", "--global", "--yes"], home).returncode == 0
    launcher = home / ".claude/hooks/msd-secret-read-guard.py"
    assert _read_env(launcher, project).returncode == 2  # writes the cache
    (cache,) = (launcher.parent / "__pycache__").glob("msd-secret-read-guard-code.*.pyc")
    data = cache.read_bytes()
    import marshal

    body = {"truncated": data[16:116], "not code": marshal.dumps(42), "empty": b""}[damage]
    cache.write_bytes(data[:16] + body)  # the header still matches the source
    proc = _read_env(launcher, project)
    assert proc.returncode == 2 and ".env" in proc.stderr, proc.stderr  # still guarding
    other = subprocess.run(
        [sys.executable, "-I", "-S", str(launcher)],
        input=json.dumps(
            {
                "session_id": "s",
                "cwd": str(project),
                "hook_event_name": "PreToolUse",
                "tool_name": "Read",
                "tool_input": {"file_path": str(project / "notes.txt")},
            }
        ),
        capture_output=True,
        text=True,
        cwd=project,
        timeout=60,
    )
    assert other.returncode == 0, other.stderr


def test_an_upgrade_that_drops_a_hook_removes_what_python_compiled_from_it(
    tmp_path: Path,
) -> None:
    """A version that shipped one more hook, run once; the next version no longer ships it:
    the script goes, and so does its bytecode (uninstall then leaves nothing behind)."""
    import dataclasses
    import py_compile
    from importlib.util import cache_from_source

    from lifecycle.fixtures import context
    from msd_install.installer import engine
    from msd_install.installer.plan import FileOp
    from msd_install.payload import load

    home = tmp_path / "home"
    home.mkdir()
    before = snapshot(home)
    ctx = context(home)
    plan = ADAPTERS["claude"].plan(ctx, load())
    gone = plan.root / "hooks" / ("msd-gone" + CODE_SUFFIX)
    older = dataclasses.replace(plan, files=(*plan.files, FileOp(gone, b"print(1)\n", 0o755)))
    engine.install(older, ctx)
    compiled = Path(cache_from_source(str(gone)))
    py_compile.compile(str(gone), cfile=str(compiled), doraise=True)  # as its first run did
    mine = compiled.with_name("msd-gone-code.my-notes.pyc")  # named like one, but not Python's
    mine.write_bytes(b"mine")
    proc = run_cli(["--claude", "--global", "--yes"], home)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not gone.exists() and not compiled.exists()
    assert "compiled from an msd file" in proc.stdout + proc.stderr or "removed" in proc.stdout
    assert mine.read_bytes() == b"mine"
    mine.unlink()
    assert run_cli(["--claude", "--global", "--yes", "--uninstall"], home).returncode == 0
    assert snapshot(home) == before


def test_uninstall_keeps_a_file_in_pycache_that_python_did_not_name(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    assert run_cli(["--claude", "--global", "--yes"], home).returncode == 0
    launcher = home / ".claude/hooks/msd-session-state.py"
    assert _run(launcher, home).returncode == 0
    cache = launcher.parent / "__pycache__"
    mine = cache / "msd-session-state-code.mybackup.pyc"
    mine.write_bytes(b"mine")
    assert run_cli(["--claude", "--global", "--yes", "--uninstall"], home).returncode == 0
    assert mine.read_bytes() == b"mine"
    assert [p.name for p in cache.iterdir()] == [mine.name]
