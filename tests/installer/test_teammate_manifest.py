"""A committed --local install, reinstalled by a teammate (another HOME, the same version):
the manifest holds exactly what their msd-install would write, so it is kept byte for byte
and recorded as theirs: no churn in the project's git status, on either side. A manifest that
differs in anything this run would not write itself stays foreign and is rewritten."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from helpers import run_cli
from msd_install.installer.configedit import ours_exactly, value_hash
from msd_install.installer.plan import ITEM, MEMBER, ConfigEntry

RUNTIMES = ["claude", "codex", "gemini", "opencode", "cursor"]
KEPT = "the manifest holds exactly what this msd-install writes here"


def _git(project: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.email=t@t", "-c", "user.name=t", *args],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_teammates_reinstall_leaves_the_committed_install_unchanged(
    tmp_path: Path, runtime: str
) -> None:
    alice, bob, project = tmp_path / "alice", tmp_path / "bob", tmp_path / "project"
    for d in (alice, bob, project):
        d.mkdir()
    _git(project, "init", "-q")
    args = [f"--{runtime}", "--local", "--yes"]
    assert run_cli(args, alice, cwd=project).returncode == 0
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "msd")
    first = run_cli(args, bob, cwd=project)
    assert first.returncode == 0, first.stderr
    assert KEPT in first.stdout
    assert _git(project, "status", "--porcelain") == ""
    again = run_cli(args, bob, cwd=project)  # now recorded as Bob's: not foreign any more
    assert "not written by your msd-install" not in again.stdout and KEPT not in again.stdout
    back = run_cli(args, alice, cwd=project)  # and still Alice's
    assert "not written by your msd-install" not in back.stdout
    assert _git(project, "status", "--porcelain") == ""
    gone = run_cli([*args, "--uninstall"], bob, cwd=project)
    assert gone.returncode == 0, gone.stderr
    assert _git(project, "status", "--porcelain", "--untracked-files=all").strip()  # removed
    assert not any(
        line[3:].endswith("msd-file-manifest.json") and not line.startswith(" D")
        for line in _git(project, "status", "--porcelain").splitlines()
    )


def test_a_manifest_that_differs_from_ours_is_rewritten_and_stays_restricted(
    tmp_path: Path,
) -> None:
    """One marker changed (what a hostile manifest would do to make uninstall take a user's
    entry): not believed, rewritten with this run's own record."""
    alice, bob, project = tmp_path / "alice", tmp_path / "bob", tmp_path / "project"
    for d in (alice, bob, project):
        d.mkdir()
    args = ["--claude", "--local", "--yes"]
    assert run_cli(args, alice, cwd=project).returncode == 0
    path = project / ".claude/msd-file-manifest.json"
    doc = json.loads(path.read_text())
    op = next(o for r in doc["config"] for o in r["ops"] if "marker" in o)
    op["marker"] = "echo theirs"
    path.write_text(json.dumps(doc, indent=2) + "\n")
    proc = run_cli(args, bob, cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert KEPT not in proc.stdout
    assert "echo theirs" not in path.read_text()


ENTRY = ConfigEntry(
    file=Path("/r/settings.json"),
    fmt="json",
    kind=ITEM,
    path=("hooks", "PreToolUse"),
    value={"hooks": [{"command": "python3 x.py"}]},
    label="hook x",
    marker="python3 x.py",
)
SERVER = ConfigEntry(
    file=Path("/r/settings.json"),
    fmt="json",
    kind=MEMBER,
    path=("mcpServers",),
    key="msd",
    value={"command": "python3"},
    label="mcp msd",
)


def _ops() -> list[dict[str, object]]:
    return [
        {"op": "member", "path": [], "key": "hooks", "sha256": value_hash({}),
         "label": "container", "interior": ""},
        {"op": "member", "path": ["hooks"], "key": "PreToolUse", "sha256": value_hash([]),
         "label": "container"},
        {"op": "item", "path": ["hooks", "PreToolUse"], "sha256": value_hash(ENTRY.value),
         "label": "hook x", "marker": "python3 x.py", "interior": "", "value": ENTRY.value},
        {"op": "member", "path": ["mcpServers"], "key": "msd", "sha256": value_hash(SERVER.value),
         "label": "mcp msd", "value": SERVER.value},
    ]  # fmt: skip


def test_ours_exactly_accepts_our_own_record() -> None:
    assert ours_exactly(_ops(), [ENTRY, SERVER])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "change",
    [
        lambda ops: ops[2].update(marker="rm -rf ~"),
        lambda ops: ops[2].update(value={"hooks": []}),
        lambda ops: ops[3].update(previous='"theirs"'),
        lambda ops: ops[3].update(ours="abc"),
        lambda ops: ops[3].update(op="replace"),
        lambda ops: ops[0].update(key="permissions"),
        lambda ops: ops[1].update(sha256=value_hash({"a": 1})),
        lambda ops: ops[0].update(marker="x"),
        lambda ops: ops.append(dict(ops[3])),
        lambda ops: ops.pop(3),
        lambda ops: ops[2].update(interior=7),
        lambda ops: ops[2].update(extra=1),
    ],
)
def test_ours_exactly_refuses_anything_else(change) -> None:  # type: ignore[no-untyped-def]
    ops = _ops()
    change(ops)
    assert not ours_exactly(ops, [ENTRY, SERVER])  # type: ignore[arg-type]


GUARD = ".claude/hooks/msd-secret-read-guard-code.py"


def _committed_edit(tmp_path: Path) -> tuple[Path, Path, bytes, bytes]:
    """Alice's committed --local install, msd's guard code edited in it: (bob's home, the
    project, msd's bytes, the committed bytes)."""
    alice, bob, project = tmp_path / "alice", tmp_path / "bob", tmp_path / "project"
    for d in (alice, bob, project):
        d.mkdir()
    _git(project, "init", "-q")
    assert run_cli(["--claude", "--local", "--yes"], alice, cwd=project).returncode == 0
    guard = project / GUARD
    ours = guard.read_bytes()
    edited = ours + b"\n# team: also allow .env.example\n"
    guard.write_bytes(edited)
    return bob, project, ours, edited


def test_a_changed_file_of_msds_under_a_committed_manifest_is_drift_and_replaced(
    tmp_path: Path,
) -> None:
    """A file of msd's that a project's manifest came with, changed: it could be a weakened
    guard, so a teammate's --check calls it drift and their reinstall puts msd's bytes back,
    saving the project's copy and saying where; the team keeps a customisation by reviewing
    it and merging it back with --reapply (their own manifest then vouches for it)."""
    bob, project, ours, edited = _committed_edit(tmp_path)
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "msd, customised")
    args = ["--claude", "--local", "--yes"]
    check = run_cli([*args, "--check"], bob, cwd=project)
    assert check.returncode == 1, check.stdout
    out = check.stdout.replace(str(project) + "/", "")
    assert f"  update    {GUARD}\n" in out and "check: drift" in out, out
    first = run_cli(args, bob, cwd=project)
    assert first.returncode == 0, first.stderr
    guard = project / GUARD
    assert guard.read_bytes() == ours  # msd's guard again
    (saved,) = (project / ".claude/msd-local-patches").iterdir()
    copy = saved / "user/hooks/msd-secret-read-guard-code.py"
    assert copy.read_bytes() == edited
    out = first.stdout.replace(str(project) + "/", "")
    assert (
        f"  backup    .claude/msd-local-patches/{saved.name}/user/hooks/msd-secret-read-guard-code"
        ".py  (the project's copy of hooks/msd-secret-read-guard-code.py: it differs from "
        "msd's, which replaces it: review this copy before msd-install --reapply merges it back)"
    ) in out, out
    assert (
        "note: 1 file(s) of msd's differed from what this msd-install writes (under a manifest "
        "that came with the project, not yours): replaced with msd's, the project's copies "
        f"saved in msd-local-patches/{saved.name}"
    ) in out, out
    assert "kept as it is" not in out and "kept      " not in out, out
    record = json.loads((project / ".claude/msd-file-manifest.json").read_text())
    assert "patched" not in record["files"]["hooks/msd-secret-read-guard-code.py"]
    assert run_cli([*args, "--check"], bob, cwd=project).returncode == 0
    # reviewed, the team's edit comes back the way every edit does after an upgrade
    back = run_cli(["--claude", "--local", "--reapply"], bob, cwd=project)
    assert back.returncode == 0, back.stdout
    assert guard.read_bytes() == edited
    assert run_cli([*args, "--check"], bob, cwd=project).returncode == 0


def test_a_committed_manifest_cannot_vouch_for_a_changed_file(tmp_path: Path) -> None:
    """``patched`` (a file --reapply merged) in a manifest that came with the project is not
    believed: the changed guard is drift and replaced, like any other change."""
    bob, project, ours, edited = _committed_edit(tmp_path)
    path = project / ".claude/msd-file-manifest.json"
    doc = json.loads(path.read_text())
    doc["files"]["hooks/msd-secret-read-guard-code.py"]["patched"] = hashlib.sha256(
        edited
    ).hexdigest()
    path.write_text(json.dumps(doc, indent=2) + "\n")
    args = ["--claude", "--local", "--yes"]
    check = run_cli([*args, "--check"], bob, cwd=project)
    assert check.returncode == 1 and GUARD in check.stdout.replace(str(project) + "/", "")
    doctor = run_cli(["doctor"], bob, cwd=project)
    assert "merged by msd-install --reapply" not in doctor.stdout, doctor.stdout
    assert run_cli(args, bob, cwd=project).returncode == 0
    assert (project / GUARD).read_bytes() == ours
