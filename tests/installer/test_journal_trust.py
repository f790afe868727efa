"""A journal found in a root is untrusted input (it may come with a cloned project).

Every path is validated like a manifest's, backups must hash as the journal says, size is
bounded; a journal that fails is refused with one line (exit 4) and nothing is touched, by
every verb. Also: the temp file of an interrupted write never stays behind.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from helpers import build, run_cli, snapshot
from msd_install.installer import fs
from msd_install.installer.dirfd import Dirs
from msd_install.installer.manifestcheck import JOURNAL_DIR
from msd_install.installer.recovery import MAX_INTENT

HEADER = {"msd_journal": 1, "verb": "install", "pid": 1, "started": "2026-01-01 10:00:00"}


def plant(root: Path, *lines: dict[str, Any], files: dict[str, bytes] | None = None) -> Path:
    where = root / JOURNAL_DIR
    where.mkdir(parents=True)
    text = "".join(json.dumps(line) + "\n" for line in (HEADER, *lines))
    (where / "intent").write_text(text)
    for name, data in (files or {}).items():
        (where / name).write_bytes(data)
    return where


@pytest.fixture()
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    build(h, {".claude/settings.json": '{"model": "x"}\n', ".claude.json": "{}\n"})
    return h


def refused(home: Path, argv: list[str], cwd: Path | None = None) -> str:
    before = snapshot(home)
    proc = run_cli(argv, home, cwd)
    assert proc.returncode == 4, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "journal of an interrupted run refused" in lines[0], lines
    assert snapshot(home) == before  # nothing touched, the journal included
    return lines[0]


@pytest.mark.parametrize(
    ("entry", "why"),
    [
        ({"op": "file", "path": "../../etc/passwd", "was": "absent"}, "'..' component"),
        ({"op": "file", "path": "/etc/passwd", "was": "absent"}, "absolute"),
        ({"op": "file", "path": ".msd-install.lock", "was": "absent"}, "the lock itself"),
        ({"op": "chmod", "path": "x"}, "not a change this version writes"),
        ({"op": "rmdir", "path": "skills"}, "without a directory mode"),
        ({"op": "file", "path": "a", "was": "file", "backup": "../x", "mode": 420}, "<n>.bak"),
    ],
)
def test_a_malformed_line_is_refused_by_every_verb(
    home: Path, entry: dict[str, Any], why: str
) -> None:
    plant(home / ".claude", entry)
    for argv in (["--claude", "--global", "-y"], ["--claude", "--global", "-y", "--uninstall"]):
        assert why in refused(home, argv)
    assert why in refused(home, ["--claude", "--global", "-y", "--check"])
    assert why in refused(home, ["doctor"])


def test_a_backup_that_does_not_hash_as_named_is_refused(home: Path) -> None:
    entry = {
        "op": "file",
        "path": "settings.json",
        "was": "file",
        "backup": "1.bak",
        "mode": 0o644,
        "sha256": "0" * 64,
    }
    plant(home / ".claude", entry, files={"1.bak": b'{"evil": true}\n'})
    assert "not the bytes the journal names" in refused(home, ["--claude", "--global", "-y"])


def test_an_oversized_journal_is_refused_unread(home: Path) -> None:
    where = plant(home / ".claude")
    with (where / "intent").open("ab") as handle:
        handle.truncate(MAX_INTENT + 10)
    assert "at most" in refused(home, ["--claude", "--global", "-y"])


def test_a_cloned_project_journal_cannot_touch_the_home(home: Path) -> None:
    """CodeBuddy's --local install edits ~/.codebuddy.json: a journal that came with the
    project may not write or remove it, nor reach through a link out of the root."""
    project = home / "proj"
    (home / ".codebuddy.json").write_text('{"mine": 1}\n')
    evil = {"op": "file", "path": "../../.codebuddy.json", "was": "absent"}
    plant(project / ".codebuddy", evil)
    assert "outside the project" in refused(home, ["--codebuddy", "--local", "-y"], project)


def test_a_cloned_project_journal_cannot_follow_a_link_out(home: Path, tmp_path: Path) -> None:
    project = home / "proj"
    elsewhere = tmp_path / "elsewhere"
    build(elsewhere, {"keep.txt": "mine\n"})
    (project / ".claude").mkdir(parents=True)
    (project / ".claude/skills").symlink_to(elsewhere)
    plant(project / ".claude", {"op": "file", "path": "skills/keep.txt", "was": "absent"})
    assert "symlink leading out" in refused(home, ["--claude", "--local", "-y"], project)
    assert (elsewhere / "keep.txt").read_text() == "mine\n"


def test_a_journal_of_a_run_that_died_before_its_first_line_is_just_removed(home: Path) -> None:
    (home / ".claude" / JOURNAL_DIR).mkdir()
    before = snapshot(home)
    proc = run_cli(["--claude", "--global", "-y", "--check"], home)
    assert proc.returncode in (0, 1), proc.stderr
    before.pop(f".claude/{JOURNAL_DIR}/")
    assert snapshot(home) == before


def test_an_interrupted_write_leaves_no_temp_file(tmp_path: Path, monkeypatch: Any) -> None:
    """Ctrl-C right after the temp file is created (the gap the issue found)."""
    target = tmp_path / "settings.json"
    target.write_text("{}\n")
    real_open = os.open

    def open_then_interrupt(*args: Any, **kwargs: Any) -> int:
        fd = real_open(*args, **kwargs)
        if ".msd-tmp." in str(args[0]):
            raise KeyboardInterrupt
        return fd

    monkeypatch.setattr(os, "open", open_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        fs.write_at(Dirs().by_path(target), b'{"a": 1}\n')
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["settings.json"]
    assert target.read_text() == "{}\n"
