"""The guard's own shell-pattern matcher (msd-shell-pattern) agrees with bash on any pattern
and name, and stays linear: fnmatch.translate, which it replaces, took minutes on 1 MB of
unclosed brackets and knew neither `[^…]`, `[[:class:]]` nor backslash escapes."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import time
from types import ModuleType

import pytest
from hookkit import guard_helper
from hypothesis import given, settings
from hypothesis import strategies as st

BASH = shutil.which("bash")
PATTERN = st.text(alphabet=list("*?[]!^-\\:.ae"), max_size=12) | st.sampled_from(
    ["[[:alpha:]]*", "[![:digit:]]env", ".en[^x]", ".e[[:lower:]]v", "[a-]*", "[]a]*", "\\*"]
)
NAME = st.text(alphabet=list("*?[]!^-\\:.aeE1"), max_size=8)


@pytest.fixture(scope="module")
def guard() -> ModuleType:
    return guard_helper()


def bash_matches(pairs: list[tuple[str, str]]) -> list[bool]:
    """`[[ name == pattern ]]` for each pair, in one bash process (extglob off)."""
    assert BASH is not None
    data = "".join(f"{p}\0{n}\0" for p, n in pairs)
    script = (
        "while IFS= read -r -d '' p && IFS= read -r -d '' n; do "
        "[[ $n == $p ]] && echo 1 || echo 0; done"
    )
    out = subprocess.run(
        [BASH, "--norc", "-c", script], input=data, capture_output=True, text=True, check=True
    ).stdout.split()
    return [line == "1" for line in out]


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(PATTERN, NAME), min_size=1, max_size=60))
def test_patterns_match_as_in_bash(guard: ModuleType, pairs: list[tuple[str, str]]) -> None:
    guard.BUDGET.reset()
    ours = [bool(guard.pattern_match(p, n)) for p, n in pairs]
    assert ours == bash_matches(pairs), [
        (p, n, o) for (p, n), o, b in zip(pairs, ours, bash_matches(pairs), strict=True) if o != b
    ]


ENDS_IN_A_RANGE = ["[:-", "[a-", "[!a-", "x[a-", "*[a-", "[a-\\", "[:-x", "[a-x", "[:-a]", "[=a"]


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
def test_a_pattern_that_ends_inside_a_range_matches_nothing_as_in_bash(guard: ModuleType) -> None:
    """bash fails the whole match when the pattern ends inside a range (`[a-`); an unclosed
    bracket anywhere else is a plain `[` (found by the property test above: `[:-`)."""
    names = [*ENDS_IN_A_RANGE, ":", "-", "a", "[", "xa", "[a-\\"]
    pairs = [(p, n) for p in ENDS_IN_A_RANGE for n in names]
    guard.BUDGET.reset()
    ours = [bool(guard.pattern_match(p, n)) for p, n in pairs]
    assert ours == bash_matches(pairs)
    assert not guard.pattern_match("[a-", "[a-") and guard.pattern_match("[a-x", "[a-x")


@pytest.mark.parametrize(
    "pattern", ["[a" * 500_000, "[[:alpha:" * 100_000, "@(" * 500_000, "*a" * 500_000]
)
def test_a_hostile_pattern_is_decided_at_once(guard: ModuleType, pattern: str) -> None:
    guard.BUDGET.reset()
    started = time.process_time()
    with contextlib.suppress(guard.TooComplexError):  # out of budget: the caller refuses
        guard.pattern_match(pattern, ".env")
    assert time.process_time() - started < 1.0
