"""Every exit code documented in docs/reference/cli.md, produced by a real run; and the table
lists exactly the codes msd-install can exit with."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from helpers import REPO, build, run_cli
from msd_install import errors
from msd_install.installer import lock

GLOBAL = ["--claude", "--global", "--yes"]


def documented() -> dict[int, str]:
    page = (REPO / "docs/reference/cli.md").read_text()
    table = page.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    return {int(code): text for code, text in re.findall(r"^\| (\d+) \| (.*) \|$", table, re.M)}


def test_the_table_lists_every_code_and_no_other() -> None:
    def codes(cls: type[errors.MsdError]) -> set[int]:
        return {cls.exit_code}.union(*(codes(sub) for sub in cls.__subclasses__()))

    # 0 done, 1 conflict/drift/problem, 3 a bug, 130 interrupted; the rest from the errors
    assert set(documented()) == {0, 1, 3, 130} | codes(errors.MsdError)


def installed(home: Path) -> Path:
    assert run_cli(GLOBAL, home).returncode == 0
    return home / ".claude"


def conflict(home: Path) -> list[str]:
    build(home, {".claude/skills/msd-help/SKILL.md": "mine\n"})
    return GLOBAL


def drift(home: Path) -> list[str]:
    (installed(home) / "skills/msd-help/SKILL.md").unlink()
    return ["--claude", "--global", "--check"]


def problem(home: Path) -> list[str]:
    (installed(home) / "skills/msd-help/SKILL.md").unlink()
    return ["doctor"]


def bad_config(home: Path) -> list[str]:
    build(home, {".claude/settings.json": "{\n"})
    return GLOBAL


def bad_manifest(home: Path) -> list[str]:
    (installed(home) / "msd-file-manifest.json").write_text('{"format": 1, "files": []}')
    return [*GLOBAL, "--uninstall"]


CASES: dict[str, tuple[int, Callable[[Path], list[str]], str]] = {
    "install": (0, lambda home: GLOBAL, ""),
    "clean check": (0, lambda home: (installed(home), ["--claude", "-g", "--check"])[1], ""),
    "conflict": (1, conflict, ""),
    "drift": (1, drift, ""),
    "doctor problem": (1, problem, ""),
    "bad flag": (2, lambda home: [*GLOBAL, "--bogus"], "No such option"),
    "flag conflict": (2, lambda home: [*GLOBAL, "--local"], "cannot be used together"),
    "no terminal to ask": (2, lambda home: ["--claude"], "no terminal to ask on"),
    "unparsable config": (4, bad_config, "settings.json: invalid JSON"),
    "refused manifest": (4, bad_manifest, "install manifest refused"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_exit_code(tmp_path: Path, case: str) -> None:
    code, setup, needle = CASES[case]
    home = tmp_path / "h"
    home.mkdir()
    args = setup(home)
    proc = run_cli(args, home)
    assert proc.returncode == code, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert "Traceback" not in proc.stderr
    if code >= 2:  # one line naming the problem (a flag click refused: after the usage)
        assert needle in lines[-1] and (len(lines) == 1 or lines[0].startswith("Usage: "))
    doc = json.loads(run_cli([*args, "--json"], home).stdout)
    assert doc["exit_code"] == code


def test_interrupted_is_130_and_rolled_back(tmp_path: Path) -> None:
    home = tmp_path / "h"
    home.mkdir()
    for sig in ("INT", "TERM"):
        proc = run_cli(GLOBAL, home, MSD_INSTALL_TEST_SIGNAL=f"5:{sig}")
        assert proc.returncode == 130, proc.stderr
        assert proc.stderr.strip().splitlines()[-1] == (
            "msd-install: interrupted; every change of this run was rolled back"
        )
        assert list(home.iterdir()) == []


def test_a_held_lock_is_5_after_waiting(tmp_path: Path) -> None:
    """Another run holds the root's lock: this one waits (30 s), then gives up with 5."""
    home = tmp_path / "h"
    home.mkdir()
    root = installed(home)
    with lock.hold(root):
        proc = run_cli([*GLOBAL, "--json"], home)
    assert proc.returncode == 5, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["error"]["kind"] == "LockTimeoutError" and doc["error"]["path"] == str(root)
    assert "another msd-install run is working on this directory" in proc.stderr
