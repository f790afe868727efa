"""Each hook file on its own is `mypy --strict` clean and ruff clean (lint + format)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hookkit import HOOKS_DIR

BIN = Path(sys.executable).parent
SCRIPTS = sorted(str(p) for p in HOOKS_DIR.glob("*.py"))


def tool(name: str) -> str:
    path = shutil.which(name, path=str(BIN)) or shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed")
    return path


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mypy-cache")  # shared: the stdlib stubs are parsed once


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: Path(p).name)
def test_mypy_strict_on_each_hook_alone(script: str, mypy_cache: Path) -> None:
    proc = subprocess.run(
        [tool("mypy"), "--strict", "--cache-dir", str(mypy_cache), script],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_check_and_format() -> None:
    ruff = tool("ruff")
    # hooks write their output with print() and use os.path (pathlib costs start-up time)
    for args in (["check", "--ignore", "T20,PTH"], ["format", "--check"]):
        # the project's ruff settings, applied to the files as installed (blocks inlined)
        config = Path(__file__).resolve().parents[2] / "pyproject.toml"
        proc = subprocess.run(
            [ruff, *args, "--config", str(config), str(HOOKS_DIR)], capture_output=True, text=True
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
