"""What ``python -m build`` ships: the wheel is the source package, file for file and byte for
byte (payload data and schemas included), with nothing of the tests, of Python's caches or of
this machine; the sdist holds the tests and builds that same wheel again."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from distkit import Built, build, sdist_files, source_files, unpack, wheel_files

from helpers import REPO
from msd_install import __version__

PACKAGE = REPO / "src/msd_install"
DIST_INFO = f"msd_install-{__version__}.dist-info/"


def test_the_wheel_is_the_source_package_file_for_file(built: Built) -> None:
    files = wheel_files(built.wheel)
    assert built.wheel.name == f"msd_install-{__version__}-py3-none-any.whl"
    package = {
        k[len("msd_install/") :]: v for k, v in files.items() if k.startswith("msd_install/")
    }
    source = source_files(PACKAGE)
    assert sorted(set(source) - set(package)) == []  # nothing of the source left behind
    assert sorted(set(package) - set(source)) == []  # nothing that is not source
    assert [name for name in source if package[name] != source[name]] == []
    # the data a wheel classically loses: every payload file and every schema is in it
    data = [n for n in package if n.startswith(("payload/data/", "schemas/"))]
    assert len([n for n in data if n.startswith("schemas/")]) >= 5
    assert {n.split("/")[2] for n in data if n.startswith("payload/data/")} == {
        "agents",
        "commands",
        "core",
        "hooks",
        "skills",
    }
    others = sorted(set(files) - {f"msd_install/{n}" for n in package})
    assert others == [DIST_INFO + n for n in ("METADATA", "RECORD", "WHEEL", "entry_points.txt")]


def test_the_wheel_has_no_tests_no_bytecode_and_no_machine_paths(built: Built) -> None:
    files = wheel_files(built.wheel)
    assert [n for n in files if n.endswith((".pyc", ".pyo")) or "__pycache__" in n] == []
    tests = [n for n in files if n.startswith("tests/") or Path(n).name.startswith("test_")]
    assert tests == [] and not any(Path(n).name == "conftest.py" for n in files)
    # where this machine keeps the checkout, the interpreter, the venv and the build
    needles = {str(REPO), sys.prefix, sys.base_prefix, str(built.wheel.parent)}
    needles.add(os.path.expanduser("~").rstrip("/") + "/")
    found = [(n, s) for n, data in files.items() for s in needles if s.encode() in data]
    assert found == []
    entry_points = files[DIST_INFO + "entry_points.txt"].decode()
    for script in ("msd-install = msd_install.entry:main", "msd-tools = ", "msd-mcp = "):
        assert script in entry_points


def test_the_sdist_holds_the_tests_the_docs_and_the_source(built: Built) -> None:
    files = sdist_files(built.sdist)
    assert built.sdist.name == f"msd_install-{__version__}.tar.gz"
    for folder in ("tests", "docs", "src/msd_install"):
        have = {k[len(folder) + 1 :]: v for k, v in files.items() if k.startswith(folder + "/")}
        assert have == source_files(REPO / folder), folder
    for name in ("pyproject.toml", "README.md"):
        assert files[name] == (REPO / name).read_bytes()
    assert [n for n in files if n.endswith(".pyc") or n.startswith((".venv/", ".git/"))] == []


def test_the_sdist_builds_the_same_wheel(built: Built, tmp_path: Path) -> None:
    top = unpack(built.sdist, tmp_path / "unpacked")
    out = tmp_path / "out"
    out.mkdir()
    build(["--wheel"], top, out)
    (again,) = out.glob("*.whl")
    assert again.name == built.wheel.name
    first, second = wheel_files(built.wheel), wheel_files(again)
    assert sorted(first) == sorted(second)
    assert [name for name in first if first[name] != second[name]] == []
    assert again.read_bytes() == built.wheel.read_bytes()  # hatchling's builds are reproducible
