"""A pack's run killed outright (SIGKILL at its k-th change) is rolled back by the next run
of any kind, with the pack's own manifest settled in the user's record; MSD Core beside it
is untouched, and uninstalling both then gives back the original tree."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from packkit import make_pack

from helpers import REGISTRY, build, run_cli, snapshot


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


@pytest.mark.parametrize("kill_at", [28, 30])
def test_killed_handover_keeps_both_manifests_trusted(tmp_path: Path, kill_at: int) -> None:
    """The pack installed before MSD Core, then removed: its uninstall rewrites MSD Core's
    manifest (the structure it hands over, installer/handover.py) and both records. Killed
    there (28: MSD Core's manifest written; 30: the record too), the next run puts both
    manifests back and the record vouches for both again."""
    home = tmp_path / "home"
    build(home, {".claude/settings.json": '{\n  "model": "opus"\n}\n'})
    original = snapshot(home)
    pack = make_pack(tmp_path / "acme")
    claude = ["--claude", "--global", "--yes"]
    assert run_cli([*claude, "--payload", str(pack)], home).returncode == 0
    assert run_cli(claude, home).returncode == 0
    before = snapshot(home)
    drop = [*claude, "--uninstall", "--pack", "acme"]
    killed = run_cli(drop, home, MSD_INSTALL_TEST_SIGNAL=f"{kill_at}:KILL")
    assert killed.returncode == -9
    check = run_cli([*claude, "--check"], home)
    assert "recovered: an interrupted uninstall" in check.stdout, check.stdout + check.stderr
    assert "not written by your msd-install" not in check.stdout
    # the record is never restored from a journal's bytes (a folder it noted as shared may
    # stay listed, harmlessly); what counts is that it vouches for both manifests again
    assert _but(snapshot(home), REGISTRY) == _but(before, REGISTRY)
    roots = json.loads((home / REGISTRY).read_text())["roots"]
    root = os.path.realpath(home / ".claude")
    assert set(roots) == {root, f"{root}/msd-file-manifest.acme.json"}
    again = run_cli(drop, home)
    assert again.returncode == 0
    assert "not written by your msd-install" not in again.stdout
    assert run_cli([*claude, "--uninstall"], home).returncode == 0
    assert snapshot(home) == original


def _but(tree: dict, rel: str) -> dict:
    return {k: v for k, v in tree.items() if k != rel}
