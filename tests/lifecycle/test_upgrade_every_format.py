"""An upgrade from 0.0.1 leaves exactly the tree a fresh install writes, in runtimes whose
config is JSON, TOML or YAML (the migrations' value rewrites go through each editor)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import run_cli, snapshot_but_registry
from lifecycle.fixtures import install_version

# Gemini: JSON settings with hooks (timeouts in ms); Codex: TOML; Hermes: YAML; Kimi: TOML
# hooks as an array of tables (``[[hooks]]``: a migration rewrites a whole element)
RUNTIMES = ("gemini", "codex", "hermes", "kimi")


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_upgrading_from_0_0_1_gives_a_fresh_install_s_tree(tmp_path: Path, runtime: str) -> None:
    flags = [f"--{runtime}", "--global", "--yes"]
    before = snapshot_but_registry(tmp_path)
    assert run_cli(flags, tmp_path).returncode == 0
    want = snapshot_but_registry(tmp_path)
    assert run_cli(["--uninstall", *flags], tmp_path).returncode == 0
    assert snapshot_but_registry(tmp_path) == before

    install_version(tmp_path, "0.0.1", runtime)
    proc = run_cli(flags, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "migrate" in proc.stdout
    got = snapshot_but_registry(tmp_path)
    assert sorted(got) == sorted(want)
    assert got == want
    assert run_cli(["--uninstall", *flags], tmp_path).returncode == 0
    assert snapshot_but_registry(tmp_path) == before
