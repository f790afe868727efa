"""A HOME this user may not reach (under a mode 700 folder of another user's) is an error
of one line naming the folder, exit 4, for every verb and for ``doctor``: never a crash
(exit 3 and a crash log), and nothing is written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from helpers import AS_NOBODY, as_nobody_possible, cli_env, open_tmp

pytestmark = pytest.mark.skipif(
    not as_nobody_possible(), reason="needs root to run msd-install as another user (setpriv)"
)


@pytest.mark.parametrize(
    "args",
    [
        ["--claude", "--global"],
        ["--claude", "--global", "--uninstall"],
        ["--claude", "--global", "--reapply"],
        ["--claude", "--global", "--dry-run"],
        ["--claude", "--global", "--check"],
        ["--all", "--global", "--uninstall"],
        ["--codex", "--global", "--reapply", "--done"],
        ["doctor"],
    ],
)
def test_a_home_this_user_cannot_reach_is_one_line_not_a_crash(args: list[str]) -> None:
    with open_tmp() as tmp:
        _unreachable(tmp, args)


def _unreachable(tmp_path: Path, args: list[str]) -> None:
    locked = tmp_path / "locked"
    home = locked / "home"
    home.mkdir(parents=True)
    locked.chmod(0o700)  # root's: the user nobody may not look inside
    tmp_path.chmod(0o755)
    crashes = tmp_path / "tmp"
    crashes.mkdir(mode=0o777)
    crashes.chmod(0o1777)
    env = cli_env(home, TMPDIR=str(crashes))
    argv = [*AS_NOBODY, sys.executable, "-m", "msd_install", *args, "--yes"]
    if args == ["doctor"]:
        argv = argv[:-1]
    proc = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 4, proc.stdout + proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("msd-install: error: "), proc.stderr
    assert "Permission denied" in lines[0] and str(locked) in lines[0]
    assert "internal error" not in proc.stderr and list(crashes.iterdir()) == []
    assert sorted(p.name for p in home.iterdir()) == []
