"""A dry run (``--dry-run``, ``--check``) of an upgrade that migrates reports what the real
run then does: the same actions on the same paths, the same notes (said as what would
happen), resolved against the tree as the migrations would leave it, and writes nothing."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from helpers import run_cli, run_json, snapshot
from lifecycle.fixtures import install_version
from msd_install.migrations import ALL

# per migration: the old version to upgrade from, and a file of that version it moves, which
# the user edited (its edit must be reported saved under the new path, as the real run does)
CASES = {
    "0001-secret-guard-renamed": ("0.0.1", "hooks/msd-secret-guard.py"),
    "0002-engine-dir-moved": ("0.0.2", "msd/workflows/help.md"),
    "0003-hook-code-split": ("0.0.2", "hooks/msd-statusline.py"),
}
SET = re.compile(r"msd-local-patches/\d{8}T\d{6}Z(-\d+)?")  # a patch set, named by the time


def report(doc: dict[str, Any]) -> dict[str, Any]:
    """The JSON report as a dry run and a real run share it: the set's name (a time stamp)
    and "would" taken out."""
    out = SET.sub("msd-local-patches/SET", repr({**doc["results"][0], "dry_run": None}))
    return {"report": out.replace("would be saved", "are saved"), "exit": doc["exit_code"]}


def test_every_migration_has_a_case() -> None:
    assert sorted(CASES) == sorted(m.id for m in ALL)


@pytest.mark.parametrize("migration", sorted(CASES))
def test_the_dry_run_of_a_migrating_upgrade_reports_what_the_real_run_does(
    tmp_path: Path, migration: str
) -> None:
    version, edited = CASES[migration]
    root = install_version(tmp_path, version)
    mine = root / edited
    mine.write_bytes(mine.read_bytes() + b"\n# my edit\n")
    flags = ["--claude", "--global", "--yes"]
    before = snapshot(tmp_path, stat=True)

    dry = run_json([*flags, "--dry-run"], tmp_path)
    text = run_cli([*flags, "--dry-run"], tmp_path)
    check = run_cli([*flags, "--check"], tmp_path)
    assert snapshot(tmp_path, stat=True) == before  # not a byte, not an mtime changed
    real = run_json(flags, tmp_path)

    assert report(dry) == report(real)
    assert dry["results"][0]["dry_run"] and not real["results"][0]["dry_run"]
    assert any(a["detail"].startswith(migration + ":") for a in dry["results"][0]["actions"])
    # the edit: saved under the path the migrations give it, never "kept" at the old one
    (saved,) = [a for a in real["results"][0]["actions"] if a["verb"] == "backup"]
    assert "/user/" in saved["path"] and edited not in saved["path"]
    assert text.returncode == 0, text.stderr
    assert "modified by you: kept" not in text.stdout
    (line,) = [s for s in text.stdout.splitlines() if s.lstrip().startswith("backup")]
    assert SET.sub("SET", line).split()[1] == SET.sub("SET", saved["path"]).replace(
        str(tmp_path), "~"
    )
    assert "would be saved in msd-local-patches/" in text.stdout
    assert check.returncode == 1 and "migrate" in check.stdout  # drift, as the real run shows
    assert real["results"][0]["drift"]


@pytest.mark.parametrize("runtime", ["codex", "hermes"])
def test_the_dry_run_of_a_migration_of_toml_and_yaml_config_reports_the_real_run(
    tmp_path: Path, runtime: str
) -> None:
    install_version(tmp_path, "0.0.1", runtime)
    flags = [f"--{runtime}", "--global", "--yes"]
    before = snapshot(tmp_path, stat=True)
    dry = run_json([*flags, "--dry-run"], tmp_path)
    assert snapshot(tmp_path, stat=True) == before
    real = run_json(flags, tmp_path)
    assert report(dry) == report(real)
    verbs = {a["verb"] for a in real["results"][0]["actions"]}
    assert "migrate" in verbs and "remove" not in verbs, verbs


def _core_out(home: Path, root: Path) -> Path:
    (home / "outside").mkdir()
    (root / "msd-core").symlink_to(home / "outside")
    return home / "outside"


def _hooks_out(home: Path, root: Path) -> Path:
    (root / "hooks").rename(home / "hooks-out")
    (root / "hooks").symlink_to(home / "hooks-out")
    return home / "hooks-out"


def _settings_out(home: Path, root: Path) -> Path:
    (home / "dot").mkdir()
    (root / "settings.json").rename(home / "dot" / "settings.json")
    (root / "settings.json").symlink_to(home / "dot" / "settings.json")
    return home / "dot"


@pytest.mark.parametrize("outside", [_core_out, _hooks_out, _settings_out])
def test_a_local_migration_never_goes_through_a_link_out_of_the_project(
    tmp_path: Path, outside: Any
) -> None:
    """A --local upgrade whose migrations would move, remove or rewrite through a symlink
    leading out of the project leaves that path alone and names it (as resolution does
    without a migration): the real run does not stop at the link, changes nothing outside
    the project, and its dry run reports it exactly."""
    project = tmp_path / "proj"
    project.mkdir()
    root = install_version(tmp_path, "0.0.1", "claude", project)
    away = outside(tmp_path, root)
    there = snapshot(away, stat=True)
    args = ["--claude", "--local", "--yes"]
    before = snapshot(tmp_path, stat=True)
    dry = run_cli([*args, "--dry-run", "--json"], tmp_path, project)
    assert snapshot(tmp_path, stat=True) == before
    real = run_cli([*args, "--json"], tmp_path, project)
    assert real.returncode == dry.returncode == 1, real.stdout + real.stderr
    import json

    assert report(json.loads(dry.stdout)) == report(json.loads(real.stdout))
    assert "leads out of the project (a symlink)" in real.stdout
    assert snapshot(away, stat=True) == there  # nothing outside the project was touched
