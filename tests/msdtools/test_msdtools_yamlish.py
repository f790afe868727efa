"""The frontmatter YAML subset: what it reads, what it refuses, and exact round trips."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from msd_install.msdcore.planning import yamlish


def test_comment_markers_inside_quotes_are_text() -> None:
    text = (
        "a: \"x \\\" # y\" # c\nb: 'it''s # no' # c\nc: ['a # b', \"c \\\" # d\", 'e''f, g'] # e\n"
    )
    assert yamlish.parse(text) == {
        "a": 'x " # y',
        "b": "it's # no",
        "c": ["a # b", 'c " # d', "e'f, g"],
    }


def test_reads_the_shapes_templates_and_agents_write() -> None:
    text = (
        'phase: "02"\n'
        "wave: 1\n"
        "ratio: 2.5\n"
        "autonomous: true\n"
        "nothing: ~\n"
        "depends_on: []\n"
        "files_modified: [a.py, 'b c.py', \"d,e\",]\n"
        "key-files:\n"
        "  created:\n"
        "  - src/a.py\n"
        "must_haves:\n"
        "  artifacts:\n"
        "    - path: src/x.py   # trailing comment\n"
        "      provides: login\n"
        "note: |\n"
        "  line one\n"
        "\n"
        "  # kept, inside a block\n"
        "folded: >-\n"
        "  a\n"
        "  b\n"
        "empty_map: {}\n"
        "yes_is_text: yes\n"
    )
    assert yamlish.parse(text) == {
        "phase": "02",
        "wave": 1,
        "ratio": 2.5,
        "autonomous": True,
        "nothing": None,
        "depends_on": [],
        "files_modified": ["a.py", "b c.py", "d,e"],
        "key-files": {"created": ["src/a.py"]},
        "must_haves": {"artifacts": [{"path": "src/x.py", "provides": "login"}]},
        "note": "line one\n\n# kept, inside a block\n",
        "folded": "a b",
        "empty_map": {},
        "yes_is_text": "yes",
    }


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("a: 1\na: 2\n", 2, "duplicate key"),
        ("a: &x 1\n", 1, "anchors"),
        ("a: *x\n", 1, "anchors"),
        ("a: !!str 1\n", 1, "tags"),
        ("a: b: c\n", 1, "mapping cannot sit inside a scalar"),
        ("a:\n\tb: 1\n", 2, "tab"),
        ("a: 1\n  b: 2\n", 2, "unexpected indentation"),
        ('a: "open\n', 1, "unterminated"),
        ("a: [1, [2]]\n", 1, "nested flow"),
        ("- x\n", 1, "not a sequence"),
        ("just text\n", 1, "expected 'key: value'"),
        ("a: 1\n---\nb: 2\n", 2, "multiple documents"),
    ],
)
def test_refuses_what_it_does_not_support(text: str, line: int, words: str) -> None:
    with pytest.raises(yamlish.YamlError) as info:
        yamlish.parse(text)
    assert info.value.line == line
    assert words in str(info.value)


@pytest.mark.parametrize(
    "value", ["2.1", "01", "true", "yes", "No", "null", "~", "a: b", "#x", "- x", " pad", "", "1e3"]
)
def test_strings_that_look_like_other_things_are_quoted(value: str) -> None:
    text = yamlish.dump({"k": value})
    assert text != f"k: {value}\n"
    assert yamlish.parse(text) == {"k": value}


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30),
)
keys = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.-]{0,12}", fullmatch=True)
flat_maps = st.dictionaries(keys, scalars, min_size=1, max_size=4)
values = st.one_of(
    scalars,
    st.lists(scalars, max_size=4),
    flat_maps,
    st.lists(flat_maps, min_size=1, max_size=3),
    st.dictionaries(keys, st.lists(scalars, max_size=3), max_size=3),
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(keys, values, max_size=6))
@example({"k": 'Say "hi" # not a comment'})
@example({"k": ["a\\", 'b" # c'], "m": {"n": "it's # x"}})
def test_dump_then_parse_gives_the_same_value(data: dict[str, Any]) -> None:
    assert yamlish.parse(yamlish.dump(data)) == data
