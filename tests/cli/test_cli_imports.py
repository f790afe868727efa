"""What ``msd-install --help`` (and a usage error) imports: click and the runtime names, never
the engine, the adapters, the payload or a config library (docs/explanation/performance.md).

Checked on module names from ``python -X importtime``, not on timings: a loaded machine
cannot make it fail, and a new eager import anywhere in the chain makes it fail.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tests.helpers import cli_env

# what --help needs from us: the entry point, the click command, the error classes and names
ALLOWED = {"msd_install", "msd_install.entry", "msd_install.cli", "msd_install.errors"}
ALLOWED |= {"msd_install.runtimes"}
# never on the help path: each costs more than the whole help
HEAVY = ("jsonschema", "ruamel", "tomlkit", "platformdirs", "json", "pathlib")


def imported(args: list[str], home: Path) -> tuple[set[str], subprocess.CompletedProcess[str]]:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "msd_install", *args],
        cwd=home,
        env=cli_env(home),
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    names = set()
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            if name != "package":  # the header line
                names.add(name)
    return names, proc


@pytest.mark.parametrize(
    ("args", "code"),
    [(["--help"], 0), (["-h"], 0), (["doctor", "--help"], 0), (["--no-such-flag"], 2)],
)
def test_help_and_usage_errors_import_only_click_and_the_names(
    tmp_path: Path, args: list[str], code: int
) -> None:
    names, proc = imported(args, tmp_path)
    assert proc.returncode == code, proc.stderr[-2000:]
    assert "click" in names  # the parse really went through the CLI
    ours = {n for n in names if n == "msd_install" or n.startswith("msd_install.")}
    assert ours <= ALLOWED, sorted(ours - ALLOWED)
    assert "msd_install.cli" in ours
    heavy = sorted(n for n in names if n.split(".")[0] in HEAVY)
    assert heavy == [], heavy


def test_help_still_lists_every_runtime_and_verb(tmp_path: Path) -> None:
    _, proc = imported(["--help"], tmp_path)
    for flag in ("--claude", "--kimi", "--all", "--uninstall", "--adopt", "--reapply", "--payload"):
        assert flag in proc.stdout


def test_a_verb_does_import_the_engine(tmp_path: Path) -> None:
    """The check above is not vacuous: a real run imports what --help must not."""
    names, proc = imported(["--claude", "--global", "--dry-run", "--yes"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert {"msd_install.installer.engine", "msd_install.payload", "json"} <= names


# what an uninstall must not import: it converts no payload, plans no install, merges,
# migrates and validates nothing, and reads no pack when none is named
NOT_FOR_UNINSTALL = {
    "msd_install.runtimes.convert",
    "msd_install.runtimes.packs",
    "msd_install.payload.pack",
    "msd_install.installer.resolve",
    "msd_install.installer.resolveconfig",
    "msd_install.installer.schemacheck",
    "msd_install.installer.reapply",
    "msd_install.installer.merge",
    "msd_install.installer.diff3",
    "msd_install.installer.conflicted",
    "msd_install.installer.patches",
    "msd_install.installer.baseline",
    "msd_install.installer.migrate",
    "msd_install.installer.recovery",
    "msd_install.migrations.released",
    "jsonschema",
    "difflib",
}


def test_an_uninstall_imports_no_install_side(tmp_path: Path) -> None:
    _, first = imported(["--claude", "--global", "--yes"], tmp_path)
    assert first.returncode == 0, first.stderr[-2000:]
    names, proc = imported(["--claude", "--global", "--uninstall", "--yes"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert " removed" in proc.stdout  # a real uninstall, of a real install
    assert not (tmp_path / ".claude" / "msd-file-manifest.json").exists()
    # the check is not vacuous: the run imported the engine and its uninstall side
    assert {"msd_install.installer.engine", "msd_install.installer.uninstall"} <= names
    loaded = sorted(
        n for n in names if n in NOT_FOR_UNINSTALL or n.split(".")[0] in NOT_FOR_UNINSTALL
    )
    assert loaded == [], loaded
