"""Review: what a committed (foreign) manifest can make a teammate's later runs do once it is
trusted (kept byte for byte by 4666f77, or rewritten restricted as before: both end up in the
teammate's registry).

1. A backup record for one of msd's own files, with its bytes committed under msd-backups/,
   passes verification (restricted backups are carried over as they are). Once trusted, the
   uninstall reads the backup with read_plain (follows directory links) and removes it. A later
   ``git pull`` that turns ``.claude/msd-backups`` into a relative symlink out of the project
   makes the teammate's uninstall copy a file of theirs from outside the project into the
   project tree (to be committed) and delete the original.
2. A config record's ``fmt`` is never compared with the format the adapter uses for that file:
   a record saying ``yaml`` for ``.mcp.json`` is kept verbatim and trusted, and every uninstall
   is then refused (the JSON file is edited as YAML).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from helpers import run_cli

ARGS = ["--claude", "--local", "--yes"]
KEPT = "the manifest holds exactly what this msd-install writes here"
OURS = "agents/msd-codebase-mapper.md"


def _homes(tmp_path: Path) -> tuple[Path, Path, Path]:
    alice, bob, project = tmp_path / "alice", tmp_path / "bob", tmp_path / "project"
    for d in (alice, bob, project):
        d.mkdir()
    return alice, bob, project


def _edit_manifest(project: Path, change) -> None:  # type: ignore[no-untyped-def]
    path = project / ".claude/msd-file-manifest.json"
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


def test_a_planted_backup_cannot_later_take_a_file_from_outside_the_project(
    tmp_path: Path,
) -> None:
    alice, bob, project = _homes(tmp_path)
    assert run_cli(ARGS, alice, cwd=project).returncode == 0
    # the hostile commit: a backup record for one of msd's files, its "backup" bytes beside it
    _edit_manifest(
        project,
        lambda d: d.__setitem__(
            "backups", [{"path": OURS, "backup": f"msd-backups/{OURS}", "mode": 0o644}]
        ),
    )
    planted = project / ".claude/msd-backups" / OURS
    planted.parent.mkdir(parents=True)
    planted.write_text("harmless\n")
    first = run_cli(ARGS, bob, cwd=project)
    assert first.returncode == 0, first.stderr
    assert KEPT in first.stdout  # verified, kept, and now Bob's
    # Bob's own file, outside the project, named like one of msd's
    secret = bob / "notes" / OURS
    secret.parent.mkdir(parents=True)
    secret.write_text("bob's private notes\n")
    # the next pull: msd-backups becomes a relative link leading out of the project
    backups = project / ".claude/msd-backups"
    (backups / OURS).unlink()
    (backups / "agents").rmdir()
    backups.rmdir()
    backups.symlink_to(os.path.relpath(bob / "notes", backups.parent))
    proc = run_cli([*ARGS, "--uninstall"], bob, cwd=project)
    leaked = project / ".claude" / OURS
    # actual: exit 0, "restore" of OURS with Bob's notes, and Bob's file deleted
    assert secret.exists() and secret.read_text() == "bob's private notes\n", proc.stdout
    assert not (leaked.exists() and "bob's private notes" in leaked.read_text())


def test_a_committed_record_with_the_wrong_format_does_not_block_uninstall(
    tmp_path: Path,
) -> None:
    alice, bob, project = _homes(tmp_path)
    mine = '{\n  "mcpServers": {\n    "mine": {\n      "command": "node"\n    }\n  }\n}\n'
    (project / ".mcp.json").write_text(mine)
    assert run_cli(ARGS, alice, cwd=project).returncode == 0

    def as_yaml(doc: dict) -> None:  # type: ignore[type-arg]
        for record in doc["config"]:
            if record["file"] == "../.mcp.json":
                record["fmt"] = "yaml"
                for op in record["ops"]:
                    op.pop("interior", None)

    _edit_manifest(project, as_yaml)
    first = run_cli(ARGS, bob, cwd=project)
    if first.returncode == 4:  # refusing the manifest outright is a fine answer too
        assert "msd-file-manifest.json" in first.stderr and "fmt" in first.stderr
        return
    assert first.returncode == 0, first.stderr
    proc = run_cli([*ARGS, "--uninstall"], bob, cwd=project)
    # actual: exit 4, ".mcp.json: mcpServers.msd was changed in a way msd-install cannot
    # undo safely", on every uninstall from now on (the manifest is Bob's, trusted)
    assert proc.returncode == 0, proc.stderr
    assert (project / ".mcp.json").read_text() == mine


def test_a_local_uninstall_never_edits_a_config_file_outside_the_project(tmp_path: Path) -> None:
    """The install refuses a config symlink leading out of the project ("not followed in a
    --local install (a cloned project could point it anywhere)"); the uninstall of the same
    (trusted) root follows it and edits the file it leads to."""
    alice, bob, _ = _homes(tmp_path)
    project = bob / "proj"
    project.mkdir()
    mine = '{\n  "model": "opus",\n  "hooks": {}\n}\n'
    (bob / ".claude").mkdir()
    (bob / ".claude/settings.json").write_text(mine)  # Bob's own global settings
    assert run_cli(ARGS, alice, cwd=project).returncode == 0
    first = run_cli(ARGS, bob, cwd=project)  # the committed install: kept, now Bob's
    assert first.returncode == 0 and KEPT in first.stdout, first.stdout
    # the next pull: the project's settings.json becomes a relative link into Bob's home
    settings = project / ".claude/settings.json"
    settings.unlink()
    settings.symlink_to("../../.claude/settings.json")
    again = run_cli(ARGS, bob, cwd=project)
    assert "not followed in a --local install" in again.stdout  # the install refuses it
    assert (bob / ".claude/settings.json").read_text() == mine
    proc = run_cli([*ARGS, "--uninstall"], bob, cwd=project)
    assert proc.returncode in (0, 4), proc.stderr  # skipped or refused: either is fine
    # actual: exit 0 and Bob's "hooks": {} is gone (msd's "container" op applied to his global file)
    assert (bob / ".claude/settings.json").read_text() == mine
