"""Router skills: keyword-tag descriptions and a routing table that covers every command once."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from payload_corpus import COMMANDS, DATA, ROUTERS, command_path, load_frontmatter, router_path

TAGS = re.compile(r"^[a-z0-9-]+(?:\|[a-z0-9-]+)+$")
# A routing-table row: `| intent | `msd-<command>` | ... |`.
ROW = re.compile(r"^\|[^|]+\|\s*`(msd-[a-z0-9-]+)`\s*\|")


def routed(router: str) -> list[str]:
    _, body = load_frontmatter(router_path(router))
    return [m.group(1) for line in body.splitlines() if (m := ROW.match(line.strip()))]


def test_router_directories_are_exactly_the_contract() -> None:
    on_disk = sorted(p.name for p in (DATA / "skills").iterdir() if p.is_dir())
    assert on_disk == sorted(ROUTERS)


@pytest.mark.parametrize("router", ROUTERS)
def test_router_frontmatter(router: str) -> None:
    meta, _ = load_frontmatter(router_path(router))
    assert isinstance(meta, dict)
    assert set(meta) == {"name", "description"}
    assert meta["name"] == router
    description = meta["description"]
    assert isinstance(description, str)
    assert len(description) <= 60, f"{len(description)} chars"
    assert TAGS.match(description), "description must be pipe-separated keyword tags"


@pytest.mark.parametrize("router", ROUTERS)
def test_router_routes_somewhere_real(router: str) -> None:
    names = routed(router)
    assert names, "no routing rows"
    missing = [n for n in names if not command_path(n.removeprefix("msd-")).is_file()]
    assert missing == []


def test_every_command_is_routed_exactly_once() -> None:
    counts = Counter(name for router in ROUTERS for name in routed(router))
    expected = {f"msd-{c}" for c in COMMANDS}
    assert {n for n, k in counts.items() if k > 1} == set()
    assert set(counts) == expected


def test_routing_table_parser_sees_rows() -> None:
    """Guard the parser itself: a well-formed row is found, prose and the header are not."""
    rows = ["| Intent | Skill |", "|---|---|", "| plan the next phase | `msd-plan-phase` | `<N>` |"]
    found = [m.group(1) for r in rows if (m := ROW.match(r))]
    assert found == ["msd-plan-phase"]
