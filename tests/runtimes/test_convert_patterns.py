"""The conversion's patterns, rewritten to start with their literal (issue 11: a lookbehind
first made the regex engine try it at every character), find exactly what the patterns they
replace found: on every payload text, on traps, and on a generated corpus."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from msd_install.runtimes import convert

DATA = Path(convert.__file__).resolve().parent.parent / "payload" / "data"

# the patterns as they were (runtimes/convert.py before issue 11's rewrite)
BEFORE = {
    "_FILE_REF": re.compile(
        r"(?<![\w@`])@(?P<path>(?:~/|\.{1,2}/|/|\.[A-Za-z])[^\s)\]`'\"<>,;]*[^\s)\]`'\"<>,;.:])"
    ),
    "_INVOKE": re.compile(r"(?<![\w/.~-])/(?P<name>msd-[a-z][a-z0-9-]*)\b"),
    "_TASK": re.compile(r"\bTask\(\s*\n(?P<body>(?:[^\n]*\n){1,80}?)\s*\)", re.M),
    "_INLINE_TASK": re.compile(r'\bTask\((?P<body>(?:\s*\w+="[^"\n]*",?)+)\s*\)'),
}

TRAPS = [
    "see @~/.claude/x.md: first",
    "a@~/b @~/c `@~/d` @@~/e x_@./f é@./g 1@/h",
    "x@~/@~/foo and ~/@./bar /@/baz",
    "/msd-help a/msd-x .~/msd-y -/msd-z _/msd-w é/msd-v //msd-u (/msd-plan) /msd-",
    "/msd-a/msd-b /msd-c-d- /msd-1 /msd-é",
    'Task(\n  subagent_type="a",\n  prompt="b"\n) xTask(\nq\n) _Task(\nq\n) éTask(\nq\n)',
    'Task(subagent_type="a", prompt="b") aTask(x="1") 1Task(x="2") (Task(x="3")',
    "",
    "@",
    "/msd-",
    "Task(",
]


def _same(text: str) -> None:
    for name, before in BEFORE.items():
        now: re.Pattern[str] = getattr(convert, name)
        old = [(m.span(), m.groupdict()) for m in before.finditer(text)]
        new = [(m.span(), m.groupdict()) for m in now.finditer(text)]
        assert new == old, (name, text[:200])


def test_same_matches_on_every_payload_text_and_the_traps() -> None:
    texts = [p.read_text(encoding="utf-8") for p in sorted(DATA.rglob("*.md"))]
    assert len(texts) > 50
    for text in [*texts, *TRAPS]:
        _same(text)


PIECES = ["@", "/", "msd-", "~/", "./", "../", ".", "`", "_", "a", "z", "1", "-", "é", " "]
PIECES += ["\n", "Task(", '="v",', "x", ":", ",", ")", "(", "]", "@@", "Task", "é"]
ALPHABET = st.sampled_from(PIECES)


@settings(max_examples=600, deadline=None)
@given(st.lists(ALPHABET, max_size=40).map("".join))
def test_same_matches_on_generated_text(text: str) -> None:
    _same(text)
