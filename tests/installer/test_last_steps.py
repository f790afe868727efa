"""The last steps of a run, after its journal and its root's lock are gone: what a signal or
a kill there leaves, and what the next run makes of it.

Uninstalling the last install removes the record of manifests (``~/.local/state/msd``) and
the folders made for it, and the root with the parents msd made for it; those go once the
lock whose file lives in them is let go. A Ctrl-C or SIGTERM there must not leave them
behind (the run is kept, and says so); a kill there leaves at most empty folders msd made,
which the next uninstall removes.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from helpers import cli_env, run_cli, snapshot, snapshot_but_registry
from msd_install import cli

REGISTRY_DIR = ".local/state/msd"


def forked(argv: list[str], home: Path, before: Callable[[], None]) -> tuple[int, str]:
    """The real CLI in a fork of this process, after ``before()`` (run in the child: a fault
    put where no change of the engine's counts, ``MSD_INSTALL_TEST_SIGNAL`` cannot reach);
    returns (exit status or -signal, stderr and stdout)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 3
        try:
            os.close(read)
            out = os.fdopen(write, "w")
            sys.stdout = sys.stderr = out
            os.environ.clear()
            os.environ.update(cli_env(home))
            os.chdir(home)
            sys.stdin = open(os.devnull)  # noqa: SIM115
            before()
            try:
                cli.main(argv)
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 0
            out.flush()
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read) as pipe:
        output = pipe.read()
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), output


def _signal_at_rmdir(folder: str, number: int) -> Callable[[], None]:
    """In the child: ``number`` to itself right before the first removal of a folder named
    ``folder`` by ``Path.rmdir`` (the record's folders go that way, once its lock is let go)."""

    def arm() -> None:
        real = Path.rmdir
        fired: list[bool] = []

        def rmdir(self: Path) -> None:
            if self.name == folder and not fired:
                fired.append(True)
                os.kill(os.getpid(), number)
            real(self)

        Path.rmdir = rmdir  # type: ignore[method-assign]

    return arm


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize("how", ["uninstall", "cleanup"])
def test_a_signal_once_the_records_lock_is_gone_leaves_no_state_folder(
    tmp_path: Path, how: str, number: int
) -> None:
    """``uninstall``: the last install's uninstall; ``cleanup``: the record a killed run left
    listing no install (its root removed by hand here), dropped by the next uninstall. A
    signal right before the record's folder is removed: the run is kept, and says so; no
    empty ``~/.local/state/msd`` stays."""
    home = tmp_path / "home"
    home.mkdir()
    empty = snapshot(home)
    assert run_cli(["--cursor", "--global", "--yes"], home).returncode == 0
    assert (home / REGISTRY_DIR / "manifests.json").is_file()
    if how == "cleanup":
        for path in sorted((home / ".cursor").rglob("*"), reverse=True):
            path.rmdir() if path.is_dir() and not path.is_symlink() else path.unlink()
        (home / ".cursor").rmdir()
    argv = ["--cursor", "--global", "--yes", "--uninstall"]
    code, out = forked(argv, home, _signal_at_rmdir("msd", number))
    assert snapshot(home) == empty
    assert code == 130, out
    assert (
        "msd-install: interrupted once the run had finished: it was kept; "
        "nothing else was started" in out.splitlines()
    ), out


def _count_changes(into: Path) -> Callable[[], None]:
    """In the child: the number of changes the run makes, written to ``into``."""

    def arm() -> None:
        cli._signal_hook = lambda: lambda n: into.write_text(str(n))  # type: ignore[attr-defined]

    return arm


def _kill_at(k: int) -> Callable[[], None]:
    """In the child: SIGKILL right before the run's k-th change."""

    def arm() -> None:
        def hook(n: int) -> None:
            if n == k:
                os.kill(os.getpid(), signal.SIGKILL)

        cli._signal_hook = lambda: hook  # type: ignore[attr-defined]

    return arm


@pytest.mark.parametrize(
    "then",
    [
        "uninstall again",
        "uninstall again beside another",
        "reinstall",
        "another runtime",
        "made again by you",
    ],
)
def test_a_root_left_empty_by_a_kill_at_its_removal_goes_with_a_later_uninstall(
    tmp_path: Path, then: str
) -> None:
    """CodeBuddy's root ``~/.codebuddy`` is made by msd; its uninstall removes it once the
    root's lock is let go. Killed right before that removal (its journal gone, nothing of
    msd's left in it), the root stays empty: the record says msd made it, and the next
    uninstall (of this runtime or another) removes it, whatever ran in between."""
    home = tmp_path / "home"
    home.mkdir()
    empty = snapshot(home)
    root = home / ".codebuddy"
    assert run_cli(["--codebuddy", "--global", "--yes"], home).returncode == 0
    if then in ("another runtime", "uninstall again beside another"):
        assert run_cli(["--cursor", "--global", "--yes"], home).returncode == 0
    uninstall = ["--codebuddy", "--global", "--yes", "--uninstall"]
    saved = snapshot_but_registry(home)
    code, out = forked(uninstall, home, _count_changes(tmp_path / "count"))
    assert code == 0, out
    total = int((tmp_path / "count").read_text())
    # back to the installed tree, then killed at each of the last changes until one leaves
    # the root there, empty: the kill right before its removal
    for k in range(total, 0, -1):
        run_cli(["--codebuddy", "--global", "--yes"], home)
        assert snapshot_but_registry(home) == saved  # the record may name the root now
        code, out = forked(uninstall, home, _kill_at(k))
        assert code == -signal.SIGKILL, out
        if root.is_dir():
            break
    assert root.is_dir() and not any(root.iterdir()), k
    if then == "made again by you":  # the record names the folder; this one is yours
        assert run_cli(["--cursor", "--global", "--yes"], home).returncode == 0
        (home / "new").mkdir()  # made while the old one is there: another folder (an
        root.rmdir()  # inode number freed by an rmdir may be given to the next mkdir)
        (home / "new").rename(root)
        proc = run_cli(["--claude", "--global", "--yes"], home)
        assert proc.returncode == 0, proc.stderr
        for name in ("claude", "cursor"):
            proc = run_cli([f"--{name}", "--global", "--yes", "--uninstall"], home)
            assert proc.returncode == 0, proc.stderr
        assert root.is_dir()  # empty, and not msd's: never removed by an unrelated run
        root.rmdir()
    elif then.startswith("uninstall again"):
        proc = run_cli(uninstall, home)
        assert proc.returncode == 0, proc.stderr
        assert not root.exists()  # at once, even while the record lists another install
        if then.endswith("beside another"):
            proc = run_cli(["--cursor", "--global", "--yes", "--uninstall"], home)
            assert proc.returncode == 0, proc.stderr
    elif then == "reinstall":
        assert run_cli(["--codebuddy", "--global", "--yes"], home).returncode == 0
        assert run_cli(uninstall, home).returncode == 0
    else:
        assert run_cli(["--claude", "--global", "--yes"], home).returncode == 0
        for name in ("cursor", "claude"):
            proc = run_cli([f"--{name}", "--global", "--yes", "--uninstall"], home)
            assert proc.returncode == 0, proc.stderr
    assert snapshot(home) == empty


def _another_run_at_rmdir(folder: str, argv: list[str], home: Path) -> Callable[[], None]:
    """In the child: a whole other msd-install command (``argv``) runs right before the first
    removal of a folder named ``folder`` by ``Path.rmdir``: two commands at once, the other
    one in between this one's last two steps."""

    def arm() -> None:
        real = Path.rmdir
        fired: list[bool] = []

        def rmdir(self: Path) -> None:
            if self.name == folder and not fired:
                fired.append(True)
                proc = run_cli(argv, home)
                assert proc.returncode == 0, proc.stderr
            real(self)

        Path.rmdir = rmdir  # type: ignore[method-assign]

    return arm


def test_an_install_that_records_while_the_last_uninstall_ends_leaves_no_state_folder(
    tmp_path: Path,
) -> None:
    """The last uninstall removes the record, lets go of its lock, then removes the record's
    folders; another command's install records in between: the folders are in use again, and
    that install's record must know they are msd's, so that its own uninstall removes them."""
    home = tmp_path / "home"
    home.mkdir()
    empty = snapshot(home)
    assert run_cli(["--cursor", "--global", "--yes"], home).returncode == 0
    other = ["--claude", "--global", "--yes"]
    argv = ["--cursor", "--global", "--yes", "--uninstall"]
    code, out = forked(argv, home, _another_run_at_rmdir("msd", other, home))
    assert code == 0, out
    assert (home / REGISTRY_DIR / "manifests.json").is_file()  # the other install's
    assert not (home / ".cursor").exists()
    proc = run_cli([*other, "--uninstall"], home)
    assert proc.returncode == 0, proc.stderr
    assert snapshot(home) == empty
