"""WSL with a Windows Python is refused; CI and Docker (no terminal, or ``CI`` set) never get
a prompt, only one line naming the missing flags. Nothing is written in either case."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

import click
import pytest

import msd_install
from helpers import cli_env, run_cli, snapshot
from msd_install.errors import UsageError
from msd_install.installer.interpreter import executable_head, refuse_foreign_python

WSL_KERNEL = "5.15.167.4-microsoft-standard-WSL2\n"


PE, ELF = b"MZ\x90\x00", b"\x7fELF"


@pytest.mark.parametrize(
    ("platform", "env", "executable", "cwd", "osrelease", "head"),
    [
        ("linux", {}, "/mnt/c/Python312/python.exe", "/home/j", WSL_KERNEL, PE),
        ("linux", {"WSL_DISTRO_NAME": "Ubuntu"}, "/mnt/c/Python312/python3", "/home/j", "", PE),
        ("linux", {"WSL_DISTRO_NAME": "Ubuntu"}, "/opt/py/python.exe", "/home/j", "", ELF),
        # the Windows process itself, started from a WSL shell: its cwd is the WSL share
        ("win32", {}, "C:\\Python312\\python.exe", "\\\\wsl.localhost\\Ubuntu\\home\\j", "", PE),
        ("win32", {}, "C:\\Python312\\python.exe", "//wsl$/Ubuntu/home/j", "", PE),
    ],
)
def test_a_windows_python_inside_wsl_is_refused(
    platform: str, env: dict[str, str], executable: str, cwd: str, osrelease: str, head: bytes
) -> None:
    with pytest.raises(UsageError) as err:
        refuse_foreign_python(
            platform=platform, env=env, executable=executable, cwd=cwd, osrelease=osrelease,
            head=head,
        )  # fmt: skip
    assert err.value.one_line() == (
        f"msd-install is running inside WSL under a Windows Python ({executable}), which "
        "would register Windows paths for Linux runtimes (install a Linux python3 in WSL "
        "(sudo apt install python3 pipx) and run msd-install with it; for Windows runtimes "
        "run it from Windows)"
    )


@pytest.mark.parametrize(
    ("platform", "env", "executable", "cwd", "osrelease", "head"),
    [
        ("linux", {"WSL_DISTRO_NAME": "Ubuntu"}, "/usr/bin/python3", "/mnt/c/src", WSL_KERNEL, ELF),
        # a Linux venv kept on the Windows drive is a Linux program
        ("linux", {}, "/mnt/c/src/app/.venv/bin/python3", "/mnt/c/src/app", WSL_KERNEL, ELF),
        ("linux", {}, "/opt/odd/python.exe", "/home/j", "6.8.0-45-generic\n", ELF),
        ("win32", {}, "C:\\Python312\\python.exe", "C:\\Users\\j", "", PE),
        ("darwin", {}, "/usr/local/bin/python3.12", "/Users/j", "", b"\xcf\xfa\xed\xfe"),
    ],
)
def test_native_pythons_pass(
    platform: str, env: dict[str, str], executable: str, cwd: str, osrelease: str, head: bytes
) -> None:
    refuse_foreign_python(
        platform=platform, env=env, executable=executable, cwd=cwd, osrelease=osrelease,
        head=head,
    )  # fmt: skip


def test_this_machines_python_is_read_as_a_native_program() -> None:
    assert executable_head(sys.executable) in (ELF, b"\xcf\xfa\xed\xfe", b"\xca\xfe\xba\xbe")
    assert executable_head("/no/such/python") == b""


def test_cli_under_a_windows_python_in_wsl_says_so_and_writes_nothing(tmp_path: Path) -> None:
    """The real CLI, started as ``python.exe`` with WSL's variable set."""
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    fake = tmp_path / "c" / "python.exe"
    fake.parent.mkdir()
    fake.symlink_to(os.path.realpath(sys._base_executable))  # type: ignore[attr-defined]
    paths = {str(Path(m.__file__).parent.parent) for m in (msd_install, click)}
    env = cli_env(home, WSL_DISTRO_NAME="Ubuntu", PYTHONPATH=os.pathsep.join(sorted(paths)))
    before = snapshot(tmp_path)
    proc = subprocess.run(
        [str(fake), "-m", "msd_install", "--claude", "--global", "--yes"],
        cwd=home, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.splitlines() == [
        f"msd-install: error: msd-install is running inside WSL under a Windows Python ({fake}),"
        " which would register Windows paths for Linux runtimes (install a Linux python3 in "
        "WSL (sudo apt install python3 pipx) and run msd-install with it; for Windows runtimes "
        "run it from Windows)"
    ]
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--global"], "no runtime given and no terminal to ask on; pass --claude (or --all)"),
        (["--claude"], "no scope given and no terminal to ask on; pass --global or --local"),
        ([], "no runtime given and no terminal to ask on; pass --claude (or --all)"),
    ],
)
def test_ci_without_a_terminal_names_the_missing_flags(
    tmp_path: Path, args: list[str], line: str
) -> None:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    before = snapshot(home)
    proc = run_cli(args, home, CI="true", TERM="dumb")  # stdin and stdout are pipes
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == [f"msd-install: error: {line}"]
    assert snapshot(home) == before


def _on_a_terminal(args: list[str], home: Path, **env: str) -> tuple[int, str]:
    """The CLI on a pseudo-terminal (as ``docker run -t`` or a CI runner with a pty gives
    it), answering nothing: it is stopped as soon as it shows a prompt."""
    master, slave = os.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "msd_install", *args],
        cwd=home, env=cli_env(home, **env), stdin=slave, stdout=slave, stderr=slave,
    )  # fmt: skip
    os.close(slave)
    out = b""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and b"]: " not in out:  # click's "[default]: "
        if select.select([master], [], [], 0.2)[0]:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the terminal closed: the CLI has exited
                break
            if not chunk:
                break
            out += chunk
        elif proc.poll() is not None:
            break
    if proc.poll() is None:
        proc.kill()
    code = proc.wait(timeout=10)
    os.close(master)
    return code, out.decode(errors="replace")


def test_ci_on_a_terminal_never_prompts(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    before = snapshot(home)
    code, out = _on_a_terminal(["--claude"], home, CI="1")
    assert code == 2, out
    assert "Install globally" not in out
    assert "no scope given and CI is set; pass --global or --local" in out
    assert snapshot(home) == before


def test_ci_false_on_a_terminal_still_asks(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    code, out = _on_a_terminal(["--claude"], home, CI="false")
    assert "Install globally (g, for every project) or locally (l, this project)?" in out
    assert code == -9  # stopped while it waited for the answer
