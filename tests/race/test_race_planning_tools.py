"""Every planning tool, 10,000 tries each, while a second process swaps ``.planning/``, its
directories, documents and lock files for symlinks to a look-alike project outside the
workspace: no outside name or content returned, nothing outside changed or deleted."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from race_harness import (
    PLANNING_PLANTS,
    PLANNING_SWAPS,
    TOOLS,
    Layout,
    Scenario,
    project_files,
    race_dir,
    run,
    write_tree,
)

from msd_install.msdcore.toolspec import ToolContext, ToolError

PLAN = ".planning/phases/01-foundation/01-01-PLAN.md"
STATUSES = ("executing", "verifying")


def _p(**args: Any) -> dict[str, Any]:
    return {"project_path": "proj", **args}


def reset_project(layout: Layout) -> None:
    """Back to the pristine project (called while the attacker is paused)."""
    shutil.rmtree(layout.ws / "proj")
    write_tree(layout.ws / "proj", project_files("", "foundation", "first"))


def _add_a_todo(ctx: ToolContext, i: int) -> dict[str, Any]:
    try:
        return {"id": TOOLS["todo_add"].run(ctx, _p(title=f"t{i}"))["id"]}
    except ToolError:
        return {}  # raced: complete the first todo instead (or find it gone)


def _scenario(tool: str, args: Any, **extra: Any) -> Scenario:
    return Scenario(tool, args, PLANNING_SWAPS, PLANNING_PLANTS, reset=reset_project, **extra)


SCENARIOS = [
    _scenario("state_load", lambda i: _p()),
    _scenario("state_get", lambda i: _p(field="project")),
    _scenario("roadmap_analyze", lambda i: _p()),
    _scenario("roadmap_get_phase", lambda i: _p(number="1")),
    _scenario("phase_list", lambda i: _p()),
    _scenario("phase_next", lambda i: _p()),
    _scenario("config_get", lambda i: _p()),
    _scenario("progress", lambda i: _p()),
    _scenario("frontmatter_get", lambda i: _p(file=PLAN)),
    _scenario("frontmatter_validate", lambda i: _p(file=PLAN, schema="plan")),
    _scenario("verify_plan_structure", lambda i: _p(file=PLAN)),
    _scenario("verify_phase_completeness", lambda i: _p(number="1")),
    _scenario("todo_list", lambda i: _p(include_completed=True)),
    _scenario("state_update", lambda i: _p(field="status", value=STATUSES[i % 2])),
    _scenario("state_patch", lambda i: _p(changes={"stopped_at": f"s{i}", "current_plan": i})),
    _scenario("state_advance_plan", lambda i: _p()),
    # reset often: the phases and todos these add must not pile up and slow every call
    _scenario("phase_add", lambda i: _p(name=f"P{i}"), reset_every=25),
    _scenario("phase_insert", lambda i: _p(after="1", name=f"I{i}"), reset_every=25),
    _scenario("phase_complete", lambda i: _p(number=str(1 + i % 2), force=True)),
    _scenario("config_set", lambda i: _p(key="mode", value=("yolo", "interactive")[i % 2])),
    _scenario("frontmatter_set", lambda i: _p(file=PLAN, key="wave", value=i)),
    _scenario(
        "template_fill",
        lambda i: _p(name="todo.md", vars={"title": f"T{i}"}, out="notes/t.md", force=True),
    ),
    _scenario("todo_add", lambda i: _p(title=f"idea {i}"), reset_every=25),
    _scenario("todo_done", lambda i: _p(id="1"), before=_add_a_todo, reset_every=25),
]


@pytest.mark.parametrize(
    "scenario", SCENARIOS, ids=[f"{s.tool}-{n}" for n, s in enumerate(SCENARIOS)]
)
def test_no_escape_under_a_swapping_second_session(scenario: Scenario, tmp_path: Path) -> None:
    report = run(scenario, race_dir(tmp_path))
    assert report.escapes == []
    assert report.unexpected == []
    assert report.swaps > 100  # the attacker really was at work
    # and the tool still worked (how often depends on the attacker's timing: a loaded machine
    # lets it win more races, so only a floor)
    assert report.ok >= scenario.floor(report.tries), report.refused
