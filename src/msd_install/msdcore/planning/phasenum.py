"""Phase numbers (``2``, ``2.1``, ``2.1.1``), their directory names and file prefixes.

A phase number is a dot-separated list of non-negative integers compared numerically, so
``2 < 2.1 < 2.1.1 < 2.2 < 3`` and ``2.10`` sorts after ``2.9``. On disk the first component is
zero-padded to two digits: phase 2.1 "Hot fix" lives in ``.planning/phases/02.1-hot-fix/`` and
its files start with ``02.1-`` (``02.1-CONTEXT.md``, ``02.1-01-PLAN.md``).

Decimal numbering: inserting after phase ``X`` creates ``X.k`` where ``k`` is one more than the
highest existing direct child of ``X`` (after 2: 2.1, then 2.2). Inserting after a decimal phase
nests one level deeper (after 2.1: 2.1.1), so an insert always lands right behind its anchor and
no existing phase is ever renumbered.
"""

from __future__ import annotations

import re

from ..toolspec import ToolError

NUMBER_RE = re.compile(r"^\d+(?:\.\d+)*$")
DIR_RE = re.compile(r"^(?P<num>\d+(?:\.\d+)*)(?:-(?P<slug>.+))?$")
PLAN_RE = re.compile(r"^(?P<num>\d+(?:\.\d+)*)-(?P<plan>\d+)-PLAN\.md$")
SUMMARY_RE = re.compile(r"^(?P<num>\d+(?:\.\d+)*)-(?P<plan>\d+)-SUMMARY\.md$")

PhaseKey = tuple[int, ...]


def parse(text: object) -> PhaseKey:
    """``"02.1"`` -> ``(2, 1)``; anything else is an ``invalid_phase`` error."""
    value = str(text).strip() if isinstance(text, (str, int)) and not isinstance(text, bool) else ""
    if len(value) > 32 or not NUMBER_RE.match(value):
        raise ToolError("invalid_phase", f"{text!r}: a phase number looks like 3 or 2.1")
    return tuple(int(part) for part in value.split("."))


def canonical(key: PhaseKey) -> str:
    """``(2, 1)`` -> ``"2.1"`` (no padding): the form used in JSON and ROADMAP.md."""
    return ".".join(str(part) for part in key)


def prefix(key: PhaseKey) -> str:
    """``(2, 1)`` -> ``"02.1"``: the form used in directory and file names."""
    head, *rest = key
    return ".".join([f"{head:02d}", *(str(part) for part in rest)])


def slugify(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return slug[:48].rstrip("-") or "phase"


def dir_name(key: PhaseKey, name: str) -> str:
    return f"{prefix(key)}-{slugify(name)}"


def next_child(anchor: PhaseKey, existing: list[PhaseKey]) -> PhaseKey:
    """The number for a phase inserted after ``anchor`` (see the module docstring)."""
    depth = len(anchor) + 1
    children = [k[-1] for k in existing if len(k) == depth and k[:-1] == anchor]
    return (*anchor, max(children, default=0) + 1)


def next_integer(existing: list[PhaseKey]) -> PhaseKey:
    return (max((k[0] for k in existing), default=0) + 1,)
