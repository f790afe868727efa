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


# what an install of one runtime must not import: the other verbs' sides (uninstall, the
# handover of an uninstall, --adopt's baseline scan and released files, --reapply's merge),
# the in-place rewrite of a hard-linked config file, and the workers of a multi-runtime run
NOT_FOR_INSTALL = {
    "msd_install.installer.baseline",
    "msd_install.installer.bytecode",  # only when a file msd no longer ships is removed
    "msd_install.installer.conflicted",
    "msd_install.installer.merge",
    "msd_install.installer.diff3",
    "msd_install.installer.reapply",
    "msd_install.installer.handover",
    "msd_install.installer.inplace",
    "msd_install.installer.uninstall",
    "msd_install.installer.recovery",
    "msd_install.migrations.released",
    "msd_install.installer.migration",  # the operations: only a pending migration plans
    "msd_install.parallel",
    "difflib",
}
# a reinstall with nothing to do edits no config file: nothing to reconcile or validate
NOT_FOR_REINSTALL = NOT_FOR_INSTALL | {
    "msd_install.installer.tunedentry",
    "msd_install.installer.tuning",
    "msd_install.installer.schemacheck",
    "msd_install.schemas",
    "jsonschema",
}


def _loaded(names: set[str], banned: set[str]) -> list[str]:
    return sorted(n for n in names if n in banned or n.split(".")[0] in banned)


def test_an_install_and_a_reinstall_import_only_their_side(tmp_path: Path) -> None:
    names, proc = imported(["--claude", "--global", "--yes"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    # a real first install: files created, the settings edited, the pristine store packed
    assert (tmp_path / ".claude" / "msd-file-manifest.json").is_file()
    assert (tmp_path / ".claude" / "msd-pristine.zlib").is_file()
    assert "msd-" in (tmp_path / ".claude" / "settings.json").read_text(encoding="utf-8")
    assert {"msd_install.installer.resolve", "msd_install.installer.tunedentry"} <= names
    assert {"msd_install.installer.pristine", "msd_install.installer.schemacheck"} <= names
    assert _loaded(names, NOT_FOR_INSTALL) == []
    names, proc = imported(["--claude", "--global", "--yes"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert " identical" in proc.stdout and " created" not in proc.stdout, proc.stdout
    assert {"msd_install.installer.migrate", "msd_install.migrations"} <= names
    assert _loaded(names, NOT_FOR_REINSTALL) == []


# what an uninstall must not import: it converts no payload, plans no install, merges,
# migrates and validates nothing, and reads no pack when none is named
NOT_FOR_UNINSTALL = {
    "msd_install.installer.inplace",  # only for a config file with other hard links
    "msd_install.installer.pristine",  # the store is removed like any file, never read
    "msd_install.installer.tunedentry",  # entries are taken out, none is reconciled
    "msd_install.installer.tuning",
    "msd_install.installer.migration",
    "msd_install.parallel",
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
    assert _loaded(names, NOT_FOR_UNINSTALL) == []


# what doctor must not import: it reads manifests and config files, and changes nothing
NOT_FOR_DOCTOR = {
    "msd_install.installer.baseline",  # only the name of an adopted manifest's version
    "msd_install.installer.pristine",
    "msd_install.installer.tuning",  # only for an entry of ours the user tuned
    "msd_install.installer.resolve",
    "msd_install.installer.schemacheck",
    "msd_install.installer.migration",
    "msd_install.installer.merge",
    "msd_install.parallel",
    "jsonschema",
    "difflib",
}


def test_doctor_imports_no_install_side(tmp_path: Path) -> None:
    _, first = imported(["--claude", "--global", "--yes"], tmp_path)
    assert first.returncode == 0, first.stderr[-2000:]
    names, proc = imported(["doctor"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]  # every install healthy
    line = next(x for x in proc.stdout.splitlines() if "claude (global) at ~/.claude" in x)
    assert "not installed" not in line, proc.stdout  # this one was found and checked
    assert {"msd_install.installer.doctor", "msd_install.installer.health"} <= names
    assert _loaded(names, NOT_FOR_DOCTOR) == []
