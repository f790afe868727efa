"""A config file msd created, edited by two installs, goes with the last uninstall that empties it.

CodeBuddy's local and global installs both edit ``~/.codebuddy.json`` (the local one under
``projects``). The local install created it; the global one found it there. Uninstalled local
first, the file kept the global entries; then the global uninstall, which never created it,
left ``{}`` behind. The user's record now keeps such a file (``Registry.shared_files``) for the
uninstall that empties it. Every runtime with both scopes gets the same check: install local
and global, uninstall in either order, and the home is as it was.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import run_cli, snapshot
from msd_install.runtimes import ADAPTERS

BOTH = [n for n, a in ADAPTERS.items() if {"global", "local"} <= set(a.scopes)]


def _run(home: Path, project: Path, *args: str) -> None:
    proc = run_cli([*args, "--yes"], home, cwd=project)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("first", ["local", "global"])
@pytest.mark.parametrize("name", BOTH)
def test_both_scopes_then_both_uninstalls_leave_the_home_as_it_was(
    tmp_path: Path, name: str, first: str
) -> None:
    home, project = tmp_path / "home", tmp_path / "home" / "project"
    project.mkdir(parents=True)
    before = snapshot(home)
    _run(home, project, f"--{name}", "--local")
    _run(home, project, f"--{name}", "--global")
    order = ["--local", "--global"] if first == "local" else ["--global", "--local"]
    for scope in order:
        _run(home, project, f"--{name}", scope, "--uninstall")
    assert snapshot(home) == before


def test_the_file_keeps_what_the_user_added(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "home" / "project"
    project.mkdir(parents=True)
    _run(home, project, "--codebuddy", "--local")
    _run(home, project, "--codebuddy", "--global")
    config = home / ".codebuddy.json"
    doc = json.loads(config.read_text())
    doc["theme"] = "dark"  # the user's own setting, added between the installs' lifetimes
    config.write_text(json.dumps(doc, indent=2) + "\n")
    _run(home, project, "--codebuddy", "--local", "--uninstall")
    record = json.loads((home / ".local/state/msd/manifests.json").read_text())
    assert record["files"] == [str(config.resolve())]
    _run(home, project, "--codebuddy", "--global", "--uninstall")
    assert json.loads(config.read_text()) == {"theme": "dark"}
    assert not (home / ".local/state/msd").exists()


def test_a_file_the_user_had_is_never_taken_for_a_shared_one(tmp_path: Path) -> None:
    """The record names a file only if an install of this user's created it: a file that was
    there first stays, even emptied (as before)."""
    home, project = tmp_path / "home", tmp_path / "home" / "project"
    project.mkdir(parents=True)
    config = home / ".codebuddy.json"
    config.write_text("{}\n")
    _run(home, project, "--codebuddy", "--local")
    _run(home, project, "--codebuddy", "--global")
    _run(home, project, "--codebuddy", "--local", "--uninstall")
    _run(home, project, "--codebuddy", "--global", "--uninstall")
    assert json.loads(config.read_text()) == {}


def test_a_forged_entry_in_the_record_removes_nothing_msd_did_not_empty(tmp_path: Path) -> None:
    """The record is read from disk: an entry naming a file removes it only when this
    uninstall's own removals leave it exactly empty."""
    home, project = tmp_path / "home", tmp_path / "home" / "project"
    project.mkdir(parents=True)
    config = home / ".codebuddy.json"
    config.write_text('{"theme": "dark"}\n')
    _run(home, project, "--codebuddy", "--global")
    registry = home / ".local/state/msd/manifests.json"
    record = json.loads(registry.read_text())
    other = home / "notes.json"
    other.write_text("{}\n")
    record["files"] = [str(config.resolve()), str(other.resolve()), "relative/x.json", 7]
    registry.write_text(json.dumps(record))
    _run(home, project, "--codebuddy", "--global", "--uninstall")
    assert json.loads(config.read_text()) == {"theme": "dark"}
    assert other.read_text() == "{}\n"
