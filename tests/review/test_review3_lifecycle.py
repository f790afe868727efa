"""Review 3 of the lifecycle fixes (issue 10): what a cloned project can make --reapply merge,
two saved sets for one file, conflict markers in a Markdown file's front matter."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import run_cli
from msd_install.installer import pristine

GUARD = "hooks/msd-secret-read-guard-code.py"
CLAUDE_REAPPLY = ["--claude", "--global", "--yes", "--reapply"]


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


# --- two saved sets for one file the runtime runs (its merges set aside) -------------------

HOOK = "hooks/msd-x-code.py"
LINES = [f"STEP_{i} = {i}\n".encode() for i in range(10)]


def _with(lines: list[bytes], **changes: bytes) -> bytes:
    out = list(lines)
    for at, line in changes.items():
        out[int(at[1:])] = line
    return b"".join(out)


V1 = _with(LINES)
YOURS1 = _with(LINES, l2=b"MY_EDIT_ONE = 1\n")
V2 = _with(LINES, l2=b"STEP_2 = 'two'\n")
YOURS2 = _with(LINES, l2=b"STEP_2 = 'two'\n", l7=b"MY_EDIT_TWO = 2\n")
V3 = _with(LINES, l2=b"STEP_2 = 'two'\n", l7=b"STEP_7 = 'seven'\n")


def _install(home: Path, content: bytes) -> None:
    from msd_install.installer import engine
    from msd_install.installer.context import Context
    from msd_install.installer.plan import FileOp, Plan

    root = home / ".claude"
    plan = Plan("claude", "global", root, (FileOp(root / HOOK, content, 0o644),))
    engine.install(plan, Context(home=home, cwd=home, interpreter=Path(sys.executable)))


def _take_yours(copy: Path) -> bytes:
    """Settle every conflict of a set-aside merge by keeping your side."""
    out, side = [], None
    for line in copy.read_bytes().splitlines(keepends=True):
        if line.startswith(b"<<<<<<< yours"):
            side = "yours"
        elif line.startswith(b"=======") and side == "yours":
            side = "theirs"
        elif line.startswith(b">>>>>>> ") and side == "theirs":
            side = None
        elif side != "theirs":
            out.append(line)
    copy.write_bytes(b"".join(out))
    return b"".join(out)


def _edits_on_disk(home: Path) -> set[bytes]:
    found = set()
    for path in (home / ".claude").rglob("*"):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            found |= {e for e in (b"MY_EDIT_ONE", b"MY_EDIT_TWO") if e in data}
    return found


@pytest.mark.parametrize("done", [True, False], ids=["done-each-time", "done-at-the-end"])
def test_two_saved_sets_for_one_hook_keep_both_edits(tmp_path: Path, done: bool) -> None:
    """Two upgrades, the hook edited before each, no --reapply in between: the older set's
    merge is set aside; the newer one waits for it (never merged against the live file, nor
    installed over it), then merges into what the older one made. Both edits end up in the
    hook, and no edit is ever only in a set --done removes."""
    root = tmp_path / ".claude"
    hook = root / HOOK
    _install(tmp_path, V1)
    hook.write_bytes(YOURS1)
    _install(tmp_path, V2)
    hook.write_bytes(YOURS2)
    _install(tmp_path, V3)
    older, newer = sorted((root / "msd-local-patches").iterdir())
    extra = ["--done"] if done else []

    first = run_cli([*CLAUDE_REAPPLY, *extra], tmp_path)
    assert first.returncode == 1, first.stdout
    assert hook.read_bytes() == V3  # the runtime's file keeps no markers
    assert (older / "conflicts" / HOOK).exists() and not (newer / "conflicts").exists()
    waiting = f"waiting: the merge of an earlier set's edits is in msd-local-patches/{older.name}"
    assert waiting in first.stdout, first.stdout
    assert older.exists() and newer.exists()
    settled_one = _take_yours(older / "conflicts" / HOOK)

    second = run_cli([*CLAUDE_REAPPLY, *extra], tmp_path)
    assert second.returncode == 1, second.stdout
    assert hook.read_bytes() == settled_one  # the older merge, installed
    assert older.exists() is not done and newer.exists()
    # the newer set's merge is made against the older one's: your first edit is in it
    both = _take_yours(newer / "conflicts" / HOOK)
    assert b"MY_EDIT_ONE" in both and b"MY_EDIT_TWO" in both
    assert _edits_on_disk(tmp_path) == {b"MY_EDIT_ONE", b"MY_EDIT_TWO"}

    third = run_cli([*CLAUDE_REAPPLY, *extra], tmp_path)
    assert third.returncode == 0, third.stdout
    assert hook.read_bytes() == both
    if not done:  # both sets still there: each is in place, so --done removes both
        last = run_cli([*CLAUDE_REAPPLY, "--done"], tmp_path)
        assert last.returncode == 0 and last.stdout.count("remove ") == 2, last.stdout
    assert hook.read_bytes() == both and not (root / "msd-local-patches").exists()


# --- conflict markers and the front matter a runtime parses ---------------------------------

AGENT = "agents/msd-x.md"
FRONT = b"---\nname: msd-x\ndescription: Plans a phase.\ntools: Read\n---\n"
BODY = b"\n# Planner\n\nRead the roadmap.\nWrite the plan.\n"


def _agent(home: Path, content: bytes) -> None:
    from msd_install.installer import engine
    from msd_install.installer.context import Context
    from msd_install.installer.plan import FileOp, Plan

    root = home / ".claude"
    plan = Plan("claude", "global", root, (FileOp(root / AGENT, content, 0o644),))
    engine.install(plan, Context(home=home, cwd=home, interpreter=Path(sys.executable)))


def _front_matter(data: bytes) -> bytes:
    lines = data.splitlines(keepends=True)
    assert lines[0] == b"---\n", data
    return b"".join(lines[: lines.index(b"---\n", 1) + 1])


def test_a_conflict_in_an_agents_front_matter_is_set_aside(tmp_path: Path) -> None:
    """You and the new version both reworded the description: markers there would break the
    YAML the runtime reads (name, tools), so the new version stays live and the merge goes
    to the set's conflicts/, as for a hook."""
    root = tmp_path / ".claude"
    _agent(tmp_path, FRONT + BODY)
    mine = FRONT.replace(b"Plans a phase.", b"Plans a phase, our way.") + BODY
    (root / AGENT).write_bytes(mine)
    new = FRONT.replace(b"Plans a phase.", b"Plans a phase in waves.") + BODY
    _agent(tmp_path, new)
    (saved,) = (root / "msd-local-patches").iterdir()
    proc = run_cli(CLAUDE_REAPPLY, tmp_path)
    assert proc.returncode == 1, proc.stdout
    assert (root / AGENT).read_bytes() == new  # its front matter still parses
    merged = (saved / "conflicts" / AGENT).read_bytes()
    assert b"<<<<<<< yours\ndescription: Plans a phase, our way.\n" in merged
    assert f"the merge is in msd-local-patches/{saved.name}/conflicts/{AGENT}" in proc.stdout


def test_a_conflict_in_an_agents_body_stays_live(tmp_path: Path) -> None:
    root = tmp_path / ".claude"
    _agent(tmp_path, FRONT + BODY)
    (root / AGENT).write_bytes(FRONT + BODY.replace(b"the plan.", b"the plan, cite ADR-7."))
    _agent(tmp_path, FRONT + BODY.replace(b"the plan.", b"the plan in waves."))
    proc = run_cli(CLAUDE_REAPPLY, tmp_path)
    assert proc.returncode == 1, proc.stdout
    live = (root / AGENT).read_bytes()
    assert _front_matter(live) == FRONT and b"<<<<<<< yours\nWrite the plan, cite" in live


@pytest.mark.parametrize(
    ("merged", "live"),
    [
        (b"---\nname: x\n<<<<<<< yours\nd: a\n=======\nd: b\n>>>>>>> msd\n---\nbody\n", False),
        (b"---\nname: x\n---\n<<<<<<< yours\na\n=======\nb\n>>>>>>> msd\n", True),
        (b"<<<<<<< yours\n---\nname: x\n---\n=======\n# Title\n>>>>>>> msd\nbody\n", False),
        (b"<<<<<<< yours\n# Mine\n=======\n# Title\n>>>>>>> msd\nbody\n", True),
        (b"# Title\n\n---\n<<<<<<< yours\na\n=======\nb\n>>>>>>> msd\n---\n", True),
    ],
    ids=["in-front-matter", "in-body", "over-its-opening", "no-front-matter", "a-rule-in-body"],
)
def test_markers_go_live_only_outside_the_front_matter(merged: bytes, live: bool) -> None:
    from msd_install.installer.conflicted import markers_live

    assert markers_live("skills/msd-x/SKILL.md", 0o644, merged) is live
