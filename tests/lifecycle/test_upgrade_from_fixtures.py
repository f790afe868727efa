"""Upgrading from earlier versions (tests/lifecycle/fixtures.py): the user's edits and tuned
entries survive, migrations run once, and uninstall then gives back the original tree."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from helpers import build, run_cli, run_json, snapshot_but_registry
from lifecycle.fixtures import VERSIONS, install_version
from msd_install import __version__
from msd_install.migrations import ALL

CLAUDE = ["--claude", "--global", "--yes"]
USER_FILES = {
    ".claude/settings.json": '{\n  "model": "opus",\n  "hooks": {}\n}\n',
    ".claude/hooks/my-hook.sh": "#!/bin/sh\necho mine\n",
    ".claude/agents/my-agent.md": "---\nname: my-agent\n---\nmine\n",
}


def tune_timeout(settings: Path, script: str, timeout: int) -> None:
    """The user raises the timeout of our hook running ``script`` (a text edit, as by hand)."""
    text = settings.read_text()
    at = text.index(script)
    head, tail = text[:at], text[at:]
    tail = re.sub(r'"timeout": \d+', f'"timeout": {timeout}', tail, count=1)
    settings.write_text(head + tail)


def guard_timeout(settings: Path) -> tuple[str, int]:
    doc = json.loads(settings.read_text())
    for group in doc["hooks"]["PreToolUse"]:
        for hook in group["hooks"]:
            if "secret" in hook["command"] and "guard" in hook["command"]:
                return hook["command"], hook["timeout"]
    raise AssertionError("no secret guard hook")


@pytest.mark.parametrize("version", VERSIONS)
def test_upgrade_keeps_edits_and_tuning_migrates_once_and_uninstalls_clean(
    tmp_path: Path, version: str
) -> None:
    home = tmp_path
    build(home, USER_FILES)
    before = snapshot_but_registry(home)
    root = install_version(home, version)
    old_script = "msd-secret-guard.py" if version == "0.0.1" else "msd-secret-read-guard.py"
    tune_timeout(root / "settings.json", old_script, 30)
    planner = root / "agents/msd-planner.md"
    edited = planner.read_bytes() + b"\nMy own rule: always write tests first.\n"
    planner.write_bytes(edited)

    doc = run_json(CLAUDE, home)
    actions = doc["results"][0]["actions"]
    migrated = [a for a in actions if a["verb"] == "migrate"]
    ids = {a["detail"].split(":")[0] for a in migrated}
    later = {"0002-engine-dir-moved", "0003-hook-code-split"}
    assert ids == ({"0001-secret-guard-renamed", *later} if version == "0.0.1" else later)
    # the engine directory moved, nothing of the old layout is left
    assert not (root / "msd").exists()
    assert (root / "msd-core/VERSION").read_text() == f"{__version__}\n"
    assert not (root / "hooks/msd-secret-guard.py").exists()
    assert (root / "hooks/msd-secret-read-guard.py").is_file()
    # the tuned hook entry: now naming the new script, the user's timeout kept
    command, timeout = guard_timeout(root / "settings.json")
    assert command.endswith('/hooks/msd-secret-read-guard.py"') and timeout == 30
    assert json.loads((root / "settings.json").read_text())["model"] == "opus"
    server = json.loads((home / ".claude.json").read_text())
    assert server["mcpServers"]["msd"]["args"][-1] == str(root / "msd-core/bin/msd-mcp")
    # the user's edit: the file is this version's, their copy and its base kept aside
    (patch_set,) = (root / "msd-local-patches").iterdir()
    patch = patch_set / "user/agents/msd-planner.md"
    assert patch.read_bytes() == edited
    assert (patch_set / "base/agents/msd-planner.md").is_file()  # the old version's bytes
    assert ("backup", str(patch)) in [(a["verb"], a["path"]) for a in actions]
    new_planner = planner.read_bytes()
    manifest = json.loads((root / "msd-file-manifest.json").read_text())
    assert manifest["installer_version"] == __version__
    assert manifest["migrations"] == [{"id": m.id, "version": m.ships_in} for m in ALL]
    assert "msd-core/cache/msd-update-check.json" in manifest["state"]

    # a second run: nothing to migrate, nothing to change
    again = run_json(CLAUDE, home)
    verbs = {a["verb"] for a in again["results"][0]["actions"]}
    assert verbs <= {"identical", "skip", "conflict"}, verbs
    assert guard_timeout(root / "settings.json")[1] == 30

    # --reapply: the user's edit merged into this version's file (three ways, from the old
    # version's bytes), the tuning still kept; --done then clears the saved copies
    proc = run_cli([*CLAUDE, "--reapply"], home)
    assert proc.returncode == 0, proc.stdout
    merged = new_planner + b"\nMy own rule: always write tests first.\n"
    assert planner.read_bytes() == merged
    assert guard_timeout(root / "settings.json")[1] == 30
    assert run_cli([*CLAUDE, "--check"], home).returncode == 0
    assert run_cli([*CLAUDE, "--reapply", "--done"], home).returncode == 0
    assert not (root / "msd-local-patches").exists()

    # uninstall: the original tree, plus the user's file with their edit merged in
    proc = run_cli(["--uninstall", *CLAUDE], home)
    assert proc.returncode == 0, proc.stderr
    after = snapshot_but_registry(home)
    extra = {k for k in after if k not in before}
    assert extra == {".claude/agents/msd-planner.md"}
    assert after[".claude/agents/msd-planner.md"][0] == merged
    assert {k: v for k, v in after.items() if k not in extra} == before


def test_a_changed_file_in_the_old_engine_directory_is_saved_under_its_new_path(
    tmp_path: Path,
) -> None:
    """A file of msd's you edited that a migration moves is not left behind (the new version
    would run without your edit): it is saved as a patch set under its new path, with the
    bytes msd had installed at the old one as its base, and the new version installed."""
    root = install_version(tmp_path, "0.0.2")
    mine = root / "msd/workflows/help.md"
    installed = mine.read_bytes()
    changed = installed + b"\nmy note\n"
    mine.write_bytes(changed)
    proc = run_cli(CLAUDE, tmp_path)
    assert proc.returncode == 0, proc.stderr
    new = root / "msd-core/workflows/help.md"
    (patch_set,) = (root / "msd-local-patches").iterdir()
    user = patch_set / "user/msd-core/workflows/help.md"
    assert f"backup    ~/.claude/msd-local-patches/{patch_set.name}/user/" in proc.stdout
    assert "run msd-install --reapply" in proc.stdout
    assert user.read_bytes() == changed
    assert (patch_set / "base/msd-core/workflows/help.md").read_bytes() == installed
    doc = json.loads((patch_set / "patch.json").read_text())
    assert [e["path"] for e in doc["files"]] == ["msd-core/workflows/help.md"]
    assert not (root / "msd").exists() and b"my note" not in new.read_bytes()
    # uninstall: nothing of msd's is left, your saved copy is kept and named
    proc = run_cli(["--uninstall", *CLAUDE], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "your edits to msd-core/workflows/help.md, saved by an upgrade: kept" in proc.stdout
    assert sorted(p.name for p in root.iterdir()) == ["msd-local-patches"]
    assert user.read_bytes() == changed


def test_a_moved_edit_without_a_pristine_base_is_saved_for_a_merge_by_hand(
    tmp_path: Path,
) -> None:
    root = install_version(tmp_path, "0.0.2")
    (root / "msd-pristine.zlib").unlink()  # as an install older than the store left it
    old = root / "msd/workflows/add-phase.md"  # its text names msd/: this version's differs
    changed = old.read_bytes() + b"\n# mine\n"
    old.write_bytes(changed)
    proc = run_cli(CLAUDE, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "--reapply cannot merge them" in proc.stdout
    (patch_set,) = (root / "msd-local-patches").iterdir()
    assert (patch_set / "user/msd-core/workflows/add-phase.md").read_bytes() == changed
    assert not (patch_set / "base").exists() and not old.exists()
    doc = json.loads((patch_set / "patch.json").read_text())
    assert doc["files"][0]["base"] is None
    proc = run_cli([*CLAUDE, "--reapply"], tmp_path)
    assert proc.returncode == 1 and "merge msd-local-patches/" in proc.stdout, proc.stdout
    assert b"# mine" not in (root / "msd-core/workflows/add-phase.md").read_bytes()


def test_an_old_install_uninstalls_without_upgrading(tmp_path: Path) -> None:
    before = snapshot_but_registry(tmp_path)
    root = install_version(tmp_path, "0.0.1")
    (root / "msd/cache/msd-update-check.json").write_text("{}")  # written at run time
    proc = run_cli(["--uninstall", *CLAUDE], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert snapshot_but_registry(tmp_path) == before


def test_dry_run_reports_migrations_and_changes_nothing(tmp_path: Path) -> None:
    install_version(tmp_path, "0.0.1")
    before = snapshot_but_registry(tmp_path)
    proc = run_cli([*CLAUDE, "--dry-run", "-v"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "migrate   ~/.claude/msd-core/VERSION  (0002-engine-dir-moved: moved from" in proc.stdout
    assert snapshot_but_registry(tmp_path) == before
    check = run_cli([*CLAUDE, "--check"], tmp_path)
    assert check.returncode == 1 and "migrate" in check.stdout


@pytest.mark.parametrize("k", [3, 40, 200])
def test_an_interrupted_upgrade_rolls_the_migrations_back(tmp_path: Path, k: int) -> None:
    install_version(tmp_path, "0.0.1")
    before = snapshot_but_registry(tmp_path)
    proc = run_cli(CLAUDE, tmp_path, MSD_INSTALL_TEST_SIGNAL=f"{k}:INT")
    assert proc.returncode == 130, proc.stderr
    assert snapshot_but_registry(tmp_path) == before
    assert run_json(CLAUDE, tmp_path)["exit_code"] == 0  # and the next run migrates


@pytest.mark.parametrize("k", [1, 209, 304, 308, 331])  # the move, the copies, patch.json
def test_an_upgrade_killed_while_saving_a_moved_edit_is_rolled_back(tmp_path: Path, k: int) -> None:
    root = install_version(tmp_path, "0.0.2")
    mine = root / "msd/workflows/help.md"
    changed = mine.read_bytes() + b"\nmy note\n"
    mine.write_bytes(changed)
    before = snapshot_but_registry(tmp_path)
    killed = run_cli(CLAUDE, tmp_path, MSD_INSTALL_TEST_SIGNAL=f"{k}:KILL")
    assert killed.returncode == -9, killed.stderr
    assert run_cli([*CLAUDE, "--dry-run"], tmp_path).returncode == 0  # recovers first
    assert snapshot_but_registry(tmp_path) == before
    assert run_cli(CLAUDE, tmp_path).returncode == 0
    assert run_cli([*CLAUDE, "--reapply"], tmp_path).returncode == 0
    assert b"my note" in (root / "msd-core/workflows/help.md").read_bytes()


def test_an_edit_of_a_whole_hook_is_merged_into_its_code_and_the_hook_runs(
    tmp_path: Path,
) -> None:
    """Before 0.1.0 a hook was one file; an edit of it follows the code to
    hooks/msd-<name>-code.py (0003), where --reapply merges it, behind a new launcher."""
    import subprocess
    import sys

    home = tmp_path / "home"
    root = install_version(home, "0.0.2")
    hook = root / "hooks/msd-statusline.py"
    text = hook.read_text()
    assert "MSD Core hook launcher" not in text  # the old layout: the whole hook
    edited = text.replace("BAR_WIDTH = 10", "BAR_WIDTH = 20  # mine: a wider bar")
    assert edited != text
    hook.write_text(edited)
    up = run_cli(CLAUDE, home)
    assert up.returncode == 0, up.stdout + up.stderr
    backup = [line for line in up.stdout.splitlines() if line.lstrip().startswith("backup")]
    assert len(backup) == 1 and "hooks/msd-statusline-code.py" in backup[0], up.stdout
    assert "MSD Core hook launcher" in hook.read_text()
    proc = run_cli([*CLAUDE, "--reapply"], home)
    assert proc.returncode == 0, proc.stdout
    code = root / "hooks/msd-statusline-code.py"
    assert "BAR_WIDTH = 20  # mine: a wider bar" in code.read_text()
    event = {"session_id": "s", "model": {"display_name": "Opus"}, "cwd": str(tmp_path)}
    event["context_window"] = {"used_percentage": 50}
    run = subprocess.run(
        [sys.executable, "-I", "-S", str(hook)],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        env={"NO_COLOR": "1", "HOME": str(home), "TMPDIR": str(tmp_path)},
        timeout=30,
    )
    assert run.stdout.count("█") + run.stdout.count("░") == 20, run.stdout + run.stderr
