"""Splices re-parse only what they touched: the document after any sequence of edits is the
document a fresh parse of its text gives (values, kinds and every span).

``JsonDocument.splice`` hands the next parse the big containers the last one decoded
(``jsonparse.Reuse``) so that a 20 MB ``~/.claude.json`` is not decoded again for each of an
install's ~20 splices. Here the size from which containers are reused is lowered to 1 byte, so
that every container of small generated documents goes through that path.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from msd_install.installer import jsonparse
from msd_install.installer.jsonedit import JsonDocument
from msd_install.installer.jsonparse import Node

SCALAR = st.none() | st.booleans() | st.integers(-5, 5) | st.text("ab\n", max_size=3)
VALUE = st.recursive(
    SCALAR,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text("xyz", max_size=2), inner, max_size=3)
    ),
    max_leaves=10,
)  # fmt: skip


def _spans(node: Node) -> Any:
    if node.kind == "object":
        return (
            node.kind,
            node.start,
            node.end,
            [(m.key, m.start, _spans(m.value)) for m in node.members],
        )
    if node.kind == "array":
        return (node.kind, node.start, node.end, [_spans(i) for i in node.items])
    return (node.kind, node.start, node.end, json.dumps(node.value))  # fmt: skip


def _containers(node: Node, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Node]]:
    out = [(path, node)] if node.kind != "scalar" else []
    if node.kind == "object":
        for m in node.members:
            out += _containers(m.value, (*path, m.key))
    elif node.kind == "array":
        for i, item in enumerate(node.items):
            out += _containers(item, (*path, i))
    return out


@pytest.fixture(autouse=True)
def _reuse_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonparse, "_NESTING_MIN", 1)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(st.text("abc", max_size=2), VALUE, max_size=4),
    st.sampled_from(["", "\r\n"]),
    st.lists(st.tuples(st.integers(0, 50), st.integers(0, 3), VALUE), min_size=1, max_size=6),
)
def test_edited_documents_equal_a_fresh_parse_of_their_text(
    start: dict[str, Any], crlf: str, edits: list[tuple[int, int, Any]]
) -> None:
    text = json.dumps(start, indent=2)
    doc = JsonDocument(text.replace("\n", crlf) if crlf else text)
    for pick, op, value in edits:
        places = _containers(doc.root)
        path, node = places[pick % len(places)]
        if node.kind == "object":
            keys = [m.key for m in node.members]
            if op == 0 and keys:
                doc = doc.remove_member(path, keys[pick % len(keys)])
            elif op == 1 and keys:
                doc, _ = doc.replace_value((*path, keys[pick % len(keys)]), value)
            else:
                key = f"k{pick}"
                while key in keys:  # a duplicate key would make paths ambiguous
                    key += "_"
                doc, _ = doc.add_member(path, key, value)
        else:
            n = len(node.items)
            if op == 0 and n:
                doc = doc.remove_item(path, pick % n)
            elif op == 1 and n:
                doc, _ = doc.replace_value((*path, pick % n), value)
            else:
                doc, _ = doc.append_item(path, value)
        fresh = JsonDocument(doc.text)
        assert doc.root.value == json.loads(doc.text)
        assert _spans(doc.root) == _spans(fresh.root)
        assert doc.newline == fresh.newline
