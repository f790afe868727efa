"""Root installing into another user's HOME (sudo, Ansible become, a Docker build as root):
nothing is left owned by root, files we rewrite keep owner, group and mode, after install
and after uninstall (docs/explanation/ownership.md). Needs root to ``chown``: skipped
otherwise."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from owners_kit import FORMATS, install, owners, uninstall

from helpers import build, run_cli, snapshot
from msd_install.errors import FileAccessError
from msd_install.installer import engine
from msd_install.installer.context import GLOBAL, Context
from msd_install.installer.fs import InjectedFaultError
from msd_install.payload import load
from msd_install.runtimes import ADAPTERS

pytestmark = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to chown"
)
ALICE = (4242, 4242)
BOB = (4343, 4343)


def alice_home(tmp_path: Path, spec: dict[str, str | bytes]) -> Path:
    home = tmp_path / "alice"
    build(home, spec)
    home.mkdir(exist_ok=True)
    for path in [home, *home.rglob("*")]:
        os.lchown(path, *ALICE)
    return home


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_root_install_and_uninstall_leave_nothing_owned_by_root(tmp_path: Path, fmt: str) -> None:
    flag, rel, mine = FORMATS[fmt]
    home = alice_home(tmp_path, {rel: mine})
    (home / rel).chmod(0o600)
    before = snapshot(home)

    install(flag, home)
    found = owners(home)
    assert len(found) > 20
    assert {p: o for p, o in found.items() if o != ALICE} == {}
    assert (home / rel).stat().st_mode & 0o777 == 0o600

    uninstall(flag, home)
    assert {p: o for p, o in owners(home).items() if o != ALICE} == {}
    assert snapshot(home) == before


def test_claude_json_and_settings_keep_their_owner_group_and_mode(tmp_path: Path) -> None:
    home = alice_home(
        tmp_path,
        {".claude/settings.json": '{"theme": "dark"}\n', ".claude.json": '{"numStartups": 3}\n'},
    )
    os.chown(home / ".claude.json", ALICE[0], 100)  # a group of its own
    (home / ".claude.json").chmod(0o640)
    before = snapshot(home)

    install("--claude", home)
    st = (home / ".claude.json").stat()
    assert (st.st_uid, st.st_gid, st.st_mode & 0o777) == (ALICE[0], 100, 0o640)
    assert b"msd" in (home / ".claude.json").read_bytes()
    assert {p for p, o in owners(home).items() if o != ALICE} == {".claude.json"}

    uninstall("--claude", home)
    assert snapshot(home) == before
    st = (home / ".claude.json").stat()
    assert (st.st_uid, st.st_gid) == (ALICE[0], 100)


def test_a_directory_of_another_owner_gives_its_owner_to_what_is_made_in_it(
    tmp_path: Path,
) -> None:
    """The owner of the directory an entry is made in, not the HOME's: a ~/.claude that
    bob owns (a shared machine) gets bob's files."""
    home = alice_home(tmp_path, {".claude/keep": "x"})
    os.chown(home / ".claude", *BOB)
    install("--claude", home)
    found = owners(home)
    inside = {p: o for p, o in found.items() if p.startswith(".claude/") and p != ".claude/keep"}
    assert inside and set(inside.values()) == {BOB}
    assert found[".claude.json"] == ALICE and found[".local"] == ALICE
    uninstall("--claude", home)
    assert set(owners(home).values()) == {ALICE, BOB}


@pytest.mark.parametrize("extra", [[], ["--dry-run"], ["--check"]])
def test_root_does_not_write_through_a_link_to_a_file_the_user_does_not_own(
    tmp_path: Path, extra: list[str]
) -> None:
    """alice's settings.json -> a file of root's: a root run must not edit it for her (and
    a dry run or --check says so as the real run does)."""
    home = alice_home(tmp_path, {".claude/keep": "x"})
    secret = tmp_path / "roots-settings.json"
    secret.write_bytes(b'{"theme": "root"}\n')
    (home / ".claude/settings.json").symlink_to(secret)
    os.lchown(home / ".claude/settings.json", *ALICE)
    before, outside = snapshot(home), secret.read_bytes()

    proc = run_cli(["--claude", "--global", "-y", *extra], home)
    assert proc.returncode == 4, proc.stderr
    line = proc.stderr.strip().splitlines()[-1]
    assert "settings.json" in line and "does not write through it" in line
    assert snapshot(home) == before and secret.read_bytes() == outside


def test_a_rollback_gives_back_owner_and_inode(tmp_path: Path) -> None:
    """A failure after the config edit puts back the bytes in the same inode (hard link),
    with the same owner, and removes what was made."""
    home = alice_home(tmp_path, {".claude/settings.json": '{"theme": "dark"}\n'})
    os.link(home / ".claude/settings.json", home / "linked.json")
    before = snapshot(home, stat=True)
    ctx = Context(
        home=home,
        cwd=home,
        scope=GLOBAL,
        interpreter=Path(sys.executable),
        state_dir=home / ".local/state/msd",
    )
    plan = ADAPTERS["claude"].plan(ctx, load())
    counted: list[int] = []
    engine.install(plan, ctx, fault=counted.append)
    uninstall("--claude", home)
    after_roundtrip = snapshot(home, stat=True)
    assert {k: v[0] for k, v in after_roundtrip.items() if isinstance(v, tuple)} == {
        k: v[0] for k, v in before.items() if isinstance(v, tuple)
    }

    def fault(n: int) -> None:
        if n == len(counted) - 1:
            raise InjectedFaultError(f"fault at write {n}")

    with pytest.raises(InjectedFaultError):
        engine.install(plan, ctx, fault=fault)
    now = snapshot(home, stat=True)
    assert {k: (v[0], v[1], v[3]) for k, v in now.items() if isinstance(v, tuple)} == {
        k: (v[0], v[1], v[3]) for k, v in before.items() if isinstance(v, tuple)
    }
    assert set(owners(home).values()) == {ALICE}


@contextlib.contextmanager
def acting_as(ids: tuple[int, int]) -> Iterator[None]:
    os.setegid(ids[1])
    os.seteuid(ids[0])
    try:
        yield
    finally:
        os.seteuid(0)
        os.setegid(0)


def test_a_user_cannot_rewrite_a_file_of_another_owner_and_is_told_before_any_change() -> None:
    """Not root: a rename would hand bob's settings.json (writable by alice through the
    directory) to alice. Refused with one line, nothing changed."""
    base = Path(tempfile.mkdtemp())
    try:
        base.chmod(0o755)
        home = alice_home(base, {".claude/settings.json": '{"theme": "dark"}\n'})
        os.chown(home / ".claude/settings.json", *BOB)
        (home / ".claude/settings.json").chmod(0o666)
        before = snapshot(home)
        ctx = Context(
            home=home,
            cwd=home,
            scope=GLOBAL,
            interpreter=Path(sys.executable),
            state_dir=home / ".local/state/msd",
        )
        plan = ADAPTERS["claude"].plan(ctx, load())
        with acting_as(ALICE), pytest.raises(FileAccessError) as err:
            engine.install(plan, ctx)
        line = err.value.one_line()
        assert "belongs to uid 4343" in line and "nothing was changed" in line
        assert "\n" not in line
        assert snapshot(home) == before
    finally:
        shutil.rmtree(base)


@pytest.mark.parametrize("extra", [[], ["--dry-run"], ["--check"]])
def test_root_does_not_write_through_a_hard_link_to_a_file_the_user_does_not_own(
    tmp_path: Path, extra: list[str]
) -> None:
    """A name in alice's home sharing the inode of a file of root's: rewriting it in place
    would edit root's file; renaming over it would cut the link. Refused, nothing changed."""
    home = alice_home(tmp_path, {".claude/keep": "x"})
    roots = tmp_path / "roots.json"
    roots.write_bytes(b'{"theme": "root"}\n')
    os.link(roots, home / ".claude/settings.json")
    before = snapshot(home, stat=True)

    proc = run_cli(["--claude", "--global", "-y", *extra], home)
    assert proc.returncode == 4, proc.stderr
    line = proc.stderr.strip().splitlines()[-1]
    assert "has other hard links and belongs to uid 0" in line
    assert snapshot(home, stat=True) == before
    assert roots.read_bytes() == b'{"theme": "root"}\n'


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_root_edits_a_users_symlinked_config_at_its_target_and_keeps_every_owner(
    tmp_path: Path, fmt: str
) -> None:
    flag, rel, mine = FORMATS[fmt]
    home = alice_home(tmp_path, {f"dotfiles/{Path(rel).name}": mine})
    target = home / "dotfiles" / Path(rel).name
    (home / rel).parent.mkdir(parents=True)
    (home / rel).symlink_to(target)
    for path in (home / rel, (home / rel).parent):
        os.lchown(path, *ALICE)
    before = snapshot(home)

    install(flag, home)
    assert os.readlink(home / rel) == str(target) and b"msd" in target.read_bytes()
    assert {p: o for p, o in owners(home).items() if o != ALICE} == {}
    uninstall(flag, home)
    assert snapshot(home) == before
    assert {p: o for p, o in owners(home).items() if o != ALICE} == {}


def test_a_lock_left_by_a_killed_root_run_belongs_to_the_user(tmp_path: Path) -> None:
    """SIGKILL while holding the lock leaves the file: it is the user's, not root's."""
    home = alice_home(tmp_path, {".claude/keep": "x"})
    code = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from msd_install.installer import lock\n"
        "with lock.hold(Path(sys.argv[1])):\n"
        "    os.kill(os.getpid(), 9)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(home / ".claude")], timeout=60)
    assert proc.returncode == -9
    st = (home / ".claude/.msd-install.lock").stat()
    assert (st.st_uid, st.st_gid) == ALICE
