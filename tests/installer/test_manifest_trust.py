"""Own manifests and foreign ones: a teammate's clone, a lost record, a moved root, a race.

The user's state directory records the manifests this user's msd-install wrote
(installer/registry.py). Any other manifest is foreign: it still uninstalls cleanly by hash,
puts back backups kept in msd-backups/, and never re-creates a symlink or follows one out of
the root. Real CLI where flags are enough; the engine in-process for the race.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from helpers import build, global_context, run_cli, snapshot, uninstall_claude
from msd_install.errors import FileAccessError
from msd_install.installer import engine
from msd_install.installer.confine import show
from msd_install.installer.context import Context
from msd_install.payload import load
from msd_install.runtimes import ADAPTERS

LOCAL = ["--claude", "--local", "--yes"]
GLOBAL_ARGS = ["--claude", "--global", "--yes"]
PROJECT = {
    ".claude/settings.json": '{\n  "permissions": {"allow": ["Bash(make)"]}\n}\n',
    ".mcp.json": '{\n  "mcpServers": {\n    "db": {"command": "db-mcp"}\n  }\n}\n',
    "src/app.py": "x = 1\n",
}
FOREIGN = "was not written by your msd-install"


def clone(src: Path, dst: Path) -> Path:
    """What a teammate gets from `git clone`: the committed tree, links as links."""
    shutil.copytree(src, dst, symlinks=True)
    return dst


def alice_installs(tmp_path: Path, *extra: str) -> tuple[Path, dict[str, object]]:
    alice = tmp_path / "alice"
    build(alice, {"proj/" + k: v for k, v in PROJECT.items()})
    original = snapshot(alice / "proj")
    proc = run_cli([*LOCAL, *extra], alice, cwd=alice / "proj")
    assert proc.returncode == 0, proc.stderr
    return alice / "proj", original


def test_a_teammate_uninstalls_a_committed_local_install_cleanly(tmp_path: Path) -> None:
    project, original = alice_installs(tmp_path)
    bob = tmp_path / "bob"
    bob.mkdir()
    theirs = clone(project, bob / "proj")
    bob_home = snapshot(bob, stat=False)
    proc = run_cli([*LOCAL, "--uninstall"], bob, cwd=theirs)
    assert proc.returncode == 0, proc.stderr
    assert FOREIGN in proc.stdout
    assert snapshot(theirs) == original  # msd's entries in .mcp.json went by hash
    assert {k: v for k, v in snapshot(bob).items() if not k.startswith("proj")} == {
        k: v for k, v in bob_home.items() if not k.startswith("proj")
    }


def test_a_teammate_reinstalls_then_uninstalls_cleanly(tmp_path: Path) -> None:
    project, original = alice_installs(tmp_path)
    bob = tmp_path / "bob"
    bob.mkdir()
    theirs = clone(project, bob / "proj")
    proc = run_cli(LOCAL, bob, cwd=theirs)
    assert proc.returncode == 0, proc.stderr
    assert FOREIGN in proc.stdout  # once: the manifest it writes now is Bob's own
    # the committed registrations name nothing of Alice's or Bob's machine: Bob's reinstall
    # leaves them byte for byte as committed (no churn in the team's files)
    for shared in (".mcp.json", ".claude/settings.json"):
        assert (theirs / shared).read_bytes() == (project / shared).read_bytes(), shared
    mcp = json.loads((theirs / ".mcp.json").read_text())
    assert mcp["mcpServers"]["msd"]["command"] == "python3"
    proc = run_cli([*LOCAL, "--verbose"], bob, cwd=theirs)  # every path, with its verb
    assert FOREIGN not in proc.stdout
    assert re.search(r"^install claude \(local\) at .*: \d+ identical$", proc.stdout, re.M)
    assert not re.search(r"^  (create|update|remove) ", proc.stdout, re.M)
    assert re.search(r"^  identical ", proc.stdout, re.M)
    assert run_cli([*LOCAL, "--uninstall"], bob, cwd=theirs).returncode == 0
    assert snapshot(theirs) == original
    assert not (bob / ".local/state/msd").exists()  # Bob's record went with his last install


def test_a_teammate_gets_the_projects_forced_file_back_from_msd_backups(tmp_path: Path) -> None:
    alice = tmp_path / "alice"
    build(alice, {"proj/" + k: v for k, v in PROJECT.items()})
    build(alice / "proj", {".claude/agents/msd-planner.md": "the project's own planner\n"})
    original = snapshot(alice / "proj")
    assert run_cli([*LOCAL, "--force"], alice, cwd=alice / "proj").returncode == 0
    bob = tmp_path / "bob"
    bob.mkdir()
    theirs = clone(alice / "proj", bob / "proj")
    proc = run_cli([*LOCAL, "--uninstall"], bob, cwd=theirs)
    assert proc.returncode == 0, proc.stderr
    assert snapshot(theirs) == original


def test_a_foreign_manifest_never_recreates_a_symlink_the_user_had(tmp_path: Path) -> None:
    """--force moved the user's dotfile link aside; the record of it is lost (a new machine,
    a wiped state directory): the link is reported, not re-created; everything else goes."""
    home = tmp_path / "home"
    build(tmp_path, {"dotfiles/guard.py": "print('mine')\n"})
    (home / ".claude/hooks").mkdir(parents=True)
    (home / ".claude/hooks/msd-read-guard.py").symlink_to(tmp_path / "dotfiles/guard.py")
    assert run_cli([*GLOBAL_ARGS, "--force"], home).returncode == 0
    shutil.rmtree(home / ".local/state/msd")
    proc = run_cli([*GLOBAL_ARGS, "--uninstall"], home)
    assert proc.returncode == 0, proc.stderr
    target = show(str(tmp_path / "dotfiles/guard.py"))
    assert f"note: hooks/msd-read-guard.py was a symlink to {target}: not re-created" in (
        proc.stdout
    )
    assert not (home / ".claude/hooks/msd-read-guard.py").exists()
    assert (tmp_path / "dotfiles/guard.py").read_text() == "print('mine')\n"


def test_the_users_own_manifest_still_puts_the_symlink_back(tmp_path: Path) -> None:
    home = tmp_path / "home"
    build(tmp_path, {"dotfiles/guard.py": "print('mine')\n"})
    (home / ".claude/hooks").mkdir(parents=True)
    (home / ".claude/hooks/msd-read-guard.py").symlink_to(tmp_path / "dotfiles/guard.py")
    before = snapshot(tmp_path)
    assert run_cli([*GLOBAL_ARGS, "--force"], home).returncode == 0
    proc = run_cli([*GLOBAL_ARGS, "--uninstall"], home)
    assert proc.returncode == 0 and FOREIGN not in proc.stdout
    assert snapshot(tmp_path) == before


def test_an_install_from_before_the_record_still_uninstalls_cleanly(tmp_path: Path) -> None:
    home = tmp_path / "home"
    build(home, {".claude/settings.json": PROJECT[".claude/settings.json"], ".claude.json": "{}"})
    before = snapshot(home)
    assert run_cli(GLOBAL_ARGS, home).returncode == 0
    shutil.rmtree(home / ".local")  # as if installed by a version without the record
    proc = run_cli([*GLOBAL_ARGS, "--uninstall"], home)
    assert proc.returncode == 0 and FOREIGN in proc.stdout
    assert snapshot(home) == before


def test_the_record_goes_with_the_last_install_it_lists(tmp_path: Path) -> None:
    home = tmp_path / "home"
    build(home, {"proj/src/app.py": "x = 1\n"})
    before = snapshot(home)
    assert run_cli(GLOBAL_ARGS, home).returncode == 0
    assert run_cli(LOCAL, home, cwd=home / "proj").returncode == 0
    record = json.loads((home / ".local/state/msd/manifests.json").read_text())
    assert sorted(record["roots"]) == sorted(
        [str((home / ".claude").resolve()), str((home / "proj/.claude").resolve())]
    )
    assert run_cli([*GLOBAL_ARGS, "--uninstall"], home).returncode == 0
    record = json.loads((home / ".local/state/msd/manifests.json").read_text())
    assert list(record["roots"]) == [str((home / "proj/.claude").resolve())]
    proc = run_cli([*LOCAL, "--uninstall"], home, cwd=home / "proj")
    assert proc.returncode == 0 and FOREIGN not in proc.stdout
    assert snapshot(home) == before


def test_a_moved_root_or_an_edited_manifest_is_foreign(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    alt = ["--claude", "--yes", "--config-dir"]
    assert run_cli([*alt, str(tmp_path / "a")], home).returncode == 0
    (tmp_path / "a").rename(tmp_path / "b")
    proc = run_cli([*alt, str(tmp_path / "b"), "--check"], home)
    assert FOREIGN in proc.stdout
    doctor = run_cli(["doctor"], home, CLAUDE_CONFIG_DIR=str(tmp_path / "b"))
    assert doctor.returncode == 0, doctor.stdout  # a note, not a problem
    assert "not written by your msd-install (cloned, edited, moved or older)" in doctor.stdout
    assert run_cli([*alt, str(tmp_path / "b")], home).returncode == 0  # rewritten: own again
    record = json.loads((home / ".local/state/msd/manifests.json").read_text())
    assert list(record["roots"]) == [str((tmp_path / "b").resolve())]  # "a" is forgotten
    assert FOREIGN not in run_cli([*alt, str(tmp_path / "b"), "--check"], home).stdout
    manifest = tmp_path / "b/msd-file-manifest.json"
    manifest.write_text(manifest.read_text().replace('"0.1', '"0.0'))  # one edited byte
    assert FOREIGN in run_cli([*alt, str(tmp_path / "b"), "--check"], home).stdout
    # reformatting alone changes nothing: the record is over the content, not the bytes
    assert run_cli([*alt, str(tmp_path / "b")], home).returncode == 0
    manifest.write_text(json.dumps(json.loads(manifest.read_text())))
    assert FOREIGN not in run_cli([*alt, str(tmp_path / "b"), "--check"], home).stdout


def test_a_damaged_record_makes_every_manifest_foreign_and_is_rewritten(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    assert run_cli(GLOBAL_ARGS, home).returncode == 0
    record = home / ".local/state/msd/manifests.json"
    record.write_text("{not json")
    proc = run_cli(GLOBAL_ARGS, home)
    assert proc.returncode == 0 and FOREIGN in proc.stdout
    assert json.loads(record.read_text())["roots"]
    assert FOREIGN not in run_cli(GLOBAL_ARGS, home).stdout


def ctx_for(home: Path) -> Context:
    ctx: Context = global_context(home)
    return ctx


def test_a_directory_swapped_for_a_link_mid_run_stops_a_foreign_uninstall(
    tmp_path: Path,
) -> None:
    """The tree can change between reading the manifest and acting on it: each change is
    checked again right before it is made, and the run rolls back."""
    home, outside = tmp_path / "home", tmp_path / "outside"
    ctx = ctx_for(home)
    home.mkdir()
    engine.install(ADAPTERS["claude"].plan(ctx, load()), ctx)
    root = home / ".claude"
    manifest = root / "msd-file-manifest.json"
    doc = json.loads(manifest.read_text())
    doc["installer_version"] = "0.0.1"  # edited: foreign
    manifest.write_text(json.dumps(doc))
    shutil.copytree(root / "skills", outside / "skills")  # exact copies of msd's files
    outside_before = snapshot(outside)
    before = snapshot(home)

    def swap(n: int) -> None:
        if n == 1:  # while the run removes its first file, skills/ becomes a link out
            shutil.rmtree(root / "skills")
            (root / "skills").symlink_to(outside / "skills")

    with pytest.raises(FileAccessError) as caught:
        uninstall_claude(ctx, fault=swap)
    assert "a symlink leading out of it" in caught.value.message
    assert "every change of this run was rolled back" in caught.value.message
    assert snapshot(outside) == outside_before
    after = snapshot(home)
    assert after.pop(".claude/skills") == ("link", str(outside / "skills"))
    assert after == {k: v for k, v in before.items() if not k.startswith(".claude/skills")}


def test_an_unwritable_state_directory_only_costs_the_trust(tmp_path: Path) -> None:
    """The record is best effort: without it the manifest counts as foreign, which is safe."""
    home = tmp_path / "home"
    build(home, {".claude/settings.json": PROJECT[".claude/settings.json"]})
    (tmp_path / "state").write_text("a file where a directory should be\n")
    env = {"XDG_STATE_HOME": str(tmp_path / "state")}
    before = snapshot(tmp_path)
    proc = run_cli(GLOBAL_ARGS, home, **env)
    assert proc.returncode == 0, proc.stderr
    assert f"note: could not update {tmp_path / 'state/msd/manifests.json'}" in proc.stdout
    proc = run_cli([*GLOBAL_ARGS, "--uninstall"], home, **env)
    assert proc.returncode == 0 and FOREIGN in proc.stdout
    assert snapshot(tmp_path) == before
