"""Races against a run acting on a foreign manifest: a directory of the root swapped for a
symlink to outside at any moment, the rollback that follows included, never moves a change
out of the root. Also the user's state record when something other than a file is there.

The swap happens inside the run (the transaction's fault hook runs right before the k-th
change), so each moment is hit exactly; the threaded stress below does it the way a second
process would. Outside files have content of their own, so a write through the link shows.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import threading
import time
from pathlib import Path

import pytest

from helpers import build, run_cli, snapshot, uninstall_claude
from msd_install.errors import FileAccessError, MsdError
from msd_install.installer import engine
from msd_install.installer import uninstall as uninstall_module
from msd_install.installer.context import GLOBAL, Context
from msd_install.installer.dirfd import DIR_FD
from msd_install.payload import load
from msd_install.runtimes import ADAPTERS

# without dir_fd support (Windows) a change is made by path after the lstat check: these races
# are closed by descriptors only
descriptors = pytest.mark.skipif(not DIR_FD, reason="no dir_fd on this platform")


def ctx_for(home: Path, *, force: bool = False) -> Context:
    return Context(
        home=home,
        cwd=home,
        env={},
        scope=GLOBAL,
        interpreter=Path(sys.executable),
        state_dir=home / ".state",
        force=force,
    )


def foreign_install(tmp_path: Path) -> tuple[Path, Path, Context]:
    """A global install whose manifest was edited (foreign), and an outside directory holding
    files with the names of msd's skills but contents of their own."""
    home, outside = tmp_path / "home", tmp_path / "outside"
    home.mkdir(parents=True)
    ctx = ctx_for(home)
    engine.install(ADAPTERS["claude"].plan(ctx, load()), ctx)
    root = home / ".claude"
    manifest = root / "msd-file-manifest.json"
    doc = json.loads(manifest.read_text())
    doc["installer_version"] = "0.0.1"
    manifest.write_text(json.dumps(doc))
    shutil.copytree(root / "skills", outside / "skills")
    for path in (outside / "skills").rglob("*"):
        if path.is_file():
            path.write_text("the victim's own file\n")
    return root, outside, ctx


def swap_after(root: Path, outside: Path, changed: int):
    """Swap skills/ for a link out once ``changed`` of its files have been changed by the run
    (checked right before each change: so the next one, and the rollback, meet the link)."""
    originals = {p: p.read_bytes() for p in (root / "skills").rglob("SKILL.md")}
    done = False

    def fault(n: int) -> None:
        nonlocal done
        if done:
            return
        now = sum(1 for p, b in originals.items() if not p.exists() or p.read_bytes() != b)
        if now >= changed:
            done = True
            (root / "skills").rename(root / "skills.moved")
            (root / "skills").symlink_to(outside / "skills")

    return fault


@descriptors
@pytest.mark.parametrize("changed", [1, 5, 15])
def test_a_swap_mid_uninstall_never_reaches_outside_even_in_the_rollback(
    tmp_path: Path, changed: int
) -> None:
    root, outside, ctx = foreign_install(tmp_path)
    before_outside = snapshot(outside)
    with pytest.raises(FileAccessError) as caught:
        uninstall_claude(ctx, fault=swap_after(root, outside, changed))
    assert "a symlink leading out of it" in caught.value.message
    assert snapshot(outside) == before_outside
    # everything the run removed before the swap is back where it was (now skills.moved)
    moved = snapshot(root / "skills.moved")
    assert moved and all(not v[0].startswith(b"the victim") for v in moved.values() if len(v) == 2)


@descriptors
@pytest.mark.parametrize("changed", [1, 5, 15])
def test_a_swap_mid_forced_install_never_reaches_outside_even_in_the_rollback(
    tmp_path: Path, changed: int
) -> None:
    root, outside, _ = foreign_install(tmp_path)
    for path in (root / "skills").rglob("SKILL.md"):
        path.write_text("changed by the user\n")  # so the install rewrites each of them
    before_outside = snapshot(outside)
    ctx = ctx_for(root.parent, force=True)
    fault = swap_after(root, outside, changed)
    with pytest.raises(FileAccessError):
        engine.install(ADAPTERS["claude"].plan(ctx, load()), ctx, fault=fault)
    assert snapshot(outside) == before_outside
    moved = root / "skills.moved"
    assert {p.read_text() for p in moved.rglob("SKILL.md")} == {"changed by the user\n"}


@descriptors
def test_a_second_process_swapping_a_directory_never_gets_a_change_out(tmp_path: Path) -> None:
    """The same as a real attacker would try it: one swap at a random moment of the run."""
    import random

    rng = random.Random(7)
    escapes = 0
    for attempt in range(12):
        base = tmp_path / f"t{attempt}"
        root, outside, ctx = foreign_install(base)
        before = snapshot(outside)
        delay = rng.uniform(0, 0.6)
        lock = root / ".msd-install.lock"

        def attacker(
            root: Path = root, outside: Path = outside, lock: Path = lock, delay: float = delay
        ) -> None:
            deadline = time.monotonic() + 10
            while not lock.exists() and time.monotonic() < deadline:
                time.sleep(0.0005)
            time.sleep(delay)
            try:
                (root / "skills").rename(root / "skills.moved")
                (root / "skills").symlink_to(outside / "skills")
            except OSError:
                pass

        thread = threading.Thread(target=attacker)
        thread.start()
        with contextlib.suppress(MsdError):
            uninstall_claude(ctx)
        thread.join()
        escapes += snapshot(outside) != before
    assert escapes == 0


@pytest.mark.parametrize("kind", ["fifo", "symlink"])
def test_a_state_record_that_is_not_a_file_is_never_read_or_written_through(
    tmp_path: Path, kind: str
) -> None:
    """Before: a FIFO there hung every run forever; a symlink had the record written over
    whatever it pointed at."""
    home = tmp_path / "home"
    build(home, {"victim.txt": "precious\n"})
    record = home / ".local/state/msd/manifests.json"
    record.parent.mkdir(parents=True)
    if kind == "fifo":
        os.mkfifo(record)
    else:
        record.symlink_to(home / "victim.txt")
    proc = run_cli(["--claude", "--global", "--yes"], home)
    assert proc.returncode == 0, proc.stderr
    assert f"could not update {record} (is not a plain file)" in proc.stdout
    assert (home / "victim.txt").read_text() == "precious\n"
    proc = run_cli(["--claude", "--global", "--yes", "--uninstall"], home)
    assert proc.returncode == 0, proc.stderr
    assert (home / "victim.txt").read_text() == "precious\n"
    assert os.path.lexists(record)


@descriptors
def test_a_backup_dir_swapped_after_the_check_never_brings_outside_bytes_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Uninstall under a foreign manifest puts back what --force replaced, from msd-backups/.
    Before: with msd-backups/ swapped for a link right after the manifest was checked (and
    back before anything ran), the 'backup' read was an outside file's, and its bytes were
    written into the root."""
    from msd_install.installer import manifest as manifest_module

    home, outside = tmp_path / "home", tmp_path / "outside"
    build(home, {".claude/skills/msd-help/SKILL.md": "my own help\n"})
    build(outside, {"msd-backups/skills/msd-help/SKILL.md": "outside-bytes-4f2a\n"})
    ctx = ctx_for(home, force=True)
    engine.install(ADAPTERS["claude"].plan(ctx, load()), ctx)
    root = home / ".claude"
    assert (root / "msd-backups/skills/msd-help/SKILL.md").read_text() == "my own help\n"
    path = root / "msd-file-manifest.json"
    doc = json.loads(path.read_text())
    doc["installer_version"] = "0.0.1"  # foreign
    path.write_text(json.dumps(doc))
    real_load = manifest_module.load

    def load_then_swap(*args: object, **kwargs: object) -> object:
        found = real_load(*args, **kwargs)  # type: ignore[arg-type]
        (root / "msd-backups").rename(root / "backups.moved")
        (root / "msd-backups").symlink_to(outside / "msd-backups")
        return found

    real_resolve = uninstall_module.resolve_uninstall  # the engine imports it when it runs

    def resolve_then_swap_back(*args: object, **kwargs: object) -> object:
        try:  # the attacker undoes the swap before anything is executed
            return real_resolve(*args, **kwargs)  # type: ignore[arg-type]
        finally:
            (root / "msd-backups").unlink()
            (root / "backups.moved").rename(root / "msd-backups")

    monkeypatch.setattr(manifest_module, "load", load_then_swap)
    monkeypatch.setattr(uninstall_module, "resolve_uninstall", resolve_then_swap_back)
    before_outside = snapshot(outside)
    with pytest.raises(FileAccessError) as caught:
        uninstall_claude(ctx)
    assert "a symlink leading out of" in caught.value.message
    assert snapshot(outside) == before_outside
    leaked = [
        k
        for k, v in snapshot(home).items()
        if isinstance(v[0], bytes) and b"outside-bytes-4f2a" in v[0]
    ]
    assert leaked == []


def test_a_file_of_ours_hard_linked_outside_is_replaced_never_written_through(
    tmp_path: Path,
) -> None:
    """Every write is a new file renamed into place, so an outside name sharing the inode of
    one of msd's files keeps its bytes through an upgrade, a --force install, a rollback and
    an uninstall (which removes only the name inside the root)."""
    home, outside = tmp_path / "home", tmp_path / "outside"
    outside.mkdir()
    ctx = ctx_for(home)
    home.mkdir()
    engine.install(ADAPTERS["claude"].plan(ctx, load()), ctx)
    ours = home / ".claude/skills/msd-help/SKILL.md"
    ours.write_text("edited by the user\n")  # msd will keep this aside and put its own back
    os.link(ours, outside / "shared.md")

    def fail_once_rewritten(n: int) -> None:
        if ours.read_text() != "edited by the user\n":  # rewritten: now roll it all back
            raise RuntimeError("injected fault")

    with pytest.raises(RuntimeError, match="injected fault"):
        engine.install(ADAPTERS["claude"].plan(ctx, load()), ctx, fault=fail_once_rewritten)
    assert ours.read_text() == "edited by the user\n"  # the rollback put the user's back
    assert (outside / "shared.md").read_text() == "edited by the user\n"
    engine.install(ADAPTERS["claude"].plan(ctx, load()), ctx)
    assert ours.read_text().startswith("---\nname: msd-help")
    assert (outside / "shared.md").read_text() == "edited by the user\n"
    uninstall_claude(ctx)
    assert (outside / "shared.md").read_text() == "edited by the user\n"
    assert os.stat(outside / "shared.md").st_nlink == 1
