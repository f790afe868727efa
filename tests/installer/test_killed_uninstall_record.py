"""An uninstall killed after its manifest went is recovered even after other runs.

The user's record vouches for the manifest a recovery puts back. It forgets a root whose
manifest is missing (deleted by hand), but not one where a killed run's journal waits: else
any other msd-install command in between (another runtime) made the killed uninstall's
recovery refuse its journal, and the project stayed half uninstalled.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers import run_cli, snapshot, snapshot_but_registry
from msd_install.installer.manifestcheck import JOURNAL_DIR, MANIFEST_NAME


def test_a_killed_uninstall_is_recovered_after_another_runtimes_run(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "home" / "project"
    project.mkdir(parents=True)
    original = snapshot_but_registry(home)
    assert run_cli(["--codebuddy", "--local", "--yes"], home, project).returncode == 0
    saved = tmp_path / "saved"
    shutil.copytree(home, saved, symlinks=True)
    root = project / ".codebuddy"
    uninstall = ["--codebuddy", "--local", "--uninstall", "--yes"]

    def killed_at(k: int) -> tuple[bool, bool]:
        shutil.rmtree(home)
        shutil.copytree(saved, home, symlinks=True)
        run_cli(uninstall, home, project, MSD_INSTALL_TEST_SIGNAL=f"{k}:KILL")  # past its
        return (root / MANIFEST_NAME).exists(), (root / JOURNAL_DIR).exists()

    low, high = 1, 2000  # the first change after the manifest's removal, by bisection
    # (a k past the run's last change lets it end: manifest and journal gone)
    while low < high:
        mid = (low + high) // 2
        manifest, _ = killed_at(mid)
        if manifest:
            low = mid + 1
        else:
            high = mid
    manifest, journal = killed_at(low)
    assert not manifest and journal, low
    # another runtime's first install writes the record (and prunes it) before the recovery
    assert run_cli(["--cursor", "--global", "--yes"], home, project).returncode == 0
    proc = run_cli(uninstall, home, project)
    assert proc.returncode == 0, proc.stderr
    assert "recovered: an interrupted uninstall" in proc.stdout + proc.stderr
    assert run_cli(["--cursor", "--global", "--uninstall", "--yes"], home, project).returncode == 0
    assert snapshot_but_registry(home) == original


def test_an_uninstall_killed_at_its_last_change_is_finished_by_the_next(tmp_path: Path) -> None:
    """Killed at the very last change (the record's removal, after the root went), the next
    uninstall finds no root, and still removes the record left listing nothing."""
    home = tmp_path / "home"
    home.mkdir()
    original = snapshot(home)
    assert run_cli(["--codebuddy", "--global", "--yes"], home).returncode == 0
    saved = tmp_path / "saved"
    shutil.copytree(home, saved, symlinks=True)
    uninstall = ["--codebuddy", "--global", "--uninstall", "--yes"]
    total = 1
    while True:  # the number of changes: the first k past them lets the run end
        shutil.rmtree(home)
        shutil.copytree(saved, home, symlinks=True)
        proc = run_cli(uninstall, home, MSD_INSTALL_TEST_SIGNAL=f"{total}:KILL")
        if proc.returncode == 0:
            break
        total *= 2
    low, high = total // 2, total
    while low + 1 < high:  # the last k at which the run is still killed
        mid = (low + high) // 2
        shutil.rmtree(home)
        shutil.copytree(saved, home, symlinks=True)
        proc = run_cli(uninstall, home, MSD_INSTALL_TEST_SIGNAL=f"{mid}:KILL")
        low, high = (mid, high) if proc.returncode != 0 else (low, mid)
    shutil.rmtree(home)
    shutil.copytree(saved, home, symlinks=True)
    assert run_cli(uninstall, home, MSD_INSTALL_TEST_SIGNAL=f"{low}:KILL").returncode != 0
    assert run_cli(uninstall, home).returncode == 0
    assert snapshot(home) == original
