"""Paths a user can get wrong, refused with one line (issue 10, point 10): an empty or
``~``-prefixed ``--config-dir``, a config file that is not a file (never opened for reading:
no hang, under --dry-run too), a HOME that is not UTF-8."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import build, cli_env, run_cli, snapshot

FORMATS = {
    "json": ("--claude", ".claude/settings.json"),
    "toml": ("--codex", ".codex/config.toml"),
    "yaml": ("--hermes", ".hermes/config.yaml"),
}


def one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def run_bounded(
    args: list[str], home: Path, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """The real CLI with a deadline: a run blocked on a FIFO fails the test, never hangs it."""
    return subprocess.run(
        [sys.executable, "-m", "msd_install", *args],
        cwd=cwd or home,
        env=cli_env(home),
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )


def test_an_empty_config_dir_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    home, here = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    here.mkdir()
    for args in (["--config-dir", ""], ["--config-dir="], ["--config-dir", "  "]):
        proc = run_cli(["--claude", *args, "-y"], home, cwd=here)
        assert proc.returncode == 2
        assert one_line_error(proc) == (
            "msd-install: error: --config-dir is empty: name the directory to install into"
        )
    assert os.listdir(home) == [] and os.listdir(here) == []


@pytest.mark.parametrize("typed", ["~/foo", "~/foo/"])
def test_a_tilde_config_dir_expands_against_the_home(tmp_path: Path, typed: str) -> None:
    home, here = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    here.mkdir()
    proc = run_cli(["--claude", "--config-dir", typed, "-y"], home, cwd=here)
    assert proc.returncode == 0, proc.stderr
    assert (home / "foo/msd-file-manifest.json").is_file()
    assert os.listdir(here) == []  # no directory literally named ~
    proc = run_cli(["--claude", f"--config-dir={typed}", "-y", "--uninstall"], home, cwd=here)
    assert proc.returncode == 0, proc.stderr
    assert not (home / "foo").exists() and os.listdir(here) == []


def test_a_tilde_of_an_unknown_user_is_refused(tmp_path: Path) -> None:
    proc = run_cli(["--claude", "--config-dir", "~no-such-user-msd/x", "-y"], tmp_path)
    assert proc.returncode == 2
    assert "there is no user 'no-such-user-msd' to expand ~ for" in one_line_error(proc)
    assert os.listdir(tmp_path) == []


def make_special(path: Path, kind: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(path))
        sock.close()
    elif kind == "directory":
        (path / "inside").mkdir(parents=True)
    else:
        os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 3))


KINDS = {
    "fifo": "a FIFO (named pipe)",
    "socket": "a socket",
    "directory": "a directory",
    "device": "a character device",
}


@pytest.mark.parametrize("dry", [True, False], ids=["dry-run", "real"])
@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_a_config_file_that_is_not_a_file_is_refused_at_once(
    tmp_path: Path, fmt: str, kind: str, dry: bool
) -> None:
    if kind == "device" and (not hasattr(os, "geteuid") or os.geteuid() != 0):
        pytest.skip("mknod needs root")
    flag, rel = FORMATS[fmt]
    home = tmp_path / "home"
    make_special(home / rel, kind)
    before = snapshot(home)
    proc = run_bounded([flag, "--global", "-y", *(["--dry-run"] if dry else [])], home)
    assert proc.returncode == 4
    assert one_line_error(proc).startswith(
        f"msd-install: error: {home / rel}: is {KINDS[kind]}, not a regular file"
    )
    assert snapshot(home) == before


@pytest.mark.parametrize("dry", [True, False], ids=["dry-run", "real"])
@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_uninstall_refuses_a_fifo_put_in_place_of_a_config_file(
    tmp_path: Path, fmt: str, dry: bool
) -> None:
    flag, rel = FORMATS[fmt]
    home = tmp_path / "home"
    build(home, {rel: ""} if fmt != "json" else {rel: "{}\n"})
    assert run_bounded([flag, "--global", "-y"], home).returncode == 0
    (home / rel).unlink()
    os.mkfifo(home / rel)
    before = snapshot(home)
    proc = run_bounded(
        [flag, "--global", "-y", "--uninstall", *(["--dry-run"] if dry else [])], home
    )
    assert proc.returncode == 4
    assert f"{home / rel}: is a FIFO (named pipe), not a regular file" in one_line_error(proc)
    assert snapshot(home) == before


def undecodable_home(tmp_path: Path) -> Path:
    raw = os.fsencode(tmp_path) + b"/home-\xff\xfe"
    os.mkdir(raw)
    return Path(os.fsdecode(raw))


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX byte file names")
@pytest.mark.parametrize(
    "args", [["--claude", "--global", "-y"], ["--codex", "--global", "--dry-run"], ["doctor"]]
)
def test_a_home_that_is_not_utf8_is_refused_with_one_line(tmp_path: Path, args: list[str]) -> None:
    home = undecodable_home(tmp_path)
    proc = run_cli(args, home)
    assert proc.returncode == 2
    line = one_line_error(proc)
    assert line.startswith("msd-install: error: HOME is not valid UTF-8 (b'")
    assert "\\xff\\xfe" in line and "nothing was changed" in line
    assert os.listdir(home) == []


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX byte file names")
def test_a_config_dir_or_project_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    odd = undecodable_home(tmp_path)
    proc = run_cli(["--claude", "--config-dir", str(odd), "-y"], home)
    assert proc.returncode == 2
    assert one_line_error(proc).startswith("msd-install: error: --config-dir is not valid UTF-8")
    proc = run_cli(["--claude", "--local", "-y"], home, cwd=odd)
    assert proc.returncode == 2
    assert "the current directory is not valid UTF-8" in one_line_error(proc)
    assert os.listdir(odd) == [] and os.listdir(home) == []
