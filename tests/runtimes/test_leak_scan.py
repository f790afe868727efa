"""No file written for a non-Claude runtime carries Claude-only names it would not understand.

Scans every planned file and config entry of every adapter but Claude's, in both scopes:
``~/.claude``, ``.claude/``, ``CLAUDE.md``, ``$CLAUDE_PROJECT_DIR``, ``Task(`` calls, and
Claude tool names in frontmatter tool lists, unless the adapter declares that its runtime
really reads that name (``Adapter.claude_compat``).
"""

from __future__ import annotations

import json
import re

import pytest
from golden import context

from msd_install.installer.context import GLOBAL, LOCAL
from msd_install.payload import load
from msd_install.runtimes import ADAPTERS
from msd_install.runtimes.convert import CLAUDE_ONLY_TOOLS

OTHERS = sorted(n for n in ADAPTERS if n != "claude")
WORDS = (
    "~/.claude",
    ".claude/",
    "CLAUDE.md",
    "$CLAUDE_PROJECT_DIR",
    "CLAUDE_PROJECT_DIR",
    "Task(",
    "--claude",
    "Claude's",
)
TOOL_LINE = re.compile(r"^(?:tools|allowed-tools|allowed_tools):\s*(.*)$", re.M)
TOOL_ITEM = re.compile(r"^\s+-\s*\"?([A-Za-z_]+)\"?\s*$", re.M)


def _tool_names(text: str) -> set[str]:
    found: set[str] = set()
    if not text.startswith("---"):
        return found
    front = text.split("---", 2)[1]
    for match in TOOL_LINE.finditer(front):
        found |= {t.strip(" \"'[]") for t in match.group(1).split(",")}
    found |= set(TOOL_ITEM.findall(front))
    return found


@pytest.mark.skipif(not OTHERS, reason="no adapter besides Claude yet")
@pytest.mark.parametrize("name", OTHERS or ["-"])
@pytest.mark.parametrize("scope", [GLOBAL, LOCAL])
def test_no_claude_leaks(name: str, scope: str) -> None:
    runtime = ADAPTERS[name]
    if scope not in runtime.scopes:
        pytest.skip(f"{name} has no {scope} scope")
    allowed = runtime.claude_compat
    plan = runtime.plan(context(scope), load())
    leaks: list[str] = []
    for op in plan.files:
        if op.path.suffix in (".py", ".pyc") or "/msd-core/lib/" in op.path.as_posix():
            continue  # the stdlib runtime code names every runtime's variables on purpose
        try:
            text = op.content.decode("utf-8")
        except UnicodeDecodeError:
            continue
        for word in WORDS:
            if word in text and not any(a in word or word in a for a in allowed):
                leaks.append(f"{op.path}: {word}")
        bad = _tool_names(text) & set(CLAUDE_ONLY_TOOLS) - set(allowed)
        if bad:
            leaks.append(f"{op.path}: tools {sorted(bad)}")
    for entry in plan.entries:
        text = json.dumps(entry.value)
        for word in WORDS:
            if word in text and not any(a in word or word in a for a in allowed):
                leaks.append(f"{entry.file} {entry.label}: {word}")
    assert leaks == []
