"""The generated reference pages (the CLI from the click app, the runtime matrix from the
registry) may not drift from the code: a stale page fails with the command that rewrites it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from helpers import REPO
from msd_install import cli as cli_module
from msd_install.docgen import PAGES, REGEN, commands, stale
from msd_install.runtimes import RUNTIMES


def test_every_generated_page_is_current() -> None:
    old = [p.relative_to(REPO).as_posix() for p in stale(REPO)]
    assert not old, f"stale generated docs: {', '.join(old)}; run: {REGEN}"


def test_the_check_names_a_stale_page_and_the_fix_rewrites_it(tmp_path: Path) -> None:
    docs = tmp_path / "docs/reference"
    docs.mkdir(parents=True)
    for name in PAGES:
        (docs / name).write_text((REPO / "docs/reference" / name).read_text())
    (docs / "runtime-matrix.md").write_text("# hand-edited\n")
    run = [sys.executable, "-m", "msd_install.docgen", "--repo", str(tmp_path)]
    proc = subprocess.run([*run, "--check"], capture_output=True, text=True, check=False)
    assert proc.returncode == 1
    assert proc.stderr == f"stale: {docs / 'runtime-matrix.md'} (run: {REGEN})\n"
    proc = subprocess.run(run, capture_output=True, text=True, check=False)
    assert (proc.returncode, proc.stdout) == (0, f"wrote {docs / 'runtime-matrix.md'}\n")
    check = subprocess.run([*run, "--check"], capture_output=True, text=True, check=False)
    assert (check.returncode, check.stderr) == (0, "")


def test_the_cli_page_lists_every_command_and_option_main_dispatches_to() -> None:
    page = (REPO / "docs/reference/cli-generated.md").read_text()
    progs = [prog for prog, _ in commands()]
    assert progs[0] == "msd-install" and "msd-install doctor" in progs
    for prog, command in commands():
        assert f"## `{prog}`" in page
        for param in command.params:
            for opt in getattr(param, "opts", []):
                assert f"{opt}" in page, (prog, opt)
        # main() dispatches to it under that name: its own --help shows its own usage
        args = prog.split()[1:]
        proc = subprocess.run(
            [sys.executable, "-m", "msd_install", *args, "--help"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 0 and proc.stdout.startswith(f"Usage: {prog} "), proc
    for name in RUNTIMES:
        assert f"| `--{name}` | Install into {RUNTIMES[name]}. |" in page
    assert cli_module.cli.help and cli_module.cli.help in page


def test_the_runtime_matrix_has_a_row_per_runtime_and_scope() -> None:
    page = (REPO / "docs/reference/runtime-matrix.md").read_text()
    for name in RUNTIMES:
        assert page.count(f"| `--{name}` |") in (3, 4), name  # roots, hooks, 1-2 scopes
    claude = "| `--claude` | agents 10 · hooks 24 · msd-core 114 · skills 28 | `~/.claude.json` |"
    assert claude in page
    assert "| `--hermes` | Hermes Agent | global | `HERMES_HOME` | `~/.hermes` | — |" in page
    assert "/HOME" not in page and "/PROJECT" not in page
