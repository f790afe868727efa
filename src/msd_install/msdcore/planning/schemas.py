"""Frontmatter schemas of the phase documents (PLAN, SUMMARY, VERIFICATION, CONTEXT).

Each schema maps a key to (required?, check). Checks are small predicates with a human label,
so an error reads "wave: expected a positive integer, got 0". Unknown keys are allowed: agents
may record more than the workflows need.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from . import phasenum

Check = tuple[str, Callable[[Any], bool]]


def _phase_ok(value: Any) -> bool:
    return (
        isinstance(value, (str, int))
        and not isinstance(value, bool)
        and bool(phasenum.NUMBER_RE.match(str(value)))
    )


def _str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, (str, int)) for v in value)


PHASE: Check = ("a phase number such as 2 or 2.1", _phase_ok)
PLAN_NO: Check = (
    "a plan number such as 01",
    lambda v: (
        isinstance(v, (str, int)) and not isinstance(v, bool) and bool(re.match(r"^\d+$", str(v)))
    ),
)
TEXT: Check = ("a string", lambda v: isinstance(v, str))
STR_LIST: Check = ("a list of strings", _str_list)
BOOL: Check = ("true or false", lambda v: isinstance(v, bool))
POS_INT: Check = (
    "a positive integer",
    lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 1,
)


def _enum(*choices: str) -> Check:
    return (f"one of {', '.join(choices)}", lambda v: v in choices)


SCHEMAS: dict[str, dict[str, tuple[bool, Check]]] = {
    "plan": {
        "phase": (True, PHASE),
        "plan": (True, PLAN_NO),
        "type": (True, _enum("execute", "tdd")),
        "wave": (True, POS_INT),
        "depends_on": (True, STR_LIST),
        "files_modified": (True, STR_LIST),
        "autonomous": (True, BOOL),
        "requirements": (True, STR_LIST),
    },
    "summary": {
        "phase": (True, PHASE),
        "plan": (True, PLAN_NO),
        "subsystem": (True, TEXT),
        "tags": (True, STR_LIST),
        "key-files": (False, ("a list or mapping", lambda v: isinstance(v, (list, dict)))),
        "decisions": (False, STR_LIST),
        "duration": (False, TEXT),
        "completed": (False, TEXT),
    },
    "verification": {
        "phase": (True, PHASE),
        "status": (True, _enum("passed", "gaps_found", "human_needed")),
        "score": (True, ("a score such as 5/7", lambda v: bool(re.match(r"^\d+/\d+$", str(v))))),
        "verified": (False, TEXT),
    },
    "context": {
        "phase": (True, PHASE),
        "phase_name": (False, TEXT),
        "gathered": (False, TEXT),
        "status": (False, TEXT),
    },
}


def validate(data: dict[str, Any], schema: str) -> list[str]:
    """Every problem of ``data`` against ``schema``, one readable line each."""
    errors = []
    for key, (required, (label, ok)) in SCHEMAS[schema].items():
        if key not in data:
            if required:
                errors.append(f"{key}: missing (required by the {schema} schema)")
            continue
        if not ok(data[key]):
            errors.append(f"{key}: expected {label}, got {data[key]!r}")
    return errors
