"""Nothing msd registers or tells an agent to run depends on a file's executable bit, which
Windows does not have: every command names the interpreter first."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from msd_install.installer.context import GLOBAL, LOCAL, Context
from msd_install.installer.plan import Plan
from msd_install.payload import load
from msd_install.runtimes import ADAPTERS

PY = "C:/Users/Jane Doe/AppData/Local/Programs/Python/Python312/python.exe"
CASES = [(name, scope) for name, ad in ADAPTERS.items() for scope in ad.scopes]


def windows_plan(name: str, scope: str) -> Plan:
    ctx = Context(
        home=Path("C:/Users/Jane Doe"),
        cwd=Path("C:/Users/Jane Doe/src/app"),
        platform="win32",
        interpreter=Path(PY),
        state_dir=Path("C:/Users/Jane Doe/AppData/Local/msd"),
        scope=scope,
    )
    return ADAPTERS[name].plan(ctx, load())


@pytest.mark.parametrize(("name", "scope"), CASES)
def test_every_registered_command_starts_with_the_interpreter(name: str, scope: str) -> None:
    plan = windows_plan(name, scope)
    runnable = {op.path.name for op in plan.files if op.mode & 0o111}
    named = 0
    for entry in plan.entries:
        text = json.dumps(entry.value, ensure_ascii=False)
        for script in runnable:
            if script in text:
                named += 1
                # python3 in a project file; CodeBuddy keeps a project's server in the home
                python = PY if scope == GLOBAL or PY in text else "python3"
                assert python in text, f"{entry.label} runs {script} without {python}: {text}"
                # the interpreter comes before the script, in the command line or the argv
                assert text.index(python) < text.index(script), text
    if name != "cline":  # Cline finds its hook files by name and runs them with bash
        assert named > 0


RUN = re.compile(r"msd-core/bin/msd-(?:tools|mcp)\b|hooks/msd-[a-z-]+\.py\b")
BY_INTERPRETER = re.compile(r"(?:python3?|<python>)(?:\s+-[A-Za-z]+)*\s+\S*$")


@pytest.mark.parametrize("scope", [GLOBAL, LOCAL])
def test_what_agents_are_told_to_run_names_the_interpreter(scope: str) -> None:
    """Workflows, agents and skills run ``python3 <root>/msd-core/bin/msd-tools ...``,
    never the tool alone (the launchers themselves are not instructions)."""
    seen = 0
    for name, _ in [c for c in CASES if c[1] == scope]:
        for op in windows_plan(name, scope).files:
            if op.path.suffix not in (".md", ".toml", ".json", ".yaml") or "bin" in op.path.parts:
                continue
            text = op.content.decode("utf-8")
            for match in RUN.finditer(text):
                line = text[text.rfind("\n", 0, match.start()) + 1 : match.start()]
                seen += 1
                assert BY_INTERPRETER.search(line), f"{name}: {op.path.name}: {line!r}"
    assert seen > 1000
