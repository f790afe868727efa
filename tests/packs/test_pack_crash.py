"""A pack's run killed outright (SIGKILL at its k-th change) is rolled back by the next run
of any kind, with the pack's own manifest settled in the user's record; MSD Core beside it
is untouched, and uninstalling both then gives back the original tree."""

from __future__ import annotations

from pathlib import Path

import pytest
from packkit import make_pack

from helpers import build, run_cli, snapshot


# install 28: after the registry was written (the record then settles the pack's own manifest)
@pytest.mark.parametrize(
    ("verb", "kill_at"), [("install", 3), ("install", 14), ("install", 28), ("uninstall", 6)]
)
def test_killed_pack_run_is_recovered(tmp_path: Path, verb: str, kill_at: int) -> None:
    home = tmp_path / "home"
    build(home, {".claude/settings.json": '{\n  "model": "opus"\n}\n'})
    original = snapshot(home)
    pack = make_pack(tmp_path / "acme")
    claude = ["--claude", "--global", "--yes"]
    assert run_cli(claude, home).returncode == 0
    if verb == "uninstall":
        assert run_cli([*claude, "--payload", str(pack)], home).returncode == 0
    before = snapshot(home)
    args = [*claude, "--payload", str(pack)]
    if verb == "uninstall":
        args = [*claude, "--uninstall", "--pack", "acme"]
    killed = run_cli(args, home, MSD_INSTALL_TEST_SIGNAL=f"{kill_at}:KILL")
    assert killed.returncode == -9
    assert (home / ".claude/.msd-journal").is_dir()

    check = run_cli([*claude, "--check"], home)  # MSD Core's check recovers the pack's run
    assert "recovered: an interrupted" in check.stdout, check.stdout + check.stderr
    assert snapshot(home) == before
    again = run_cli(args, home)
    assert again.returncode == 0, again.stderr
    assert "not written by your msd-install" not in again.stdout  # the record vouches for it
    if verb == "install":
        assert run_cli([*claude, "--uninstall", "--pack", "acme"], home).returncode == 0
    assert run_cli([*claude, "--uninstall"], home).returncode == 0
    assert snapshot(home) == original
