"""TOML files we render for a runtime read back as exactly the values we meant."""

from __future__ import annotations

import sys
from typing import Any

import pytest
import tomlkit
from hypothesis import given, settings
from hypothesis import strategies as st

from msd_install.runtimes import tomltext


def loads(text: str) -> dict[str, Any]:
    """Read back with tomlkit, and with the standard library's strict reader where it exists."""
    data: dict[str, Any] = tomlkit.parse(text).unwrap()
    if sys.version_info >= (3, 11):
        import tomllib

        assert tomllib.loads(text) == data
    return data


# every character a Python str decoded from UTF-8 can hold (no lone surrogates)
_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60)
_lines = st.lists(
    st.text(alphabet=st.sampled_from("ab'\"\\\t\r\x7f\x00é#[]= "), max_size=8), max_size=6
).map("\n".join)


@settings(max_examples=400, deadline=None)
@given(st.one_of(_text, _lines))
def test_any_string_reads_back_unchanged(value: str) -> None:
    text = tomltext.document({"developer_instructions": value, "odd key": value})
    assert loads(text) == {"developer_instructions": value, "odd key": value}


@pytest.mark.parametrize(
    "value",
    ["line\n", "it's\n", "a\nquote at the end'", "a\ntwo at the end''", "\nlead\n", "é\t#\n"],
)
def test_readable_text_is_a_literal_block(value: str) -> None:
    rendered = tomltext.string(value)
    assert rendered.startswith("'''\n")
    assert loads(f"v = {rendered}\n")["v"] == value


@pytest.mark.parametrize(
    "value", ["has ''' inside\n", "bell \x07\n", "lone \r cr\n", "crlf\r\n", "del \x7f\n"]
)
def test_text_a_literal_cannot_hold_is_escaped(value: str) -> None:
    rendered = tomltext.string(value)
    assert rendered.startswith('"') and "\n" not in rendered
    assert loads(f"v = {rendered}\n")["v"] == value


def test_scalars_and_lists() -> None:
    text = tomltext.document({"a": True, "b": 3, "c": ["x", 'y"'], "d-e": "f"})
    assert loads(text) == {"a": True, "b": 3, "c": ["x", 'y"'], "d-e": "f"}
    assert text.splitlines()[0] == "a = true"


def _tomlkit_mlb(value: str) -> str:
    return tomlkit.string(value, multiline=True).as_string()


def _ours_mlb(value: str) -> str:
    from tomlkit.items import String, StringType, Trivia

    return String(StringType.MLB, value, tomltext.multiline_basic(value), Trivia()).as_string()


_quotes = st.lists(
    st.text(alphabet=st.sampled_from('"\\\n\r\t\x00\x1b\x7f\x0b\x0c\x08a é'), max_size=12),
    max_size=6,
).map("".join)


@settings(max_examples=600, deadline=None)
@given(st.one_of(_text, _lines, _quotes))
def test_multiline_basic_is_what_tomlkit_writes(value: str) -> None:
    """Gemini's command files keep tomlkit's exact bytes, written in linear time (what they
    read back as is tomlkit's business: a CRLF inside is read as LF by tomllib)."""
    assert _ours_mlb(value) == _tomlkit_mlb(value)


@pytest.mark.parametrize(
    "value", ['"""', '""""', '"""""""', '\\"""', "\r\n", "\r", "\n\n", "\rx", "\t\x1b", ""]
)
def test_multiline_basic_edge_cases(value: str) -> None:
    assert _ours_mlb(value) == _tomlkit_mlb(value)


def test_multiline_basic_on_every_payload_command() -> None:
    from msd_install.payload import load

    for command in load().commands:
        assert _ours_mlb(command.doc.raw) == _tomlkit_mlb(command.doc.raw), command.name


def _tomlkit_prompt_file(description: str, prompt: str) -> str:
    """What Gemini's command files were: a tomlkit document of the two strings."""
    doc = tomlkit.document()
    doc.add("description", description)
    doc.add("prompt", tomlkit.string(prompt, multiline=True))
    return tomlkit.dumps(doc)


@settings(max_examples=400, deadline=None)
@given(st.one_of(_text, _lines, _quotes), st.one_of(_text, _lines, _quotes))
def test_prompt_file_is_what_tomlkit_writes(description: str, prompt: str) -> None:
    assert tomltext.prompt_file(description, prompt) == _tomlkit_prompt_file(description, prompt)
    assert loads(tomltext.prompt_file(description, "x")) == {
        "description": description,
        "prompt": "x",
    }


def test_prompt_file_on_every_payload_command() -> None:
    from msd_install.payload import load

    for command in load().commands:
        description, prompt = command.description, command.doc.raw
        assert tomltext.prompt_file(description, prompt) == _tomlkit_prompt_file(
            description, prompt
        )
