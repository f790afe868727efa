"""A file (or a dangling symlink) where msd needs a folder: every kind of run names that
path, the one the user must move, never a path below it, and changes nothing. A dry run and
``--check`` predict the error the real run would stop with."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import build, run_cli, snapshot

RUNS = {
    "install": ["--claude", "--global", "--yes"],
    "dry run": ["--claude", "--global", "--yes", "--dry-run"],
    "check": ["--claude", "--global", "--check"],
}


def make(home: Path, blocker: str, kind: str) -> None:
    if kind == "file":
        build(home, {blocker: "mine\n"})
    else:
        (home / blocker).parent.mkdir(parents=True, exist_ok=True)
        (home / blocker).symlink_to(home / "gone")


@pytest.mark.parametrize("run", list(RUNS))
@pytest.mark.parametrize(
    ("blocker", "kind"),
    [(".claude", "file"), (".claude/skills", "file"), (".claude/skills", "dangling symlink")],
)
def test_the_thing_in_the_way_is_named(tmp_path: Path, run: str, blocker: str, kind: str) -> None:
    home = tmp_path / "h"
    home.mkdir()
    make(home, blocker, kind)
    before = snapshot(home)
    proc = run_cli(RUNS[run], home)
    assert proc.returncode == 4, proc.stdout + proc.stderr
    what = "a file" if kind == "file" else "a symlink to nothing"
    (line,) = proc.stderr.splitlines()
    assert line.startswith(
        f"msd-install: error: {home / blocker}: is {what} where msd needs a folder "
        "(move it away, then run msd-install again); "
    )
    assert line.endswith("rolled back" if run == "install" else "nothing was changed")
    assert proc.stdout == "" and snapshot(home) == before


def test_json_names_it_too_and_uninstall_says_what_the_root_is(tmp_path: Path) -> None:
    home = tmp_path / "h"
    build(home, {".claude": "mine\n"})
    proc = run_cli([*RUNS["check"], "--json"], home)
    assert proc.returncode == 4
    assert json.loads(proc.stdout)["error"]["path"] == str(home / ".claude")
    proc = run_cli(["--claude", "--global", "--yes", "--uninstall"], home)
    assert proc.returncode == 0
    assert f"note: nothing to uninstall: {home / '.claude'} is not a folder" in proc.stdout
    assert (home / ".claude").read_text() == "mine\n"
