"""How deeply a YAML text nests its flow collections, before a parser sees it.

libyaml's C parser (ruamel.yaml.clib, which the payload's frontmatter and the YAML config
editor use) recurses once per ``[`` or ``{``: some 30,000 of them in a row overflow the C
stack and the process dies of SIGSEGV, with no message and no chance to say which file it
was. Python's own parser stops at its recursion limit instead, which is catchable. So a text
is measured first, and one nested deeper than ``MAX_FLOW_DEPTH`` is refused by its reader
in one line. The count ignores quoting (a bracket inside a quoted string counts too): it
errs towards refusing texts no one writes by hand, never towards a crash.
"""

from __future__ import annotations

MAX_FLOW_DEPTH = 1000


def too_deep(text: str, limit: int = MAX_FLOW_DEPTH) -> bool:
    """Do ``[`` and ``{`` in ``text`` nest more than ``limit`` deep at some point?"""
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
