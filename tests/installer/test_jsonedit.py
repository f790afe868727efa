"""The JSON/JSONC editor: every insertion has an exact inverse, formatting is kept."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from msd_install.installer.jsonedit import JsonDocument, JsonSyntaxError, parse

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.text(max_size=8),
    st.floats(allow_nan=False, allow_infinity=False),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


def dumps(value: Any, indent: int | str | None, newline: str) -> str:
    return json.dumps(value, indent=indent, ensure_ascii=False).replace("\n", newline)


@settings(max_examples=300, deadline=None)
@given(
    doc=st.dictionaries(st.text(max_size=6), values, max_size=5),
    key=st.text(min_size=1, max_size=6),
    new=values,
    indent=st.sampled_from([None, 2, 4, "\t"]),
    newline=st.sampled_from(["\n", "\r\n"]),
    final_newline=st.booleans(),
)
def test_add_then_remove_member_gives_back_the_bytes(
    doc: dict[str, Any],
    key: str,
    new: Any,
    indent: int | str | None,
    newline: str,
    final_newline: bool,
) -> None:
    text = dumps(doc, indent, newline) + (newline if final_newline else "")
    original = JsonDocument(text)
    if key in doc:
        return
    added, ins = original.add_member((), key, new)
    assert json.loads(added.text) == {**doc, key: new}
    if indent is not None and doc:
        assert ("\r\n" in added.text) == (newline == "\r\n")
    restored = added.remove_member((), key, ins.interior)
    assert restored.text == text


@settings(max_examples=200, deadline=None)
@given(
    items=st.lists(values, max_size=5),
    new=values,
    indent=st.sampled_from([None, 2, 4]),
    newline=st.sampled_from(["\n", "\r\n"]),
)
def test_append_then_remove_item_gives_back_the_bytes(
    items: list[Any], new: Any, indent: int | None, newline: str
) -> None:
    text = dumps({"a": {"list": items}}, indent, newline)
    original = JsonDocument(text)
    added, ins = original.append_item(("a", "list"), new)
    assert json.loads(added.text)["a"]["list"] == [*items, new]
    restored = added.remove_item(("a", "list"), len(items), ins.interior)
    assert restored.text == text


def test_nested_inserts_undone_in_reverse_order_give_back_the_bytes() -> None:
    text = '{\r\n    "permissions": {\r\n        "allow": ["Bash(ls)"]\r\n    }\r\n}'
    doc = JsonDocument(text)
    d1, i1 = doc.add_member((), "hooks", {})
    d2, i2 = d1.add_member(("hooks",), "PreToolUse", [])
    d3, i3 = d2.append_item(("hooks", "PreToolUse"), {"matcher": "Read", "hooks": []})
    assert '\r\n        "PreToolUse": [\r\n            {\r\n' in d3.text
    assert "\n" not in d3.text.replace("\r\n", "")
    back = (
        d3.remove_item(("hooks", "PreToolUse"), 0, i3.interior)
        .remove_member(("hooks",), "PreToolUse", i2.interior)
        .remove_member((), "hooks", i1.interior)
    )
    assert back.text == text


def test_removing_ours_between_users_entries_keeps_theirs() -> None:
    doc = JsonDocument('{\n  "a": 1\n}')
    mine, _ = doc.add_member((), "msd", 2)
    theirs = JsonDocument(mine.text.replace("\n}", ',\n  "z": 3\n}'))
    assert theirs.remove_member((), "msd").text == '{\n  "a": 1,\n  "z": 3\n}'


def test_single_line_object_gets_a_single_line_member() -> None:
    doc, _ = JsonDocument('{"a": 1}').add_member((), "b", {"c": [1]})
    assert doc.text == '{"a": 1, "b": {"c": [1]}}'


def test_jsonc_comments_and_trailing_commas_survive_a_round_trip() -> None:
    text = '{\n  // mine\n  "a": 1, /* keep */\n  "b": [1, 2,],\n}\n'
    doc = JsonDocument(text, jsonc=True)
    added, ins = doc.add_member((), "msd", {"x": 1})
    assert "// mine" in added.text and "/* keep */" in added.text
    assert added.value(("msd", "x")) == 1
    assert added.remove_member((), "msd", ins.interior).text == text


def test_replace_value_and_put_back_the_users_text() -> None:
    text = '{\n    "statusLine": {"type": "command",   "command": "mine"}\n}\n'
    doc = JsonDocument(text)
    replaced, old = doc.replace_value(("statusLine",), {"type": "command", "command": "ours"})
    assert replaced.value(("statusLine", "command")) == "ours"
    assert replaced.replace_value_text(("statusLine",), old).text == text


@pytest.mark.parametrize(
    ("text", "reason", "line", "column"),
    [
        ('{"a": 1,}', "trailing comma", 1, 8),
        ('{\n  "a": [1, 2,]\n}', "trailing comma", 2, 13),
        ('{"a": ', "unexpected end of file", 1, 7),
        ("\ufeff{}", "byte-order mark", 1, 1),
        ("", "file is empty", 1, 1),
        ('{"a": 1} x', "unexpected text", 1, 10),
        ("{'a': 1}", "property name", 1, 2),
        ('{"a": 1 // c\n}', "comments are not allowed", 1, 9),
        ('{"a": "x\n"}', "unterminated string", 1, 7),
    ],
)
def test_syntax_errors_name_the_line_and_column(
    text: str, reason: str, line: int, column: int
) -> None:
    with pytest.raises(JsonSyntaxError) as info:
        parse(text)
    assert reason in info.value.reason
    assert (info.value.line, info.value.column) == (line, column)


@settings(max_examples=200, deadline=None)
@given(value=values, indent=st.sampled_from([None, 1, 3, "\t"]))
def test_parser_agrees_with_json_module(value: Any, indent: int | str | None) -> None:
    text = json.dumps(value, indent=indent)
    assert parse(text).value == json.loads(text)


def test_json_comments_keeps_comments_but_refuses_trailing_commas(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Gemini CLI and Qwen Code read comments in settings.json but exit on a trailing comma:
    msd-install must refuse such a file rather than edit it into one they cannot read."""
    import pytest as _pytest

    from msd_install.errors import ConfigFileError
    from msd_install.installer.configdoc import open_doc

    ok = open_doc(tmp_path / "s.json", b'{\n  // mine\n  "a": 1\n}\n', "json-comments")
    assert ok.node(("a",)).value == 1
    with _pytest.raises(ConfigFileError) as err:
        open_doc(tmp_path / "s.json", b'{\n  "a": 1,\n}\n', "json-comments")
    assert "trailing comma at line 2" in err.value.one_line()
    assert open_doc(tmp_path / "s.json", b'{\n  "a": 1,\n}\n', "jsonc").node(("a",)).value == 1
