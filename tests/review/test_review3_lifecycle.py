"""Review 3 of the lifecycle fixes (issue 10): what a cloned project can make --reapply merge,
two saved sets for one file, conflict markers in a Markdown file's front matter."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

from helpers import run_cli
from msd_install.installer import pristine

GUARD = "hooks/msd-secret-read-guard-code.py"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_a_cloned_projects_pristine_store_cannot_supply_the_base_of_a_merge(
    tmp_path: Path,
) -> None:
    """A committed manifest and msd-pristine.zlib crafted together (the guard recorded as an
    "older version" B0 the store holds, the live guard B0 plus a payload) would have
    --reapply merge the payload into msd's guard. A base from a project's store counts only
    when msd shipped it for that path: here it did not, so the copy is saved without one."""
    alice, bob, project = tmp_path / "alice", tmp_path / "bob", tmp_path / "proj"
    for folder in (alice, bob, project):
        folder.mkdir()
    local = ["--claude", "--local", "--yes"]
    assert run_cli(local, alice, cwd=project).returncode == 0
    root = project / ".claude"
    guard = root / GUARD
    ours = guard.read_bytes()
    lines = ours.splitlines(keepends=True)
    older = b"".join([lines[0], b"# an older header line\n", *lines[2:]])
    cut = next(i for i in range(len(lines) // 2, len(lines)) if lines[i].startswith(b"def "))
    marker = tmp_path / "PWNED"
    payload = f"open({str(marker)!r}, 'w').write('pwned')\n".encode()
    crafted = older.splitlines(keepends=True)
    guard.write_bytes(b"".join([*crafted[:cut], payload, *crafted[cut:]]))
    doc = json.loads((root / "msd-file-manifest.json").read_text())
    doc["files"][GUARD]["sha256"] = sha(older)
    store = pristine.blobs(pristine.unpack((root / pristine.STORE_NAME).read_bytes()))
    data = pristine.compress(pristine.pack([*store.values(), older]))
    (root / pristine.STORE_NAME).write_bytes(data)
    doc["pristine"] = sha(data)
    (root / "msd-file-manifest.json").write_text(json.dumps(doc, indent=2) + "\n")

    first = run_cli(local, bob, cwd=project)  # the teammate, after cloning
    assert first.returncode == 0, first.stderr
    assert guard.read_bytes() == ours
    (saved,) = (root / "msd-local-patches").iterdir()
    entry = json.loads((saved / "patch.json").read_text())["files"][0]
    assert entry["base"] is None and not (saved / "base").exists()
    assert "so --reapply cannot merge it automatically" in first.stdout, first.stdout
    again = run_cli(["--claude", "--local", "--reapply"], bob, cwd=project)
    assert again.returncode == 1 and "no pristine base was saved" in again.stdout, again.stdout
    assert guard.read_bytes() == ours  # no payload merged into msd's guard
    event = {"tool_name": "Read", "tool_input": {"file_path": str(project / ".env")}}
    event |= {"hook_event_name": "PreToolUse", "cwd": str(project)}
    launcher = root / "hooks/msd-secret-read-guard.py"
    ran = subprocess.run(
        [sys.executable, str(launcher)],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        cwd=project,
    )
    assert ran.returncode == 2 and not marker.exists()
