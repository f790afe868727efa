"""The installed launcher runs from a copied ``<root>/msd-core/{bin,lib,templates}`` tree with
``python -I -S`` (no site-packages: standard library only), and the code stays stdlib-only."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from msdtools_util import SRC, TEMPLATES

MSDCORE = SRC / "msd_install" / "msdcore"
LAUNCHER = SRC / "msd_install" / "payload" / "data" / "core" / "bin" / "msd-tools"


def _install(root: Path) -> Path:
    core = root / "msd-core"
    shutil.copytree(MSDCORE, core / "lib" / "msdcore", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(TEMPLATES, core / "templates")
    (core / "bin").mkdir()
    shutil.copy2(LAUNCHER, core / "bin" / "msd-tools")
    return core / "bin" / "msd-tools"


def _launch(launcher: Path, cwd: Path, *args: str) -> tuple[int, dict[str, object]]:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(cwd)}  # no PYTHONPATH at all
    proc = subprocess.run(
        [sys.executable, "-I", "-S", str(launcher), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.stderr == "", proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def test_launcher_from_an_installed_tree(tmp_path: Path) -> None:
    launcher = _install(tmp_path / "runtime")
    installed = tmp_path / "runtime" / "msd-core" / "templates" / "roadmap.md"
    installed.write_text(installed.read_text().replace("# Roadmap:", "# Installed roadmap:"))
    work = tmp_path / "work"
    (work / ".planning").mkdir(parents=True)
    code, doc = _launch(
        launcher,
        work,
        "template",
        "fill",
        "roadmap.md",
        "--var",
        "project_name=Demo",
        "--out",
        ".planning/ROADMAP.md",
    )
    assert code == 0, doc
    assert (work / ".planning/ROADMAP.md").read_text().startswith("# Installed roadmap: Demo")
    code, doc = _launch(launcher, work, "phase", "add", "First")
    assert code == 0 and doc["dir"] == ".planning/phases/01-first"
    code, doc = _launch(launcher, work, "state", "load")
    assert code == 1 and doc["error"]["code"] == "no_state"
    code, doc = _launch(launcher, work, "nonsense")
    assert code == 2 and doc["error"]["code"] == "usage"


def test_launcher_is_executable_with_a_python_shebang() -> None:
    assert LAUNCHER.read_text().startswith("#!/usr/bin/env python3\n")
    assert os.access(LAUNCHER, os.X_OK)


def _our_files() -> list[Path]:
    return [*sorted((MSDCORE / "planning").glob("*.py")), MSDCORE / "tools_cli.py"]


def test_only_standard_library_and_relative_imports() -> None:
    for path in _our_files():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top in sys.stdlib_module_names or top == "__future__", (path, name)


def test_no_print_calls_and_one_marked_stdout_writer() -> None:
    writers = []
    for path in _our_files():
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id != "print", f"{path}:{node.lineno}"
        for n, line in enumerate(path.read_text().splitlines(), start=1):
            if "sys.stdout.write" in line:
                assert line.rstrip().endswith("# stdout-ok"), f"{path}:{n}"
                writers.append(path.name)
    assert writers == ["tools_cli.py"]
