"""A pack update (or an MSD Core upgrade) that drops a whole folder (a hook folder, a skill, an
engine folder) removes the folder with its last file, when msd made it and nothing else is in
it: the tree after v1 then v2 is the tree of v2 installed alone. A folder you put a file in
stays, and the report says so; a run killed after the folder went puts it back."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from packkit import make_pack

from helpers import build, run_cli, snapshot, snapshot_but_registry, uninstall_claude
from msd_install.installer import engine
from msd_install.installer.context import Context
from msd_install.installer.plan import FileOp, Plan

USER = {".claude/settings.json": '{\n  "model": "opus"\n}\n', "notes.txt": "mine\n"}
# what v1 has and v2 drops: a hook helper in its own folder, a skill, a nested engine folder
DROPPED: dict[str, str | bytes] = {
    "hooks/extra/x.sh": "#!/usr/bin/env bash\necho x\n",
    "skills/gone/SKILL.md": "---\nname: gone\ndescription: A skill v2 drops\n---\nBody.\n",
    "skills/gone/ref/more.md": "# More\n",
    "data/deep/inner/table.txt": "1 2 3\n",
}
CASES = {
    "claude-global": (["--claude", "--global"], False),
    "codex-global": (["--codex", "--global"], False),
    "gemini-global": (["--gemini", "--global"], False),
    "claude-local": (["--claude", "--local"], True),
}


def _ok(args: list[str], home: Path, cwd: Path | None = None) -> str:
    proc = run_cli([*args, "--yes"], home, cwd)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    return proc.stdout


def _fresh(home: Path) -> Path:
    if home.exists():
        shutil.rmtree(home)
    build(home, USER)
    (home / "proj").mkdir()
    return home / "proj"


@pytest.mark.parametrize("case", sorted(CASES))
def test_update_that_drops_folders_leaves_the_tree_of_v2(tmp_path: Path, case: str) -> None:
    flags, local = CASES[case]
    home = tmp_path / "home"
    v1 = make_pack(tmp_path / "v1", extra=DROPPED)
    v2 = make_pack(tmp_path / "v2")
    proj = _fresh(home)
    cwd = proj if local else None
    _ok([*flags, "--payload", str(v1)], home, cwd)
    with_v1 = snapshot(home)
    assert [k for k in with_v1 if k.endswith("acme-gone/")], "v1 installed no skill folder"
    out = _ok([*flags, "--payload", str(v2)], home, cwd)
    assert "directory not empty" not in out
    updated = snapshot_but_registry(home)
    assert not [k for k in updated if "gone" in k or "extra" in k or "deep" in k]

    proj = _fresh(home)  # the same home, v2 alone
    _ok([*flags, "--payload", str(v2)], home, cwd)
    assert updated == snapshot_but_registry(home)


def test_a_folder_holding_a_file_of_yours_stays_and_is_reported(tmp_path: Path) -> None:
    home = tmp_path / "home"
    build(home, USER)
    original = snapshot(home)
    v1 = make_pack(tmp_path / "v1", extra=DROPPED)
    v2 = make_pack(tmp_path / "v2")
    claude = ["--claude", "--global"]
    _ok([*claude, "--payload", str(v1)], home)
    skill = home / ".claude/skills/acme-gone"
    (skill / "mine.md").write_text("my notes\n")
    dry = _ok([*claude, "--payload", str(v2), "--dry-run"], home)
    assert "  skip      ~/.claude/skills/acme-gone  (directory not empty: kept)" in dry
    assert (skill / "SKILL.md").is_file()
    out = _ok([*claude, "--payload", str(v2)], home)
    assert "  skip      ~/.claude/skills/acme-gone  (directory not empty: kept)" in out
    assert "acme/data" not in out and "hooks/acme/extra" not in out  # those went silently
    assert sorted(p.name for p in skill.iterdir()) == ["mine.md"]
    assert not (skill / "ref").exists()
    assert not (home / ".claude/hooks/acme/extra").exists()
    assert not (home / ".claude/acme/data").exists()
    # the next run has nothing to say about it; uninstall keeps it, as it keeps any such folder
    again = _ok([*claude, "--payload", str(v2)], home)
    assert "acme-gone" not in again
    gone = _ok([*claude, "--uninstall", "--pack", "acme"], home)
    assert "  skip      ~/.claude/skills/acme-gone  (directory not empty: kept)" in gone
    left = snapshot_but_registry(home)
    assert left.pop(".claude/skills/acme-gone/mine.md")[0] == b"my notes\n"
    assert left.pop(".claude/skills/acme-gone/") and left.pop(".claude/skills/")
    assert left == original


@pytest.mark.parametrize("signal", ["KILL", "TERM"])
def test_a_killed_update_puts_the_removed_folder_back(tmp_path: Path, signal: str) -> None:
    """Stopped at each change of the update in turn: the run itself (SIGTERM) or the next
    run (SIGKILL: from the journal) puts the tree back as v1 left it, the removed folders
    included, with their modes."""
    home = tmp_path / "home"
    build(home, USER)
    v1 = make_pack(tmp_path / "v1", extra=DROPPED)
    v2 = make_pack(tmp_path / "v2")
    claude = ["--claude", "--global"]
    _ok([*claude, "--payload", str(v1)], home)
    (home / ".claude/acme/data/deep").chmod(0o700)
    before = snapshot(home)
    folder = home / ".claude/acme/data"
    after_rmdir = 0
    for k in range(1, 60):
        args = [*claude, "--yes", "--payload", str(v2)]
        killed = run_cli(args, home, MSD_INSTALL_TEST_SIGNAL=f"{k}:{signal}")
        if killed.returncode == 0:
            break
        if signal == "TERM":  # rolled back at once
            assert killed.returncode == 130, killed.stderr
            assert snapshot(home) == before, k  # every k up to the last change: the
            continue  # rmdir among them (the KILL case shows where it is)
        assert killed.returncode == -9, killed.stderr
        after_rmdir += not folder.exists()
        check = run_cli([*claude, "--check"], home)
        assert "recovered: an interrupted" in check.stdout, check.stdout + check.stderr
        assert snapshot(home) == before, k
    else:
        raise AssertionError("the update never finished")
    assert after_rmdir or signal == "TERM", "no kill came after a folder was removed"
    assert not folder.exists()


def _ctx(home: Path) -> Context:
    return Context(home=home, cwd=home, interpreter=Path(sys.executable))


def _plan(root: Path, files: dict[str, bytes]) -> Plan:
    return Plan("claude", "global", root, tuple(FileOp(root / k, v) for k, v in files.items()))


def test_msd_core_upgrade_that_drops_a_folder(tmp_path: Path) -> None:
    """MSD Core's upgrades go through the same resolution: a folder it made and no longer
    fills goes, one it still fills or one you filled stays."""
    root = tmp_path / "root"
    root.mkdir()
    before = snapshot(tmp_path)
    v1 = {"keep/a.md": b"a\n", "keep/old/b.md": b"b\n", "gone/deep/c.md": b"c\n", "x/d.md": b"d"}
    engine.install(_plan(root, v1), _ctx(tmp_path))
    (root / "x/yours.md").write_text("mine\n")
    dry = engine.install(_plan(root, {"keep/a.md": b"a\n"}), _ctx(tmp_path), dry_run=True)
    assert ("skip", root / "x", "directory not empty: kept") in [
        (a.verb, a.path, a.detail) for a in dry.actions
    ]
    assert (root / "gone/deep/c.md").is_file()
    result = engine.install(_plan(root, {"keep/a.md": b"a\n"}), _ctx(tmp_path))
    skips = [(a.path, a.detail) for a in result.actions if a.verb == "skip"]
    assert skips == [(root / "x", "directory not empty: kept")]
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*")) == [
        "keep",
        "keep/a.md",
        "msd-file-manifest.json",
        "msd-pristine.zlib",
        "x",
        "x/yours.md",
    ]
    (root / "x/yours.md").unlink()
    uninstall_claude(_ctx(tmp_path), root)
    assert snapshot(tmp_path) == before


def test_a_folder_filled_after_resolution_is_reported_and_left_yours(tmp_path: Path) -> None:
    """A file saved into a folder between the decision to remove it and its removal keeps
    the folder, and the run says so (it is no longer listed: yours, with your file)."""
    root = tmp_path / "root"
    root.mkdir()
    before = snapshot(tmp_path)
    v1 = {"keep/a.md": b"a\n", "gone/c.md": b"c\n"}
    engine.install(_plan(root, v1), _ctx(tmp_path))

    def meanwhile(_change: int) -> None:  # before the run's first change, once resolved
        if not (root / "gone/notes.txt").exists():
            (root / "gone/notes.txt").write_text("mine\n")

    result = engine.install(_plan(root, {"keep/a.md": b"a\n"}), _ctx(tmp_path), fault=meanwhile)
    skips = [(a.path, a.detail) for a in result.actions if a.verb == "skip"]
    assert skips == [(root / "gone", "directory not empty: kept, yours now")]
    assert (root / "gone/notes.txt").read_text() == "mine\n"
    assert not (root / "gone/c.md").exists()
    (root / "gone/notes.txt").unlink()
    (root / "gone").rmdir()  # yours: removed by you, as you put a file in it
    uninstall_claude(_ctx(tmp_path), root)
    assert snapshot(tmp_path) == before
