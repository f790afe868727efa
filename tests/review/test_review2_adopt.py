"""Adversarial review (review2) of ``--adopt``: each test is a bug found (now fixed)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from helpers import build, run_cli

CLAUDE = ["--claude", "--global", "--yes"]
MINE = b"my own planner, written before msd was installed\n"


def test_uninstall_after_adopt_gives_back_a_file_msd_had_backed_up(tmp_path: Path) -> None:
    build(tmp_path, {".claude/agents/msd-planner.md": MINE})
    assert run_cli([*CLAUDE, "--force"], tmp_path).returncode == 0  # yours to msd-backups/
    manifest = tmp_path / ".claude/msd-file-manifest.json"
    manifest.write_bytes(manifest.read_bytes()[:-20])  # damaged (a crash, a bad edit)
    assert run_cli([*CLAUDE, "--adopt"], tmp_path).returncode == 0
    proc = run_cli(["--uninstall", *CLAUDE], tmp_path)
    assert proc.returncode == 0, proc.stderr
    mine = tmp_path / ".claude/agents/msd-planner.md"
    # expected: your file back where it was (as the uninstall without adopt does); today it
    # is gone from there, its bytes left unnamed in msd-backups/
    assert mine.exists() and mine.read_bytes() == MINE, proc.stdout


def test_uninstall_after_adopt_gives_back_the_status_line_msd_replaced(tmp_path: Path) -> None:
    settings = (
        b'{\n  "statusLine": {"type": "command", "command": "my-status.sh"},\n'
        b'  "model": "opus"\n}\n'
    )
    build(tmp_path, {".claude/settings.json": settings})
    proc = run_cli([*CLAUDE, "--force-statusline"], tmp_path)
    assert "yours is kept and restored on uninstall" in proc.stdout
    manifest = tmp_path / ".claude/msd-file-manifest.json"
    manifest.write_bytes(manifest.read_bytes()[:-20])  # damaged
    assert run_cli([*CLAUDE, "--adopt"], tmp_path).returncode == 0
    proc = run_cli(["--uninstall", *CLAUDE], tmp_path)
    assert proc.returncode == 0, proc.stderr
    after = (tmp_path / ".claude/settings.json").read_bytes()
    # expected: your statusLine back (the uninstall without adopt does it); today: gone
    assert b"my-status.sh" in after, after.decode()


def test_a_file_you_had_before_install_survives_adopt_and_uninstall(tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    assert run_cli(CLAUDE, other).returncode == 0
    msd_bytes = (other / ".claude/agents/msd-planner.md").read_bytes()
    home = tmp_path / "home"
    home.mkdir()
    build(home, {".claude/agents/msd-planner.md": msd_bytes})  # copied by hand, long ago
    assert run_cli(CLAUDE, home).returncode == 0
    manifest = home / ".claude/msd-file-manifest.json"
    assert '"adopted": true' in manifest.read_text()  # msd knows it was yours
    manifest.write_bytes(manifest.read_bytes()[:-20])  # damaged
    assert run_cli([*CLAUDE, "--adopt"], home).returncode == 0
    proc = run_cli(["--uninstall", *CLAUDE], home)
    assert (home / ".claude/agents/msd-planner.md").exists(), proc.stdout


def _atime_works(folder: Path) -> bool:
    probe = folder / "atime-probe"
    probe.write_bytes(b"x")
    os.utime(probe, (1000, 2000))
    probe.read_bytes()
    works = os.stat(probe).st_atime != 1000
    probe.unlink()
    return works


def test_adopt_never_reads_a_file_msd_does_not_ship(tmp_path: Path) -> None:
    if not _atime_works(tmp_path):
        pytest.skip("this file system does not record reads (noatime)")
    build(tmp_path, {".claude/skills/my-skill/SKILL.md": b"mine\n"})
    data = tmp_path / ".claude/skills/my-skill/assets.bin"
    with open(data, "wb") as handle:  # 60 MiB of a user's own data
        handle.truncate(60 << 20)
    os.utime(data, (1000, 2000))  # read since -> the access time moves (relatime)
    proc = run_cli([*CLAUDE, "--adopt"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "skills/my-skill/assets.bin  (unknown: not a file msd ships, kept)" in proc.stdout
    assert os.stat(data).st_atime == 1000  # never opened
