"""What a person at a terminal sees, on a real pseudo-terminal: colour only there and never
with NO_COLOR, a progress line on stderr for long runs (never under --json or in a pipe),
usage errors before any prompt."""

from __future__ import annotations

import fcntl
import os
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

from helpers import cli_env, run_cli, snapshot

ESC = "\x1b["


def on_terminal(
    args: list[str], home: Path, *, stdout_too: bool = True, columns: int = 0, **env: str
) -> tuple[int, str, str]:
    """Run the CLI with stdin and stderr (and stdout, unless ``stdout_too`` is false: then a
    pipe) on a pseudo-terminal (``columns`` wide, 0: unset); returns the exit code, what the
    terminal showed, and what went into the pipe."""
    master, slave = os.openpty()
    if columns:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    proc = subprocess.Popen(
        [sys.executable, "-m", "msd_install", *args],
        cwd=home,
        env=cli_env(home, **env),
        stdin=slave,
        stdout=slave if stdout_too else subprocess.PIPE,
        stderr=slave,
    )
    os.close(slave)
    shown = b""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            shown += chunk
        elif proc.poll() is not None:
            break
    piped = proc.stdout.read().decode() if proc.stdout else ""
    proc.wait(timeout=30)
    os.close(master)
    return proc.returncode, shown.decode(errors="replace"), piped


def test_colour_on_a_terminal_and_never_with_no_color(tmp_path: Path) -> None:
    home = tmp_path / "h"
    (home / ".claude/skills/msd-help").mkdir(parents=True)
    (home / ".claude/skills/msd-help/SKILL.md").write_text("mine\n")  # a conflict to show
    code, shown, _ = on_terminal(["--claude", "--global", "--yes"], home, NO_COLOR="")
    assert code == 1, shown
    assert f"{ESC}31mconflict{ESC}0m" in shown  # red, and the word is still there
    assert f"{ESC}1minstall claude (global) at ~/.claude: " in shown  # bold summary
    for no_color in ("1", "0", "no"):  # any value but empty (no-color.org)
        code, shown, _ = on_terminal(["--claude", "--global", "--yes"], home, NO_COLOR=no_color)
        assert code == 1 and ESC not in shown, shown
        assert "  conflict  ~/.claude/skills/msd-help/SKILL.md" in shown
    code, shown, _ = on_terminal(["--claude", "--global", "--yes"], home, TERM="dumb")
    assert code == 1 and ESC not in shown
    proc = run_cli(["--claude", "--global", "--yes"], home)  # a pipe: never colour
    assert proc.returncode == 1 and ESC not in proc.stdout + proc.stderr
    assert "  conflict  ~/.claude/skills/msd-help/SKILL.md" in proc.stdout


def test_errors_are_coloured_on_a_terminal_only(tmp_path: Path) -> None:
    code, shown, _ = on_terminal(["--claude", "--global", "--local"], tmp_path)
    assert code == 2
    assert f"msd-install: {ESC}31m{ESC}1merror: {ESC}0m--global and --local" in shown
    code, shown, _ = on_terminal(["--claude", "--global", "--local"], tmp_path, NO_COLOR="1")
    assert "msd-install: error: --global and --local cannot be used together" in shown
    assert ESC not in shown


def test_progress_line_on_a_terminal_for_a_long_run(tmp_path: Path) -> None:
    """The line appears after a delay (1 s; 0 here through the test hook, so that the test
    does not depend on the machine's speed), on stderr, and is erased before the summary."""
    home = tmp_path / "h"
    home.mkdir()
    fast = {"MSD_INSTALL_TEST_PROGRESS_AFTER": "0", "NO_COLOR": "1"}
    one = {**fast, "MSD_INSTALL_JOBS": "1"}  # one process: one runtime after the other
    code, shown, piped = on_terminal(
        ["--claude", "--codex", "--global", "--yes"], home, stdout_too=False, **one
    )
    assert code == 0, shown
    assert "\rmsd-install: installing Claude Code (1/2)" in shown
    assert "msd-install: installing OpenAI Codex CLI (2/2)" in shown
    assert " changes (" in shown  # the engine's changes are counted as they happen
    assert shown.endswith("\r")  # erased: the terminal's line is blank again
    assert piped.startswith("install claude (global) at ~/.claude: ")  # stdout untouched
    side = {**fast, "MSD_INSTALL_JOBS": "2"}  # side by side: the runs under way, and how many ended
    code, shown, piped = on_terminal(
        ["--claude", "--codex", "--global", "--yes", "--uninstall"], home, stdout_too=False, **side
    )
    assert code == 0, shown
    assert "msd-install: removing msd from Claude Code, OpenAI Codex CLI (0/2 done)" in shown
    assert "/2 done)" in shown.split("(0/2 done)")[-1]  # redrawn as runs end
    assert shown.endswith("\r") and piped.startswith("uninstall claude (global)")
    assert run_cli(["--claude", "--codex", "--global", "--yes"], home).returncode == 0
    code, shown, piped = on_terminal(
        ["--claude", "--global", "--yes", "--dry-run"], home, stdout_too=False, **fast
    )
    assert code == 0 and "msd-install: checking Claude Code (1/1)" in shown
    code, shown, piped = on_terminal(
        ["--claude", "--global", "--yes", "--dry-run"], home, stdout_too=False, columns=30, **fast
    )
    drawn = [part for part in shown.split("\r") if part.strip()]
    assert code == 0 and drawn and all(len(part) <= 29 for part in drawn)  # never wraps
    assert drawn[0] == "msd-install: checking Claude "

    # never under --json (stdout holds one document, stderr stays quiet), never in a pipe
    code, shown, piped = on_terminal(
        ["--claude", "--global", "--yes", "--uninstall", "--json"],
        home,
        stdout_too=False,
        **fast,
    )
    assert code == 0 and shown == "" and piped.startswith("{")
    proc = run_cli(["--claude", "--global", "--yes"], home, **fast)
    assert proc.returncode == 0 and proc.stderr == ""


def test_a_quick_run_shows_no_progress(tmp_path: Path) -> None:
    home = tmp_path / "h"
    home.mkdir()
    # a refused run ends long before the delay: nothing but the error on the terminal
    code, shown, _ = on_terminal(["--claude", "--global", "--bogus"], home, NO_COLOR="1")
    assert code == 2 and "msd-install: " not in shown.replace("msd-install [OPTIONS]", "")
    assert "No such option '--bogus'" in shown


def test_a_bad_flag_value_is_refused_before_any_prompt(tmp_path: Path) -> None:
    """No runtime flag on a terminal would ask which runtimes; an empty --config-dir is
    refused first."""
    home = tmp_path / "h"
    (home / ".claude").mkdir(parents=True)
    code, shown, _ = on_terminal(["--config-dir", ""], home, NO_COLOR="1")
    assert code == 2, shown
    assert "Which runtimes?" not in shown and "Runtimes" not in shown
    assert "--config-dir is empty" in shown
    assert snapshot(home) == {".claude/": snapshot(home)[".claude/"]}
