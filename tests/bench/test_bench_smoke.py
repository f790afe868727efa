"""CI's smoke run of bench/incumbent_bench.py: it runs every section at a tiny size and prints
its table. Figures are not checked (benchmarks are not tests); the incumbent is not needed:
without it the column is skipped and the table says so."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from helpers import cli_env

BENCH = Path(__file__).resolve().parents[2] / "bench" / "incumbent_bench.py"


def test_incumbent_bench_smoke_prints_every_row_of_its_table(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(BENCH), "--smoke", "--no-incumbent"],
        capture_output=True,
        text=True,
        timeout=600,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "TMPDIR": str(tmp_path)},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout
    assert "incumbent column skipped" in out
    for row in (
        "install --claude --global",
        "reinstall --claude --global",
        "uninstall --claude --global",
        "peak RSS --claude --global",
        "uninstall --claude --global (floors' run)",
        "floor: rm -rf of the installed folder",
        "floor: python -I -S reads, hashes, unlinks each file",
        "modules, imported",
        "floor: those imports + read, hash, unlink",
        "msd-install --version",
        "msd-install --help",
        "hook p50 msd-statusline",
        "hook p50 msd-context-monitor",
        "MCP server cold start",
        "scaling x2",
        "commands x 16 runtimes",
        "settings.json edited (install)",
        "~/.claude.json restored (uninstall)",
    ):
        assert row in out, f"missing row {row!r} in:\n{out}"


def test_synthetic_run_refuses_a_folder_that_is_no_payload(tmp_path: Path) -> None:
    """A mistyped DATA would install an empty payload and time that: it stops instead."""
    run = BENCH.parent / "synthetic_run.py"
    for data in (tmp_path / "absent", tmp_path):
        proc = subprocess.run(
            [sys.executable, str(run), str(data), "--", "--claude", "--global", "--yes"],
            env=cli_env(tmp_path / "home"),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode != 0
        assert "is not a payload folder" in proc.stderr
        assert not (tmp_path / "home" / ".claude").exists()
