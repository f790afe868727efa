"""Review 2: the lazily parsed JSON span tree and the splicing editor, edited at depth.

Nested containers of strict JSON are decoded by the C decoder and get child spans only when
looked at. These tests edit at every depth of generated documents (duplicate keys, nested
arrays, surrogate escapes, odd spacing) and check that what the tree reports equals what
``json`` reads, that every span holds exactly its value, and that each insertion's recorded
inverse gives back the original text byte for byte. The CLI tests use HOME in a temp dir.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import build, run_cli, snapshot
from msd_install.installer.jsonedit import JsonDocument
from msd_install.installer.jsonparse import Node

KEYS = st.sampled_from(["a", "b", "hooks", "PreToolUse", "", "é", "\\", '"', "a"])
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=6),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(st.tuples(KEYS, inner), max_size=4),  # pairs: duplicate keys allowed
    ),
    max_leaves=25,
)


def render(value: Any, indent: int | None, level: int = 0) -> str:
    """JSON text that keeps duplicate keys (a list of pairs is an object)."""
    pad = "" if indent is None else "\n" + " " * (indent * (level + 1))
    end = "" if indent is None else "\n" + " " * (indent * level)
    if isinstance(value, list) and value and all(isinstance(p, tuple) for p in value):
        body = ",".join(pad + json.dumps(k) + ": " + render(v, indent, level + 1) for k, v in value)
        return "{" + body + end + "}"
    if isinstance(value, list):
        body = ",".join(pad + render(v, indent, level + 1) for v in value)
        return "[" + body + (end if value else "") + "]"
    return json.dumps(value)


def containers(node: Node, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Node]]:
    """Every reachable container with its path (last member wins, as in ``_child``)."""
    out = [(path, node)]
    if node.kind == "object":
        last: dict[str, Node] = {}
        for member in node.members:
            last[member.key] = member.value
        for key, child in last.items():
            if child.kind != "scalar":
                out += containers(child, (*path, key))
    elif node.kind == "array":
        for i, child in enumerate(node.items):
            if child.kind != "scalar":
                out += containers(child, (*path, i))
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    value=st.lists(st.tuples(KEYS, VALUES), max_size=4),
    indent=st.sampled_from([None, 2, 4]),
    crlf=st.booleans(),
)
def test_every_container_at_every_depth_edits_and_inverts_exactly(
    value: list[Any], indent: int | None, crlf: bool
) -> None:
    text = render(value, indent) + "\n"
    if crlf:
        text = text.replace("\n", "\r\n")
    doc = JsonDocument(text)
    assert doc.root.value == json.loads(text)
    for path, node in containers(doc.root):
        fresh = JsonDocument(text)
        found = fresh.node(path)
        assert found is not None and found.kind == node.kind
        assert json.loads(text[found.start : found.end]) == found.value
        assert found.value == fresh.value(path)
        if found.kind == "object":
            edited, ins = fresh.add_member(path, "msd", {"k": [1, "ü"]})
            assert edited.value((*path, "msd")) == {"k": [1, "ü"]}
            assert json.loads(edited.text) is not None
            back = edited.remove_member(path, "msd", ins.interior)
        else:
            edited, ins = fresh.append_item(path, {"hooks": [{"command": "x"}]})
            assert edited.value(path)[-1] == {"hooks": [{"command": "x"}]}
            back = edited.remove_item(path, len(edited.value(path)) - 1, ins.interior)
        assert back.text == text, (path, edited.text)


def test_surrogate_escapes_inside_a_lazy_subtree_are_kept_and_hashable() -> None:
    text = '{\n  "x": {"y": ["\\ud83d", {"z": "\\udfff\\ud83d\\ude00"}]}\n}\n'
    doc = JsonDocument(text)
    assert doc.value(("x", "y", 1, "z")) == "\udfff\U0001f600"
    edited, ins = doc.add_member(("x", "y", 1), "msd", 1)
    assert "\\udfff" in edited.text
    assert edited.remove_member(("x", "y", 1), "msd", ins.interior).text == text


def test_duplicate_keys_at_depth_edit_the_value_json_reads() -> None:
    text = '{"a": {"h": [1], "h": {"P": []}, "k": 0}, "a": {"h": [2]}}'
    doc = JsonDocument(text)
    assert doc.value(("a", "h")) == [2] == json.loads(text)["a"]["h"]
    edited, ins = doc.append_item(("a", "h"), 3)
    assert json.loads(edited.text)["a"]["h"] == [2, 3]
    assert edited.text.startswith('{"a": {"h": [1], "h": {"P": []}')  # the first is untouched
    assert edited.remove_item(("a", "h"), 1, ins.interior).text == text


GLOBAL = ["--claude", "--global", "--yes"]


@pytest.mark.parametrize(
    "content",
    [
        '{\n  "hooks": {\n    "PreToolUse": [{"matcher": "A", "hooks": []}],\n'
        '    "PreToolUse": []\n  }\n}\n',
        '{"hooks": {"PreToolUse": [{"matcher": "A", "hooks": []}]}}',
        '{\n  "hooks": {"PreToolUse": [{"matcher": "\\ud800", "hooks": '
        '[{"type": "command", "command": "\\udfff x"}]}]},\n'
        '  "env": {"a": {"b": {"c": ["\\ud83d"]}}}\n}\n',
        '{\n  "x": {"n": 1e400, "m": -0.0, "o": 1E-400}\n}\n',
        '{"": {"": []}, "hooks": {"": 1, "Stop": [1, "x", null, [], {}]}}\n',
    ],
    ids=["nested-duplicate", "one-line", "surrogates", "odd-numbers", "odd-shapes"],
)
def test_nested_shapes_round_trip_through_the_cli(tmp_path: Path, content: str) -> None:
    home = tmp_path / "home"
    build(home, {".claude/settings.json": content})
    before = snapshot(home)
    assert run_cli(GLOBAL, home).returncode == 0
    again = snapshot(home)
    assert run_cli(GLOBAL, home).returncode == 0
    assert snapshot(home) == again  # a reinstall writes nothing
    assert run_cli([*GLOBAL, "--uninstall"], home).returncode == 0
    assert snapshot(home) == before


def test_a_large_claude_json_round_trips(tmp_path: Path) -> None:
    home = tmp_path / "home"
    projects = {
        f"/p/{i}": {"history": [{"display": "x" * 80}] * 5, "mcpServers": {}} for i in range(3000)
    }
    text = json.dumps({"numStartups": 1, "projects": projects, "mcpServers": {}}, indent=2)
    build(home, {".claude.json": text})
    before = snapshot(home)
    assert run_cli(GLOBAL, home).returncode == 0
    doc = json.loads((home / ".claude.json").read_text())
    assert set(doc["mcpServers"]) == {"msd"} and len(doc["projects"]) == 3000
    assert run_cli([*GLOBAL, "--uninstall"], home).returncode == 0
    assert snapshot(home) == before


@pytest.mark.parametrize("where", ["top", "nested"])
def test_a_huge_integer_in_settings_is_not_an_internal_error(tmp_path: Path, where: str) -> None:
    home = tmp_path / "home"
    number = "9" * 5000
    body = f'"n": {number}' if where == "top" else f'"x": {{"n": {number}}}'
    build(home, {".claude/settings.json": "{\n  " + body + "\n}\n", "tmp/.keep": ""})
    proc = run_cli(GLOBAL, home, TMPDIR=str(home / "tmp"))
    assert proc.returncode in (0, 4), proc.stderr
    assert "internal error" not in proc.stderr
