"""Every file tool, 10,000 tries each, while a second process swaps what it touches for symlinks
to the outside: no read of the outside, no change to it, no link left pointing out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from race_harness import FILE_PLANTS, FILE_SWAPS, Layout, Scenario, race_dir, run


def _edit(i: int) -> dict[str, Any]:
    old, new = ("v0", "v1") if i % 2 == 0 else ("v1", "v0")
    return {"path": "d/f.txt", "edits": [{"old_text": old, "new_text": new}]}


def _move(i: int) -> dict[str, Any]:
    a, b = ("d/f.txt", "d/e/f.txt") if i % 2 == 0 else ("d/e/f.txt", "d/f.txt")
    return {"source": a, "destination": b}


def _described_outside(out: Any) -> bool:
    return bool(out.get("has_planning"))  # only the outside 'd' has a .planning/


def _outside_stat(out: Any) -> bool:
    return out.get("mode") == "0640"  # the outside secret's mode; nothing inside has it


SCENARIOS = [
    Scenario("read_text_file", lambda i: {"path": "d/f.txt"}, FILE_SWAPS),
    Scenario("read_text_file", lambda i: {"path": "d/e/g.txt"}, FILE_SWAPS),
    Scenario("get_file_info", lambda i: {"path": "d/f.txt"}, FILE_SWAPS, leaks=_outside_stat),
    Scenario("list_directory", lambda i: {"path": "d"}, FILE_SWAPS),
    Scenario("directory_tree", lambda i: {"path": ".", "max_depth": 4}, FILE_SWAPS),
    Scenario("search_files", lambda i: {"pattern": "*", "path": "d"}, FILE_SWAPS),
    Scenario(
        "workspace_info", lambda i: {"project_path": "d"}, FILE_SWAPS, leaks=_described_outside
    ),
    Scenario(
        "write_file", lambda i: {"path": "d/f.txt", "content": f"w{i}\n"}, FILE_SWAPS, FILE_PLANTS
    ),
    Scenario(
        "write_file",
        lambda i: {"path": "d/e/h.txt", "content": "x\n", "create_parents": True},
        FILE_SWAPS,
        FILE_PLANTS,
    ),
    Scenario("edit_file", _edit, FILE_SWAPS),
    Scenario("create_directory", lambda i: {"path": f"d/e/n{i}"}, FILE_SWAPS, FILE_PLANTS),
    Scenario("move_file", _move, FILE_SWAPS, FILE_PLANTS, min_ok=10),
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


def test_layout_is_what_the_scenarios_expect(tmp_path: Path) -> None:
    layout = Layout.make(tmp_path / "x")
    assert (layout.ws / "d" / "f.txt").read_text() == "hello v0\n"
    assert "CANARY" in (layout.outside / "d" / "f.txt").read_text()
    assert not (layout.ws / "d" / ".planning").exists()
