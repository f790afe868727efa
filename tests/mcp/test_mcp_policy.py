"""Source policies of the runtime-side server code, and the tool registry's invariants."""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

import msd_install
from msd_install.msdcore.mcp import protocol, registry
from msd_install.msdcore.mcp.schema import plain_json, unsupported_keywords, validate

MSDCORE = Path(msd_install.__file__).parent / "msdcore"
OWNED = sorted(
    [*(MSDCORE / "mcp").glob("*.py")]
    + [
        MSDCORE / n
        for n in (
            "confine.py",
            "audit.py",
            "safeio.py",
            "fswalk.py",
            "fstools.py",
            "fstools_read.py",
            "fstools_write.py",
        )
    ]
)


@pytest.mark.parametrize("path", OWNED, ids=lambda p: p.name)
def test_no_print_and_no_unmarked_stdout_writes(path: Path) -> None:
    source = path.read_text()
    calls = [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call)]
    assert not [c for c in calls if isinstance(c.func, ast.Name) and c.func.id == "print"]
    assert "print(" not in source
    for line in source.splitlines():
        if "sys.stdout.write" in line or "sys.__stdout__" in line or "sys.stdout)" in line:
            assert "# stdout-ok" in line, line


@pytest.mark.parametrize("path", OWNED, ids=lambda p: p.name)
def test_standard_library_and_relative_imports_only(path: Path) -> None:
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        else:
            continue
        for name in names:
            assert name.split(".")[0] in sys.stdlib_module_names or name == "__future__", name


def test_guard_imports_nothing_but_os_sys_fcntl() -> None:
    tree = ast.parse((MSDCORE / "mcp" / "guard.py").read_text())
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}  # type: ignore[misc]
    assert imported <= {"os", "sys", "fcntl", "__future__"}


def test_importing_the_server_has_no_side_effects() -> None:
    modules = [
        "msd_install.msdcore.mcp.server",
        "msd_install.msdcore.mcp.__main__",
        "msd_install.msdcore.fstools",
    ]
    code = "import " + ", ".join(modules)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=20)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_server_version_matches_the_distribution() -> None:
    assert msd_install.__version__ == protocol.SERVER_VERSION


def test_registry_order_is_file_tools_then_planning_tools() -> None:
    from msd_install.msdcore.fstools import FILE_TOOLS
    from msd_install.msdcore.planning.tools import PLANNING_TOOLS

    assert [t.name for t in registry.build()] == [t.name for t in [*FILE_TOOLS, *PLANNING_TOOLS]]


@pytest.mark.parametrize("tool", registry.build(), ids=lambda t: t.name)
def test_every_tool_schema_is_valid_and_fully_enforced(tool: object) -> None:
    spec = tool  # a ToolSpec
    jsonschema.Draft202012Validator.check_schema(spec.input_schema)  # type: ignore[attr-defined]
    jsonschema.Draft202012Validator.check_schema(spec.output_schema)  # type: ignore[attr-defined]
    assert spec.input_schema["type"] == "object"  # type: ignore[attr-defined]
    assert unsupported_keywords(spec.input_schema) == set()  # type: ignore[attr-defined]


SCHEMA = {
    "type": "object",
    "properties": {
        "s": {"type": "string", "minLength": 2, "maxLength": 4},
        "n": {"type": "integer", "minimum": 1, "maximum": 3},
        "e": {"type": "string", "enum": ["a", "b"]},
        "l": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "properties": {"k": {"type": "boolean"}},
                "required": ["k"],
                "additionalProperties": False,
            },
        },
        "f": {"type": "number"},
    },
    "required": ["s"],
    "additionalProperties": False,
}
CASES = [
    {"s": "ab"},
    {"s": "a"},
    {"s": "abcde"},
    {"s": 1},
    {},
    {"s": "ab", "x": 1},
    {"s": "ab", "n": 0},
    {"s": "ab", "n": 4},
    {"s": "ab", "n": 2.0},
    {"s": "ab", "n": 2.5},
    {"s": "ab", "n": True},
    {"s": "ab", "e": "c"},
    {"s": "ab", "l": []},
    {"s": "ab", "l": [{"k": True}]},
    {"s": "ab", "l": [{"k": 1}]},
    {"s": "ab", "l": [{}]},
    {"s": "ab", "l": [{"k": True, "z": 0}]},
    {"s": "ab", "f": 1},
    {"s": "ab", "f": False},
    [],
    None,
    "x",
]


# Deliberately stricter than JSON Schema: an integral float for an integer would reach the
# tool as a Python float (and break a slice, say), so it is -32602 instead.
STRICTER = [{"s": "ab", "n": 2.0}]


@pytest.mark.parametrize("value", CASES)
def test_small_validator_agrees_with_jsonschema(value: object) -> None:
    expected = jsonschema.Draft202012Validator(SCHEMA).is_valid(value) and value not in STRICTER
    assert (validate(value, SCHEMA) == []) == expected


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ({"a": "\ud800"}, "lone surrogate"),
        ({"\udc80": 1}, "lone surrogate"),
        ({"a": [float("nan")]}, "finite"),
        ({"a": float("inf")}, "finite"),
        ({"a": functools.reduce(lambda acc, _: [acc], range(100), [])}, "nested deeper"),
    ],
)
def test_plain_json_refuses_what_no_tool_should_see(value: object, problem: str) -> None:
    found = plain_json(value)
    assert len(found) == 1 and problem in found[0]
    assert plain_json({"a": [1, 2.5, "ü", {"b": None}]}) == []


def test_start_up_path_stays_lean() -> None:
    # The cold-start target (issue 3) depends on the first response needing only json/os/sys:
    # tools, logging, typing, dataclasses and pathlib load on first use.
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "import msdcore.mcp.server, msdcore.mcp.guard;"
        "sys.stdout.write(' '.join(sorted(sys.modules)))"
    )
    lib = str(MSDCORE.parent)  # the directory holding the msdcore package
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code, lib], capture_output=True, text=True, timeout=20
    )
    loaded = set(done.stdout.split())
    heavy = {
        "typing",
        "dataclasses",
        "pathlib",
        "logging",
        "hashlib",
        "inspect",
        "msdcore.toolspec",
    }
    assert "msdcore.mcp.server" in loaded
    assert loaded & heavy == set()
    assert not [m for m in loaded if m.startswith("msdcore.planning")]
