"""How deeply a YAML text nests its flow collections, before a parser sees it.

libyaml's C parser (ruamel.yaml.clib, which the payload's frontmatter and the YAML config
editor use) recurses once per level of nesting: some 30,000 ``[`` or ``{`` in a row, or
block entries opened on one line (``- - - … x``, ``? ? ? … x``), overflow the C stack and
the process dies of SIGSEGV, with no message and no chance to say which file it was.
Python's own parser stops at its recursion limit instead, which is catchable. So a text is
measured first, and one nested deeper than ``MAX_FLOW_DEPTH`` is refused by its reader in
one line: flow collections counted over the whole text, block levels per line (its
indentation, and the entries it opens). The count ignores quoting (a bracket inside a quoted
string counts too): it errs towards refusing texts no one writes by hand, never towards a
crash. (Deep nesting by indentation alone needs lines of thousands of spaces: counted too.)
"""

from __future__ import annotations

import re

MAX_FLOW_DEPTH = 1000


# a line's leading block indicators: ``- ``, ``? ``, ``: `` (each may be followed by a
# node's anchor or tag before the next one)
_OPENERS = re.compile(r"(?:[-?:](?:[ \t]+|$)(?:[&!][^ \t]*[ \t]+)*)+")


def too_deep(text: str, limit: int = MAX_FLOW_DEPTH) -> bool:
    """Do ``[`` and ``{`` in ``text`` nest more than ``limit`` deep at some point, or does a
    line's indentation and the block entries it opens go deeper than ``limit``?"""
    return _block_too_deep(text, limit) or _flow_too_deep(text, limit)


def _block_too_deep(text: str, limit: int) -> bool:
    if len(text) <= limit:  # no line can hold ``limit`` levels
        return False
    for line in text.splitlines():
        if len(line) <= limit:
            continue
        stripped = line.lstrip(" ")
        indent = len(line) - len(stripped)
        found = _OPENERS.match(stripped)
        opened = found.group().count("-") + found.group().count("?") if found else 0
        if found:
            opened += found.group().count(":")
        if indent + opened > limit:
            return True
    return False


def _flow_too_deep(text: str, limit: int) -> bool:
    if text.count("[") + text.count("{") <= limit:  # the common case: one pass in C
        return False
    depth = 0
    for char in text:
        if char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}" and depth:
            depth -= 1
    return False
