"""The frontmatter fast path means what ruamel.yaml (the parser of record) means, or steps aside.

``fast_parse`` reads a strict subset of YAML so that an install need not import ruamel.yaml.
Whenever it answers, its mapping must equal ruamel.yaml's safe load of the same text: checked
on every Markdown file of the payload, on hand-picked traps (words YAML resolves to booleans,
nulls, numbers or dates; comments; colons; escapes) and on a generated corpus of frontmatter
built from the characters that matter.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml.error import YAMLError

from msd_install.payload import load, split_frontmatter
from msd_install.payload.frontmatter import fast_parse, slow_parse

DATA = Path(__file__).resolve().parents[2] / "src" / "msd_install" / "payload" / "data"


def _block(path: Path) -> str | None:
    lines = path.read_text(encoding="utf-8").split("\n")
    if lines[0].strip() != "---" or "---" not in lines[1:]:
        return None
    return "\n".join(lines[1 : lines.index("---", 1)])


def _agrees(text: str) -> bool:
    """True when the fast path answered (and then it must match ruamel.yaml)."""
    fast = fast_parse(text)
    if fast is None:
        return False
    assert fast == slow_parse(text), text
    return True


def test_every_payload_frontmatter_agrees_and_commands_agents_skills_take_the_fast_path() -> None:
    answered = {}
    for path in sorted(DATA.rglob("*.md")):
        block = _block(path)
        if block is not None:
            answered[path.relative_to(DATA).as_posix()] = _agrees(block)
    loaded = load()
    for doc in [c.doc for c in loaded.commands] + [a.doc for a in loaded.agents]:
        assert answered[doc.relpath], f"{doc.relpath} fell back to ruamel.yaml"
    assert len(answered) >= len(loaded.commands) + len(loaded.agents) + len(loaded.skills)


def test_loaded_payload_equals_a_ruamel_only_reading_of_its_sources() -> None:
    for doc in [c.doc for c in load().commands] + [a.doc for a in load().agents]:
        block = _block(DATA / doc.relpath)
        assert block is not None
        assert dict(doc.meta) == slow_parse(block)


TRAPS = [
    "name: true",
    "name: True",
    "name: null",
    "name: Null",
    "name: ~",
    "name: yes",
    "name: off",
    "name: 12",
    "name: 1.5",
    "name: .inf",
    "name: 2024-01-01",
    "name: 0x1f",
    "name: a # comment",
    "name: a: b",
    "name: a:b",
    "name: 'single'",
    'name: "esc\\n"',
    'name: "plain quoted"',
    "name: [a, b]",
    "name: {a: b}",
    "name: |",
    "name: >",
    "name: &anchor a",
    "name: *alias",
    "name: !tag a",
    "name: @at",
    "name: `tick",
    "name: %pct",
    "name: -dash",
    "name: ?q",
    "name: trailing ",
    "name:  two-spaces",
    "name:",
    "true: a",
    "y: a",
    "name: a\nname: b",
    "name: a\n  - b",
    "tools:\n  - Read\n  - Write",
    "tools:\n  - true",
    "tools:\n  - 'x'",
    "tools:\n- Read",
    "tools:\n    - Read",
    "a: x\n\nb: y",
    "a: x\n# comment",
    "description: Debug /clear (the session) and more",
    "description: caf\u00e9 \u2014 ok",
    "description: line\u2028sep",
    "description: nel\x85x",
    "description: bom\ufeff",
    "<<: a",
]


@pytest.mark.parametrize("text", TRAPS)
def test_traps_agree_or_fall_back(text: str) -> None:
    try:
        _agrees(text)
    except YAMLError:
        assert fast_parse(text) is None, "fast path answered where ruamel.yaml refuses"


_PIECES = st.sampled_from(
    [
        "a", "Z", "x1", " ", ":", ": ", "#", " #", "-", "- ", '"', "'", "\\", "/", "(", ")",
        "[", "]", "{", "}", ",", "&", "*", "!", "|", ">", "%", "@", "`", "?", "~", ".",
        "0", "1", "true", "Null", "yes", "on", "\t", "\u00e9", "\u2028", "\x85", "\ufeff",
    ]
)  # fmt: skip
_VALUE = st.lists(_PIECES, max_size=6).map("".join)
_KEY = st.sampled_from(["name", "description", "tools", "true", "y", "a-b", "_k", "K"])


@st.composite
def _frontmatter(draw: Any) -> str:
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        key = draw(_KEY)
        if draw(st.booleans()):
            lines.append(f"{key}: {draw(_VALUE)}")
        else:
            lines.append(f"{key}:")
            lines += [f"  - {draw(_VALUE)}" for _ in range(draw(st.integers(0, 3)))]
    return "\n".join(lines)


@settings(max_examples=400, deadline=None)
@given(_frontmatter())
def test_generated_frontmatter_agrees_or_falls_back(text: str) -> None:
    try:
        expected = slow_parse(text)
    except YAMLError:
        assert fast_parse(text) is None, text
        return
    fast = fast_parse(text)
    if fast is not None:
        assert fast == expected, text


def test_split_frontmatter_still_reports_bad_yaml_in_the_slow_path() -> None:
    from msd_install.errors import PayloadError

    with pytest.raises(PayloadError, match="bad frontmatter"):
        split_frontmatter("commands/x.md", "---\nname: [unclosed\n---\nbody")
