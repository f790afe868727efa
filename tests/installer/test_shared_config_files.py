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
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import cli_env, run_cli, snapshot
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
    st = config.stat()
    assert record["files"] == {str(config.resolve()): [st.st_dev, st.st_ino]}
    _run(home, project, "--codebuddy", "--global", "--uninstall")
    assert json.loads(config.read_text()) == {"theme": "dark"}
    assert not (home / ".local/state/msd").exists()


def test_a_file_left_holding_only_the_users_settings_is_theirs_from_then_on(
    tmp_path: Path,
) -> None:
    """Another install keeps the record alive; the file, handed on, is left holding only the
    user's setting by the second uninstall: it is theirs, and a file they make again in its
    place later is never taken for msd's."""
    home, project = tmp_path / "home", tmp_path / "home" / "project"
    project.mkdir(parents=True)
    _run(home, project, "--cursor", "--global")  # keeps the user's record alive throughout
    _run(home, project, "--codebuddy", "--local")
    _run(home, project, "--codebuddy", "--global")
    _run(home, project, "--codebuddy", "--local", "--uninstall")
    config = home / ".codebuddy.json"
    with config.open("r+") as handle:  # an edit in place: the same file (inode)
        doc = json.load(handle)
        doc["theme"] = "dark"
        handle.seek(0)
        handle.write(json.dumps(doc, indent=2) + "\n")
        handle.truncate()
    _run(home, project, "--codebuddy", "--global", "--uninstall")
    assert json.loads(config.read_text()) == {"theme": "dark"}
    record = json.loads((home / ".local/state/msd/manifests.json").read_text())
    assert "files" not in record
    with config.open("w") as handle:  # emptied by the user, in place again
        handle.write("{}\n")
    _run(home, project, "--codebuddy", "--global")
    _run(home, project, "--codebuddy", "--global", "--uninstall")
    assert config.read_text() == "{}\n"


CHILD = r"""
import json, sys
from pathlib import Path
from msd_install.installer import uninstall  # the engine imports it from there, when it runs

real = uninstall.resolve_uninstall


def resolve(*args, **kwargs):
    steps = real(*args, **kwargs)
    path = Path(sys.argv[1])  # another program writes a setting once the steps are decided
    doc = json.loads(path.read_text())
    doc["theme"] = "dark"
    path.write_text(json.dumps(doc))
    return steps


uninstall.resolve_uninstall = resolve
from msd_install.entry import main

main(sys.argv[2:])
"""


@pytest.mark.parametrize("shared", [True, False])
def test_a_setting_written_while_the_uninstall_runs_is_never_removed_with_the_file(
    tmp_path: Path, shared: bool
) -> None:
    """The file is removed only if it is still the one the uninstall read: a setting another
    program wrote since stops the run (nothing changed) instead of going with the file."""
    home, project = tmp_path / "home", tmp_path / "home" / "project"
    project.mkdir(parents=True)
    _run(home, project, "--codebuddy", "--local")
    if shared:
        _run(home, project, "--codebuddy", "--global")
        _run(home, project, "--codebuddy", "--local", "--uninstall")
    config = home / ".codebuddy.json"
    scope = "--global" if shared else "--local"
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(config), "--codebuddy", scope, "--uninstall", "--yes"],
        cwd=project,
        env=cli_env(home),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode != 0
    assert "changed by another program" in proc.stderr
    assert json.loads(config.read_text())["theme"] == "dark"


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


def _forge(home: Path, files: object) -> None:
    """Write ``files`` into the user's record as its shared files, as anyone could."""
    registry = home / ".local/state/msd/manifests.json"
    record = json.loads(registry.read_text())
    record["files"] = files
    registry.write_text(json.dumps(record))


def test_a_forged_entry_in_the_record_removes_nothing_msd_did_not_empty(tmp_path: Path) -> None:
    """The record is read from disk: an entry naming a file removes it only when this
    uninstall's own removals leave it exactly empty."""
    home, project = tmp_path / "home", tmp_path / "home" / "project"
    project.mkdir(parents=True)
    config = home / ".codebuddy.json"
    config.write_text('{"theme": "dark"}\n')
    _run(home, project, "--codebuddy", "--global")
    other = home / "notes.json"
    other.write_text("{}\n")
    st = config.stat()
    _forge(
        home,
        {
            str(config.resolve()): [st.st_dev, st.st_ino],
            str(other.resolve()): [other.stat().st_dev, other.stat().st_ino],
            "relative/x.json": [1, 2],
            str(home / "x.json"): "not ids",
        },
    )
    _run(home, project, "--codebuddy", "--global", "--uninstall")
    assert json.loads(config.read_text()) == {"theme": "dark"}
    assert other.read_text() == "{}\n"


def test_an_entry_for_another_file_at_that_path_is_not_believed(tmp_path: Path) -> None:
    """An entry holds the device and inode of the file handed on: a file made again at that
    path (the user's) is not the one msd created, even emptied by the uninstall."""
    home, project = tmp_path / "home", tmp_path / "home" / "project"
    project.mkdir(parents=True)
    config = home / ".codebuddy.json"
    config.write_text("{}\n")
    _run(home, project, "--codebuddy", "--global")
    _forge(home, {str(config.resolve()): [config.stat().st_dev, config.stat().st_ino + 1]})
    _run(home, project, "--codebuddy", "--global", "--uninstall")
    assert config.read_text() == "{}\n"


@pytest.mark.parametrize("shared", [False, True])
def test_a_file_the_runtime_reformatted_still_goes(tmp_path: Path, shared: bool) -> None:
    """The runtime rewrites its file its own way (four spaces, no newline at the end): emptied
    of msd's entries it holds nothing but ``{`` and ``}`` and blanks, and goes as ``{}`` does."""
    home, project = tmp_path / "home", tmp_path / "home" / "project"
    project.mkdir(parents=True)
    before = snapshot(home)
    _run(home, project, "--codebuddy", "--local")
    scopes = ["--local"]
    if shared:
        _run(home, project, "--codebuddy", "--global")
        scopes.append("--global")
    config = home / ".codebuddy.json"
    with config.open("r+") as handle:  # in place, as a runtime saving its state might
        doc = json.load(handle)
        handle.seek(0)
        handle.write(json.dumps(doc, indent=4))
        handle.truncate()
    for scope in scopes:
        _run(home, project, "--codebuddy", scope, "--uninstall")
    assert snapshot(home) == before
