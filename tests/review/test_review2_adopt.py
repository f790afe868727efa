"""Adversarial review (review2) of ``--adopt``: each test is a bug found, marked strict xfail
until it is fixed."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import build, run_cli

CLAUDE = ["--claude", "--global", "--yes"]
MINE = b"my own planner, written before msd was installed\n"


@pytest.mark.xfail(
    strict=True,
    reason="--adopt drops the damaged manifest's backup records: a file of yours msd replaced "
    "(--force, kept in msd-backups/) is not put back by the uninstall after adopt, nor named",
)
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


@pytest.mark.xfail(
    strict=True,
    reason="--adopt drops the damaged manifest's record of the config value msd replaced: "
    "after adopt, uninstall removes msd's statusLine and your own statusLine is lost",
)
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


@pytest.mark.xfail(
    strict=True,
    reason="a file you had before install with msd's exact bytes is recorded 'adopted' (never "
    "removed); --adopt after a damaged manifest takes it as msd's and uninstall deletes it",
)
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
