"""A conflicted merge in one patch set's ``conflicts/`` that ``--reapply`` cannot read (a
symlink, a FIFO, a file over 8 MiB) holds up that set only: it is named (the file and the
problem) and left exactly as it is, the other sets are merged and settled as usual, and the
run exits 1 (not everything was done). Never followed, never opened (a FIFO never blocks).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import AS_NOBODY, as_nobody_possible, cli_env, open_tmp, run_cli, snapshot
from installer.test_reapply import (
    CLAUDE,
    HOOK,
    HOOK_MINE,
    HOOK_V1,
    HOOK_V2,
    MERGED,
    MINE,
    OTHER,
    V1,
    V2,
    install,
    reapply,
)

PLAN = "msd-core/plan.md"
# what the link points at: a settled merge (no marker line) that following it would install
OUTSIDE = HOOK_V1.replace(b"['.env']", b"['.env', '.netrc', '.npmrc']") + b"# outside\n"


def two_sets(home: Path) -> tuple[Path, Path]:
    """An upgrade saved your edit of the hook (set A), a later one your edit of plan.md (B)."""
    root = home / ".claude"
    install(home, {HOOK: HOOK_V1, PLAN: V1, "other.md": OTHER})
    (root / HOOK).write_bytes(HOOK_MINE)
    install(home, {HOOK: HOOK_V2, PLAN: V1, "other.md": OTHER})
    (root / PLAN).write_bytes(MINE)
    install(home, {HOOK: HOOK_V2, PLAN: V2, "other.md": OTHER})
    first, second = sorted((root / "msd-local-patches").iterdir())
    assert json.loads((first / "patch.json").read_text())["files"][0]["path"] == HOOK
    assert json.loads((second / "patch.json").read_text())["files"][0]["path"] == PLAN
    return first, second


def damage(copy: Path, how: str, home: Path) -> tuple[Path, str]:
    """Put something unreadable where the set's conflicted merge goes: the path named, and
    the problem."""
    if how == "file":  # the set's conflicts/ itself is a file
        folder = copy.parents[len(HOOK.split("/")) - 1]
        folder.write_bytes(b"not a folder\n")
        return folder, "is a file, not a folder: nothing is read or written there"
    copy.parent.mkdir(parents=True, exist_ok=True)
    if how == "symlink":
        (home / "outside.py").write_bytes(OUTSIDE)
        copy.symlink_to(home / "outside.py")
        return copy, "is a symlink, not a plain file: not followed"
    if how == "fifo":
        os.mkfifo(copy)
        return copy, "is a FIFO (named pipe), not a plain file: not read"
    with open(copy, "wb") as handle:  # sparse: 9 MiB of nothing, over the 8 MiB bound
        handle.truncate(9 << 20)
    return copy, "is larger than 8 MiB: not read"


def tree(folder: Path) -> dict[str, object]:
    return snapshot(folder, stat=True)


@pytest.mark.parametrize("how", ["symlink", "fifo", "huge", "file"])
def test_a_damaged_conflicted_merge_holds_up_its_own_set_only(tmp_path: Path, how: str) -> None:
    root = tmp_path / ".claude"
    first, second = two_sets(tmp_path)
    copy = first / "conflicts" / HOOK
    damaged, problem = damage(copy, how, tmp_path)
    shown = f"msd-local-patches/{first.name}/{damaged.relative_to(first).as_posix()}"
    kept = tree(first)

    proc = run_cli([*CLAUDE, "--reapply", "--json"], tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["exit_code"] == 1
    (result,) = doc["results"]
    actions = [(a["verb"], a["path"], a.get("detail", "")) for a in result["actions"]]
    want = f"{problem}; this set is left as it is, not merged or removed"
    assert ("conflict", str(damaged), want) in actions
    assert (
        "update",
        str(root / PLAN),
        f"your edits from msd-local-patches/{second.name}/user/{PLAN} merged",
    ) in actions
    assert [a for a in actions if a[1] == str(root / HOOK)] == []  # the set is not looked into
    (note,) = [n for n in result["notes"] if shown in n]
    assert note == (
        f"{shown} {problem}; the set msd-local-patches/{first.name} is left as it is (not "
        "merged, not removed): move that file away, then run msd-install --reapply again"
    )
    # the other set merged; the damaged one exactly as it was, the hook as the upgrade left it
    assert (root / PLAN).read_bytes() == MERGED
    assert (root / HOOK).read_bytes() == HOOK_V2
    assert tree(first) == kept

    # --done: the merged set goes, the damaged one stays as it is; the text names both
    proc = reapply(tmp_path, "--done")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"conflict  ~/.claude/{shown}  ({want})" in proc.stdout
    assert f"note: {note}" in proc.stdout
    assert f"remove    ~/.claude/msd-local-patches/{second.name}  (merged; removed" in proc.stdout
    assert not second.exists() and tree(first) == kept
    assert (root / PLAN).read_bytes() == MERGED and (root / HOOK).read_bytes() == HOOK_V2

    # settled by you (a plain file, no marker line): the set is merged and removed as usual
    damaged.unlink()
    copy.parent.mkdir(parents=True, exist_ok=True)
    settled = HOOK_V1.replace(b"['.env']", b"['.env', '.netrc', '.npmrc']")
    copy.write_bytes(settled)
    proc = reapply(tmp_path, "--done")
    assert proc.returncode == 0, proc.stdout
    assert (root / HOOK).read_bytes() == settled
    assert not (root / "msd-local-patches").exists()


def test_a_later_set_of_the_same_file_waits_for_the_damaged_one(tmp_path: Path) -> None:
    """A later set's edit of the file whose merge waits in the damaged set is not merged
    against the live file meanwhile (it would leave the earlier edit out)."""
    root = tmp_path / ".claude"
    install(tmp_path, {HOOK: HOOK_V1, "other.md": OTHER})
    (root / HOOK).write_bytes(HOOK_MINE)
    install(tmp_path, {HOOK: HOOK_V2, "other.md": OTHER})
    v3 = HOOK_V2 + b"# v3\n"
    (root / HOOK).write_bytes(HOOK_V2 + b"# mine too\n")
    install(tmp_path, {HOOK: v3, "other.md": OTHER})
    first, _second = sorted((root / "msd-local-patches").iterdir())
    damage(first / "conflicts" / HOOK, "fifo", tmp_path)
    before = snapshot(tmp_path)
    proc = reapply(tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert (
        f"skip      ~/.claude/{HOOK}  (waiting: the set msd-local-patches/{first.name} of this "
        "file is held up (a conflicted merge in it cannot be read)" in proc.stdout
    )
    assert snapshot(tmp_path) == before and (root / HOOK).read_bytes() == v3


def test_a_damaged_later_set_holds_up_the_earlier_sets_of_its_file(tmp_path: Path) -> None:
    """A file is merged with all of its sets, in order, or not at all: the earlier set waits
    for the damaged later one (merged alone, the file would later pass for merged with the
    held set too, and its --done would remove the only copy of its edits)."""
    root = tmp_path / ".claude"
    install(tmp_path, {PLAN: V1, "other.md": OTHER})
    (root / PLAN).write_bytes(MINE)
    install(tmp_path, {PLAN: V2, "other.md": OTHER})
    v3 = V2 + b"A third version's line.\n"
    (root / PLAN).write_bytes(V2 + b"Mine, after the second upgrade.\n")
    install(tmp_path, {PLAN: v3, "other.md": OTHER})
    first, second = sorted((root / "msd-local-patches").iterdir())
    damaged, problem = damage(second / "conflicts" / PLAN, "fifo", tmp_path)
    kept = tree(second)
    proc = reapply(tmp_path, "--done")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert (
        f"skip      ~/.claude/{PLAN}  (waiting: the set msd-local-patches/{second.name} of this "
        "file is held up" in proc.stdout
    )
    shown = f"msd-local-patches/{second.name}/conflicts/{PLAN}"
    assert f"note: {shown} {problem}; the set msd-local-patches/{second.name}" in proc.stdout
    assert tree(second) == kept and damaged.is_fifo() and first.is_dir()  # both kept
    assert (root / PLAN).read_bytes() == v3  # nothing merged into it yet


@pytest.mark.skipif(
    not as_nobody_possible(), reason="needs root to run msd-install as another user (setpriv)"
)
def test_a_conflicts_folder_you_may_not_look_into_holds_up_its_set_in_every_run() -> None:
    """A ``conflicts/`` folder this user cannot look into (mode 000) is named with the problem
    and holds up its own set, in a dry run as in the real one: no crash, the rest merged."""
    with open_tmp() as tmp:
        home = tmp / "home"
        home.mkdir()
        first, _second = two_sets(home)
        conflicts = first / "conflicts"
        conflicts.mkdir()
        (conflicts / "hooks").mkdir()
        subprocess.run(["chown", "-R", "nobody:", str(home)], check=True)
        conflicts.chmod(0)
        for extra in (("--dry-run",), ()):
            argv = [*AS_NOBODY, sys.executable, "-m", "msd_install", *CLAUDE, "--reapply", *extra]
            proc = subprocess.run(
                argv, cwd=home, env=cli_env(home), capture_output=True, text=True, timeout=120
            )
            assert proc.returncode == 1, proc.stdout + proc.stderr
            assert "internal error" not in proc.stderr
            assert "cannot be looked at (Permission denied): not read" in proc.stdout
            assert f"the set msd-local-patches/{first.name} is left as it is" in proc.stdout
        assert (home / ".claude" / PLAN).read_bytes() == MERGED


def test_sets_held_up_with_a_damaged_one_merge_in_order_once_it_is_released(
    tmp_path: Path,
) -> None:
    """Sets 1-2 wait while set 3 of the same file is held up (its conflicted merge a FIFO);
    once you move the FIFO away, --reapply merges all three in order, a second --reapply
    finds them merged (no line twice), and --done removes the sets."""
    root = tmp_path / ".claude"
    lines = [b"# Plan\n"] + [b"line %d\n" % i for i in range(1, 31)]
    version = list(lines)
    install(tmp_path, {PLAN: b"".join(version), "other.md": OTHER})
    for k in (1, 2, 3):  # your edit k, on its own line; msd changes only the title
        text = (root / PLAN).read_bytes().replace(b"line %d\n" % (10 * k), b"edit %d\n" % k)
        (root / PLAN).write_bytes(text)
        version[0] = b"# Plan v%d\n" % (k + 1)
        install(tmp_path, {PLAN: b"".join(version), "other.md": OTHER})
    upgraded = (root / PLAN).read_bytes()
    sets = sorted((root / "msd-local-patches").iterdir())
    assert len(sets) == 3
    fifo, _problem = damage(sets[2] / "conflicts" / PLAN, "fifo", tmp_path)
    assert reapply(tmp_path).returncode == 1
    assert (root / PLAN).read_bytes() == upgraded  # no set merged alone
    fifo.unlink()
    proc = reapply(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    merged = (root / PLAN).read_bytes()
    assert all(merged.count(b"edit %d\n" % k) == 1 for k in (1, 2, 3))
    assert merged.startswith(b"# Plan v4\n")
    proc = reapply(tmp_path, "--done")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("your edits are merged already") == 3
    assert (root / PLAN).read_bytes() == merged
    assert not (root / "msd-local-patches").exists(), proc.stdout


def test_sets_saved_in_one_second_are_taken_in_the_order_they_were_saved() -> None:
    from msd_install.installer.patches import set_order

    names = ["20261201T212930Z-10", "20261201T212930Z-2", "20261201T212930Z", "20261130T000000Z"]
    assert set_order("20261201T212930Z-\u00b2")[1] == 1  # a digit that int() refuses: no crash
    assert sorted(names, key=set_order) == [
        "20261130T000000Z",
        "20261201T212930Z",
        "20261201T212930Z-2",
        "20261201T212930Z-10",
    ]
