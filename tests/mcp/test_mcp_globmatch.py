"""The linear glob matcher: agrees with a regex translation of the same glob on every small
case hypothesis finds, and stays fast on patterns that make backtracking matchers explode."""

from __future__ import annotations

import re
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from msd_install.msdcore.globmatch import NamePattern, PathPattern, compile_glob

NAME_CHARS = "ab-]![*?"


def reference(pattern: str) -> re.Pattern[str]:
    """The same language as a regex: '*' and '?' within a name, classes as in fnmatch."""
    out, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            j = i + 1
            if j < len(pattern) and pattern[j] == "!":
                j += 1
            if j < len(pattern) and pattern[j] == "]":
                j += 1
            while j < len(pattern) and pattern[j] != "]":
                j += 1
            if j >= len(pattern):
                out.append(re.escape(ch))
            else:
                body = pattern[i + 1 : j]
                negate = body.startswith("!")
                body = body[1:] if negate else body
                items, k = [], 0
                while k < len(body):
                    if k + 2 < len(body) and body[k + 1] == "-":
                        lo, hi = body[k], body[k + 2]
                        items.append(f"{re.escape(lo)}-{re.escape(hi)}" if lo <= hi else "")
                        k += 3
                    else:
                        items.append(re.escape(body[k]))
                        k += 1
                inner = "".join(items)
                if negate:
                    out.append(f"[^/{inner}]")
                else:
                    out.append(f"(?!/)[{inner}]" if inner else "(?!)")
                i = j
        else:
            out.append(re.escape(ch))
        i += 1
    return re.compile("".join(out) + r"\Z", re.DOTALL)


@settings(max_examples=1000, deadline=None)
@given(st.text(NAME_CHARS, max_size=8), st.text("ab-]![", max_size=10))
def test_name_patterns_agree_with_the_regex(pattern: str, name: str) -> None:
    assert NamePattern(pattern).match(name) == bool(reference(pattern).match(name))


SEGMENT = st.sampled_from(["a", "b", "*", "a*", "*b", "?", "[ab]", "**"])


@settings(max_examples=600, deadline=None)
@given(st.lists(SEGMENT, min_size=1, max_size=5), st.lists(st.sampled_from("ab"), max_size=5))
def test_path_patterns_agree_with_the_component_regex(comps: list[str], names: list[str]) -> None:
    path = "/".join(names)
    # '**' as a component: any number of components; elsewhere it is '*'
    parts = []
    for c in comps:
        parts.append("(?:[^/]+(?:/[^/]+)*)?" if c == "**" else reference(c).pattern[:-2])
    rx = ""
    for n, (c, part) in enumerate(zip(comps, parts, strict=True)):
        if c == "**" and n < len(comps) - 1:
            rx += "(?:[^/]+/)*"
        elif c == "**":
            rx += "[^/]+(?:/[^/]+)*"  # trailing '**': something inside
        else:
            rx += part + ("/" if n < len(comps) - 1 else "")
    expected = bool(re.fullmatch(rx, path)) if names else False
    pattern = "/".join(comps) + ("/" if len(comps) == 1 else "")
    assert PathPattern(pattern).match(path) == expected, (pattern, path, rx)


def test_backtracking_patterns_stay_linear() -> None:
    name = "a" * 255
    started = time.monotonic()
    for pattern in ("*a" * 400 + "*b", "?*" * 300 + "b", "*[ab]" * 300 + "*c"):
        assert compile_glob(pattern)(name) is False
    deep = "/".join(["a" * 50] * 32)
    assert compile_glob("**/" * 100 + "b")(deep) is False
    assert time.monotonic() - started < 1.0


def test_gitignore_like_cases() -> None:
    m = compile_glob
    assert m("*.md")("readme.md") and not m("*.md")("readme.txt")
    assert m("docs/*.md")("docs/a.md") and not m("docs/*.md")("docs/x/a.md")
    assert m("docs/**/*.md")("docs/x/y/a.md") and m("docs/**/*.md")("docs/a.md")
    assert m("**/x")("x") and m("**/x")("a/b/x") and not m("**/x")("a/xy")
    assert m("a/**")("a/b") and not m("a/**")("a")
    assert m("[!.]*")("x") and not m("[!.]*")(".x")
    assert m("[")("[") and m("a[]b")("a[]b") and m("[]]")("]")
