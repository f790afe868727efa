"""An uninstall removes each file by one rename into its journal, read and hashed once.

The file itself is its backup (``Transaction._move_aside``): resolution's read and hash are the
run's only ones, so a file that changed since resolution read it is not removed (the run
stops and rolls back, the change kept); a file with other hard links, or whose journal is on
another file system, is copied there instead; a journal line whose rename never happened
leaves the file where it is, and one whose backup is not a plain file is refused.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from helpers import (
    build,
    global_context,
    run_cli,
    snapshot,
    snapshot_but_registry,
    uninstall_claude,
)
from msd_install.errors import ConcurrentChangeError
from msd_install.installer import engine
from msd_install.installer.context import Context
from msd_install.installer.manifestcheck import JOURNAL_DIR
from msd_install.payload import load
from msd_install.runtimes import ADAPTERS

SKILL = ".claude/skills/msd-help/SKILL.md"
HEADER = {"msd_journal": 1, "verb": "uninstall", "pid": 1, "started": "2026-01-01 10:00:00"}


def ctx_for(home: Path) -> Context:
    ctx: Context = global_context(home, state_dir=home / ".local/state/msd")
    return ctx


def installed(home: Path) -> Context:
    build(home, {".claude/settings.json": '{"model": "opus"}\n'})
    ctx = ctx_for(home)
    engine.install(ADAPTERS["claude"].plan(ctx, load()), ctx)
    return ctx


@pytest.mark.parametrize("change", ["write", "same size", "chmod", "replace"])
def test_a_file_changed_after_resolution_read_it_is_not_removed(
    tmp_path: Path, change: str
) -> None:
    """Changed by another program between resolution and its removal (here: right before
    the run's first change): the run stops, rolls back, and the change is kept."""
    home = tmp_path / "home"
    ctx = installed(home)
    skill = home / SKILL
    before = snapshot(home)

    def edit(n: int) -> None:
        if n != 1:
            return
        data = skill.read_bytes()
        if change == "write":
            skill.write_bytes(data + b"my note\n")
        elif change == "same size":
            skill.write_bytes(data.upper())
        elif change == "chmod":
            skill.chmod(0o600)
        else:
            skill.with_name("new").write_bytes(data)
            skill.with_name("new").replace(skill)

    with pytest.raises(ConcurrentChangeError) as caught:
        uninstall_claude(ctx, fault=edit)
    assert caught.value.path == skill
    now = snapshot(home)
    changed = now.pop(SKILL)
    expected = dict(before)
    original = expected.pop(SKILL)
    assert now == expected  # everything else as before the run
    if change == "write":
        assert changed[0] == original[0] + b"my note\n"
    elif change == "same size":
        assert changed[0] == original[0].upper()
    elif change == "chmod":
        assert changed == (original[0], "0o600")
    else:
        assert changed == original  # same bytes, another file: still not removed blindly
    assert not (home / ".claude" / JOURNAL_DIR).exists()


def test_a_file_with_another_hard_link_is_copied_aside_and_the_link_keeps_it(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    ctx = installed(home)
    skill = home / SKILL
    data = skill.read_bytes()
    os.link(skill, tmp_path / "my-link")
    uninstall_claude(ctx)
    assert not skill.exists()
    assert (tmp_path / "my-link").read_bytes() == data
    assert os.stat(tmp_path / "my-link").st_nlink == 1


def test_a_journal_on_another_file_system_is_copied_to(tmp_path: Path) -> None:
    """``~/.claude`` linked to a folder on another file system (tmpfs): the ``~/.claude.json``
    msd created cannot be renamed into the journal, so it is copied there; an uninstall
    still leaves the exact tree from before, and a rollback puts every file back."""
    shm = Path("/dev/shm")
    if not shm.is_dir() or os.stat(shm).st_dev == os.stat(tmp_path).st_dev:
        pytest.skip("needs a second file system at /dev/shm")
    home = tmp_path / "home"
    home.mkdir()
    elsewhere = Path(os.path.realpath(shm)) / f"msd-test-{os.getpid()}-{tmp_path.name}"
    elsewhere.mkdir()
    try:
        (home / ".claude").symlink_to(elsewhere)
        (elsewhere / "settings.json").write_text('{"model": "opus"}\n')
        original = snapshot(home) | {"elsewhere": snapshot(elsewhere)}
        ctx = ctx_for(home)
        engine.install(ADAPTERS["claude"].plan(ctx, load()), ctx)
        assert (home / ".claude.json").is_file()
        installed_tree = snapshot(home) | {"elsewhere": snapshot(elsewhere)}

        def fail_once_copied(n: int) -> None:  # right after .claude.json was taken away
            if not (home / ".claude.json").exists():
                raise RuntimeError("disk on fire")

        with pytest.raises(RuntimeError):
            uninstall_claude(ctx, fault=fail_once_copied)
        assert snapshot(home) | {"elsewhere": snapshot(elsewhere)} == installed_tree
        uninstall_claude(ctx)
        assert snapshot_but_registry(home) | {"elsewhere": snapshot(elsewhere)} == original
    finally:
        for dirpath, dirnames, filenames in os.walk(elsewhere, topdown=False):
            for name in filenames:
                os.unlink(os.path.join(dirpath, name))
            for name in dirnames:
                os.rmdir(os.path.join(dirpath, name))
        elsewhere.rmdir()


def _plant(root: Path, line: dict[str, object], files: dict[str, bytes]) -> None:
    where = root / JOURNAL_DIR
    where.mkdir()
    (where / "intent").write_text("".join(json.dumps(x) + "\n" for x in (HEADER, line)))
    for name, data in files.items():
        (where / name).write_bytes(data)


def test_recovery_of_a_move_that_never_happened_leaves_the_file(tmp_path: Path) -> None:
    home = tmp_path / "home"
    build(home, {".claude/agents/mine.md": "mine\n", ".claude/settings.json": "{}\n"})
    before = snapshot(home)
    digest = hashlib.sha256(b"mine\n").hexdigest()
    line = {"op": "file", "path": "agents/mine.md", "was": "file", "backup": "1.bak"}
    _plant(home / ".claude", {**line, "mode": 0o644, "sha256": digest, "moved": True}, {})
    proc = run_cli(["--claude", "--global", "--uninstall", "--yes"], home)
    assert proc.returncode == 0, proc.stderr
    assert "recovered: an interrupted uninstall" in proc.stdout
    assert snapshot(home) == before


def test_recovery_puts_a_moved_file_back_with_the_bytes_it_held(tmp_path: Path) -> None:
    """The backup is the file itself: put back as it is, even if it no longer hashes as the
    line says (it was changed in the instant before the rename: those bytes are someone's)."""
    home = tmp_path / "home"
    build(home, {".claude/settings.json": "{}\n"})
    digest = hashlib.sha256(b"what resolution read\n").hexdigest()
    line = {"op": "file", "path": "agents/mine.md", "was": "file", "backup": "1.bak"}
    (home / ".claude/agents").mkdir()
    _plant(
        home / ".claude",
        {**line, "mode": 0o600, "sha256": digest, "moved": True},
        {"1.bak": b"an edit made just before\n"},
    )
    proc = run_cli(["--claude", "--global", "--uninstall", "--yes"], home)
    assert proc.returncode == 0, proc.stderr
    assert "recovered: an interrupted uninstall" in proc.stdout
    mine = home / ".claude/agents/mine.md"
    assert mine.read_bytes() == b"an edit made just before\n"
    assert oct(mine.stat().st_mode & 0o777) == "0o600"
    assert not (home / ".claude" / JOURNAL_DIR).exists()


@pytest.mark.parametrize("kind", ["symlink", "directory", "bad flag"])
def test_a_moved_backup_that_is_not_a_plain_file_is_refused(tmp_path: Path, kind: str) -> None:
    home = tmp_path / "home"
    build(home, {".claude/settings.json": "{}\n", "secret": "not msd's\n"})
    digest = hashlib.sha256(b"x").hexdigest()
    line = {"op": "file", "path": "agents/mine.md", "was": "file", "backup": "1.bak"}
    moved: object = "yes" if kind == "bad flag" else True
    _plant(home / ".claude", {**line, "mode": 0o644, "sha256": digest, "moved": moved}, {})
    backup = home / ".claude" / JOURNAL_DIR / "1.bak"
    if kind == "symlink":
        backup.symlink_to(home / "secret")
    elif kind == "directory":
        backup.mkdir()
    before = snapshot(home)
    proc = run_cli(["--claude", "--global", "--uninstall", "--yes"], home)
    assert proc.returncode == 4, proc.stdout + proc.stderr
    assert "journal of an interrupted run refused" in proc.stderr
    assert snapshot(home) == before


def test_a_file_replaced_between_the_check_and_its_rename_is_put_back(tmp_path: Path) -> None:
    """Replaced by another program after the removal checked it and wrote its journal line,
    right before the rename: the file moved is not the one resolution read, so the run stops,
    rolls back, and the other program's file is back in place (it was moved and deleted)."""
    home = tmp_path / "home"
    ctx = installed(home)
    skill = home / SKILL
    intent = home / ".claude" / JOURNAL_DIR / "intent"
    before = snapshot(home)
    swapped: list[int] = []

    def swap(n: int) -> None:
        if swapped or not intent.exists() or "skills/msd-help/SKILL.md" not in intent.read_text():
            return
        skill.with_name("theirs").write_bytes(b"their own file\n")
        skill.with_name("theirs").replace(skill)  # another inode, after the check
        swapped.append(n)

    with pytest.raises(ConcurrentChangeError) as caught:
        uninstall_claude(ctx, fault=swap)
    assert swapped and caught.value.path == skill
    now = snapshot(home)
    assert now.pop(SKILL)[0] == b"their own file\n"
    expected = dict(before)
    expected.pop(SKILL)
    assert now == expected
    assert not (home / ".claude" / JOURNAL_DIR).exists()
