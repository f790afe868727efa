"""Project-wide policies: lint and types clean, no stray stdout writes in library code."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from helpers import REPO

# Entry points allowed to write to stdout: the installer CLI renderer and nothing else in
# library code. The runtime side writes protocol output through explicit streams only.
STDOUT_OK = {"src/msd_install/cli.py"}


def test_no_print_in_library_code() -> None:
    offenders = []
    for path in sorted((REPO / "src").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if rel in STDOUT_OK or "/payload/data/hooks/" in rel:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            if re.search(r"\bprint\(", code) and "# stdout-ok" not in line:
                offenders.append(f"{rel}:{number}: {line.strip()}")
    assert offenders == []


def test_ruff_is_clean() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "src", "tests", "bench"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_strict_is_clean() -> None:
    proc = subprocess.run([sys.executable, "-m", "mypy"], cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_no_machine_specific_paths_in_the_repo() -> None:
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    bad = []
    for rel in tracked:
        path = REPO / rel
        if not path.is_file() or path.suffix in {".png", ".jpg"}:
            continue
        text = path.read_text(errors="replace")
        # this machine's paths: its home and this checkout (a simulated interpreter path such
        # as /Users/jane/.pyenv/versions/... in a platform test is fine)
        home = os.path.expanduser("~").rstrip("/")
        here = (f"{home}/" if home else "/root/", str(REPO))
        for needle in ("/root/", "/work/main", "/home/runner", *here):
            if needle in text and rel != "tests/test_code_policy.py":
                bad.append(f"{rel}: {needle}")
    assert bad == []


def test_every_end_to_end_test_file_is_marked_e2e() -> None:
    """The suite runs the real CLIs only in ``scripts/e2e``, after ``scripts/install-clis``: an
    unmarked file there would run in ``scripts/test`` too, before the CLIs are installed."""
    unmarked = [
        path.name
        for path in sorted((REPO / "tests" / "e2e").glob("test_*.py"))
        if "pytestmark = pytest.mark.e2e" not in path.read_text(encoding="utf-8")
    ]
    assert unmarked == []
