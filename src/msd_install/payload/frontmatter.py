"""Frontmatter parsing: a fast path for the plain shape payload files use, ruamel.yaml for the rest.

Payload frontmatter is a handful of ``key: value`` lines and ``key:`` + ``  - item`` lists.
Importing ruamel.yaml and running its loader on ~40 documents was a quarter of an install
(and linear in the number of commands: 6,700 documents at x100 took seconds). ``fast_parse``
reads only a strict subset of YAML whose meaning is never in doubt: plain scalars that cannot
resolve to anything but a string, double-quoted strings without escapes, and block lists of
those. Anything else returns None and goes to ruamel.yaml's safe loader, the parser of
record. tests/payload/test_frontmatter_fast.py proves both agree on every payload file and on
a generated corpus.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?: (.*))?")
_ITEM = re.compile(r"  - (.*)")
# a plain scalar that is a string under YAML 1.1 and 1.2 alike: it starts with a letter or one
# of a few safe characters, holds no indicator that could end it or start a comment, and does
# not end in a space; bool/null words are left to ruamel.yaml
_ODD = r"\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff"  # controls, line breaks, BOM
_PLAIN = re.compile(rf"[A-Za-z/(][^#:{_ODD}]*(?<! )")
_QUOTED = re.compile(rf'"([^"\\{_ODD}]*)"')
_WORDS = frozenset({"true", "false", "null", "yes", "no", "on", "off", "y", "n"})


def _scalar(text: str) -> str | None:
    if _PLAIN.fullmatch(text) and text.lower() not in _WORDS:
        return text
    quoted = _QUOTED.fullmatch(text)
    return quoted.group(1) if quoted else None


def fast_parse(text: str) -> dict[str, Any] | None:
    """The mapping ``text`` (a frontmatter block) means, or None when it is not in the subset."""
    out: dict[str, Any] = {}
    items: list[str] | None = None
    for line in text.split("\n"):
        item = _ITEM.fullmatch(line)
        if item is not None:
            value = _scalar(item.group(1))
            if items is None or value is None:
                return None
            items.append(value)
            continue
        key = _KEY.fullmatch(line)
        if key is None or key.group(1) in out or key.group(1).lower() in _WORDS:
            return None
        if items == []:  # ``key:`` with nothing under it is null, not a list
            return None
        raw = key.group(2)
        if raw is None:
            items = out[key.group(1)] = []
            continue
        value = _scalar(raw)
        if value is None:
            return None
        out[key.group(1)] = value
        items = None
    if items == [] or not out:
        return None
    return out


@cache
def _yaml() -> Any:
    """One safe loader for the whole payload; the C loader (ruamel.yaml.clib) when present."""
    from ruamel.yaml import YAML

    return YAML(typ="safe")


def slow_parse(text: str) -> Any:
    """ruamel.yaml's reading of ``text`` (raises its YAMLError; a ValueError for a text
    nested deeper than the C parser survives: ``yamldepth``)."""
    from io import StringIO

    from ..yamldepth import MAX_FLOW_DEPTH, too_deep

    if too_deep(text):
        raise ValueError(f"nested more than {MAX_FLOW_DEPTH} levels deep")
    return _yaml().load(StringIO(text))


def yaml_error() -> type[Exception]:
    from ruamel.yaml.error import YAMLError

    return YAMLError
