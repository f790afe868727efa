"""A conflicted merge in one patch set's ``conflicts/`` that ``--reapply`` cannot read (a
symlink, a FIFO, a file over 8 MiB) holds up that set only: it is named (the file and the
problem) and left exactly as it is, the other sets are merged and settled as usual, and the
run exits 1 (not everything was done). Never followed, never opened (a FIFO never blocks).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from helpers import run_cli, snapshot
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
        f"{shown} {problem}: the set msd-local-patches/{first.name} is left as it is (not "
        "merged, not removed); move it away, then run msd-install --reapply again"
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
    shown = f"msd-local-patches/{first.name}/conflicts/{HOOK}"
    assert (
        f"skip      ~/.claude/{HOOK}  (waiting: the merge of an earlier set's edits is in {shown}"
        in (proc.stdout)
    )
    assert snapshot(tmp_path) == before and (root / HOOK).read_bytes() == v3


def test_a_dry_run_names_the_damaged_set_and_changes_nothing(tmp_path: Path) -> None:
    first, _second = two_sets(tmp_path)
    damage(first / "conflicts" / HOOK, "fifo", tmp_path)
    before = snapshot(tmp_path, stat=True)
    for extra in ((), ("--done",)):
        proc = reapply(tmp_path, "--dry-run", *extra)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert "is a FIFO (named pipe), not a plain file: not read" in proc.stdout
        assert f"msd-local-patches/{first.name} is left as it is" in proc.stdout
    assert snapshot(tmp_path, stat=True) == before
