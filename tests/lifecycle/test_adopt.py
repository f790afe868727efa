"""``--adopt``: the baseline scan that rebuilds a missing or damaged manifest."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from helpers import build, run_cli, run_json, snapshot_but_registry
from lifecycle.test_upgrade_from_fixtures import guard_timeout, tune_timeout
from msd_install import __version__
from msd_install.installer import engine
from msd_install.installer.context import Context, resolved_interpreter
from msd_install.migrations import released
from msd_install.payload import load
from msd_install.runtimes import ADAPTERS

CLAUDE = ["--claude", "--global", "--yes"]
USER = {
    ".claude/settings.json": '{\n  "model": "opus"\n}\n',
    ".claude/agents/my-agent.md": "mine\n",
}


def test_the_released_hashes_are_current_for_this_version() -> None:
    # if this fails: run scripts/released-hashes (the payload or an adapter changed)
    assert released.unpool(released.read(), __version__) == released.render()


def test_a_damaged_manifest_points_at_adopt_which_recovers_everything(tmp_path: Path) -> None:
    home = tmp_path
    build(home, USER)
    before = snapshot_but_registry(home)
    assert run_cli(CLAUDE, home).returncode == 0
    root = home / ".claude"
    damaged = b'{"format": 1, "files": {'
    (root / "msd-file-manifest.json").write_bytes(damaged)
    planner = root / "agents/msd-planner.md"
    edited = planner.read_bytes() + b"mine too\n"
    planner.write_bytes(edited)
    tune_timeout(root / "settings.json", "msd-secret-read-guard.py", 45)

    proc = run_cli(CLAUDE, home)
    assert proc.returncode == 4
    assert "install manifest is not valid JSON" in proc.stderr
    assert "run msd-install --adopt with the same runtime and scope flags" in proc.stderr

    doc = run_json([*CLAUDE, "--adopt"], home)
    assert doc["exit_code"] == 0
    result = doc["results"][0]
    assert result["command"] == "adopt"
    found = {a["path"]: (a["verb"], a.get("detail", "")) for a in result["actions"]}
    assert found[str(planner)] == ("skip", "yours: a path msd ships, with other content; kept")
    assert found[str(root / "agents/my-agent.md")] == (
        "skip",
        "unknown: not a file msd ships, kept",
    )
    assert found[str(root / "hooks/msd-secret-read-guard.py")] == ("adopt", "ours")
    assert (root / "msd-file-manifest.json.damaged").read_bytes() == damaged
    details = [
        a.get("detail") for a in result["actions"] if a["path"] == str(root / "settings.json")
    ]
    assert "hook msd-secret-read-guard: ours (with your changes)" in details
    manifest = json.loads((root / "msd-file-manifest.json").read_text())
    assert "agents/msd-planner.md" not in manifest["files"]
    assert "agents/my-agent.md" not in manifest["files"]

    # an install now updates as usual: the user's tuning kept, their file left alone
    again = run_json(CLAUDE, home)
    assert again["exit_code"] == 1  # the user's msd-planner.md is in the way: a conflict
    assert guard_timeout(root / "settings.json")[1] == 45
    assert planner.read_bytes() == edited

    proc = run_cli(["--uninstall", *CLAUDE], home)
    assert proc.returncode == 0, proc.stderr
    after = snapshot_but_registry(home)
    assert after.pop(".claude/msd-file-manifest.json.damaged")[0] == damaged
    assert after.pop(".claude/agents/msd-planner.md")[0] == edited
    assert after == before


def test_adopting_a_root_with_no_manifest_then_uninstalling_gives_the_tree_back(
    tmp_path: Path,
) -> None:
    build(tmp_path, USER)
    before = snapshot_but_registry(tmp_path)
    run_cli(CLAUDE, tmp_path)
    (tmp_path / ".claude/msd-file-manifest.json").unlink()
    proc = run_cli([*CLAUDE, "--adopt"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    first = proc.stdout.splitlines()[0]
    assert first.startswith("adopt claude (global) at ~/.claude: 1 skipped, ")
    assert first.endswith(" adopted")
    assert "  skip      ~/.claude/agents/my-agent.md  (unknown: not a file msd ships, kept)" in (
        proc.stdout
    )
    check = run_cli([*CLAUDE, "--check"], tmp_path)
    assert check.returncode == 0, check.stdout
    assert run_cli(["--uninstall", *CLAUDE], tmp_path).returncode == 0
    assert snapshot_but_registry(tmp_path) == before


def test_a_file_of_an_earlier_release_is_recognised_by_its_hash(tmp_path: Path) -> None:
    ctx = Context(
        home=tmp_path,
        cwd=tmp_path,
        interpreter=resolved_interpreter(),
        state_dir=tmp_path / ".local/state/msd",
    )
    plan = ADAPTERS["claude"].plan(ctx, load())
    old, other = b"an agent msd once shipped\n", b"the user's own\n"
    build(
        tmp_path,
        {".claude/agents/msd-retired.md": old, ".claude/agents/msd-gone.md": other},
    )
    known = {
        "agents/msd-retired.md": frozenset({hashlib.sha256(old).hexdigest()}),
        "agents/msd-gone.md": frozenset({hashlib.sha256(b"what we shipped\n").hexdigest()}),
    }
    result = engine.adopt(plan, ctx, known)
    verbs = {a.path.name: (a.verb, a.detail) for a in result.actions}
    assert verbs["msd-retired.md"] == ("adopt", "ours")
    assert verbs["msd-gone.md"][0] == "skip" and verbs["msd-gone.md"][1].startswith("yours")
    # the next install removes the retired file as no longer part of msd; the user's stays
    done = engine.install(plan, ctx)
    assert ("remove", plan.root / "agents/msd-retired.md") in [
        (a.verb, a.path) for a in done.actions
    ]
    assert (plan.root / "agents/msd-gone.md").read_bytes() == other


def test_adopt_leaves_a_valid_manifest_alone(tmp_path: Path) -> None:
    run_cli(CLAUDE, tmp_path)
    before = snapshot_but_registry(tmp_path)
    proc = run_cli([*CLAUDE, "--adopt"], tmp_path)
    assert proc.returncode == 0
    assert "nothing to adopt: this root's manifest is valid" in proc.stdout
    assert snapshot_but_registry(tmp_path) == before


def test_adopt_dry_run_writes_nothing_and_flags_that_conflict_are_refused(tmp_path: Path) -> None:
    run_cli(CLAUDE, tmp_path)
    (tmp_path / ".claude/msd-file-manifest.json").write_text("{")
    before = snapshot_but_registry(tmp_path)
    proc = run_cli([*CLAUDE, "--adopt", "--dry-run"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("dry run: adopt claude (global) at ~/.claude: 1 to back up,")
    assert "  backup    ~/.claude/msd-file-manifest.json.damaged" in proc.stdout
    assert snapshot_but_registry(tmp_path) == before
    for flag in ("--uninstall", "--check"):
        bad = run_cli([*CLAUDE, "--adopt", flag], tmp_path)
        assert bad.returncode == 2
        assert bad.stderr.strip() == f"msd-install: error: --adopt cannot be used with {flag}"


def test_doctor_says_an_adopted_install_wants_an_install_run(tmp_path: Path) -> None:
    run_cli(CLAUDE, tmp_path)
    (tmp_path / ".claude/msd-file-manifest.json").unlink()
    assert run_cli([*CLAUDE, "--adopt"], tmp_path).returncode == 0
    proc = run_cli(["doctor"], tmp_path)
    assert f"rebuilt by --adopt; this is {__version__}: run it again to upgrade" in proc.stdout
    assert run_cli(CLAUDE, tmp_path).returncode == 0
    assert "rebuilt by --adopt" not in run_cli(["doctor"], tmp_path).stdout


MINE = b"my own planner, written before msd was installed\n"
STATUS = b'{\n  "statusLine": {"type": "command", "command": "my-status.sh"}\n}\n'


def test_a_manifest_beyond_reading_leaves_no_backup_of_yours_unnamed(tmp_path: Path) -> None:
    build(tmp_path, {".claude/agents/msd-planner.md": MINE})
    assert run_cli([*CLAUDE, "--force"], tmp_path).returncode == 0
    (tmp_path / ".claude/msd-file-manifest.json").write_bytes(b"\x00 not json at all")
    adopt = run_cli([*CLAUDE, "--adopt"], tmp_path)
    assert adopt.returncode == 0, adopt.stderr
    line = "msd-backups/agents/msd-planner.md  (yours: kept by an earlier --force"
    assert line in adopt.stdout, adopt.stdout
    proc = run_cli(["--uninstall", *CLAUDE], tmp_path)
    assert proc.returncode == 0, proc.stderr
    kept = tmp_path / ".claude/msd-backups/agents/msd-planner.md"
    assert "yours, kept aside by an earlier --force: not put back, kept" in proc.stdout
    assert kept.read_bytes() == MINE  # never lost, and named by both runs


def test_adopt_puts_back_no_config_value_from_a_manifest_nobody_vouches_for(
    tmp_path: Path,
) -> None:
    build(tmp_path, {".claude/settings.json": STATUS})
    assert run_cli([*CLAUDE, "--force-statusline"], tmp_path).returncode == 0
    registry = tmp_path / ".local/state/msd/manifests.json"
    assert registry.is_file()
    registry.unlink()  # as a manifest that came from elsewhere: no record of this user's
    manifest = tmp_path / ".claude/msd-file-manifest.json"
    manifest.write_bytes(manifest.read_bytes()[:-20])
    adopt = run_cli([*CLAUDE, "--adopt"], tmp_path)
    assert adopt.returncode == 0, adopt.stderr
    assert "the value msd replaced is not put back" in adopt.stdout, adopt.stdout
    assert '"previous"' not in manifest.read_text()


def test_adopt_keeps_only_records_that_pass_the_manifest_rules(tmp_path: Path) -> None:
    build(tmp_path, {".claude/agents/msd-planner.md": MINE})
    assert run_cli([*CLAUDE, "--force"], tmp_path).returncode == 0
    manifest = tmp_path / ".claude/msd-file-manifest.json"
    doc = json.loads(manifest.read_text())
    doc["backups"][0]["backup"] = "../../elsewhere/msd-planner.md"  # out of the root
    manifest.write_text(json.dumps(doc, indent=2)[:-20])
    adopt = run_cli([*CLAUDE, "--adopt"], tmp_path)
    assert adopt.returncode == 0, adopt.stderr
    assert '"backups": []' in manifest.read_text()
    assert "msd-backups/agents/msd-planner.md  (yours: kept by" in adopt.stdout
