"""Integrity of the whole payload: every cross-reference in any payload file resolves.

Covers commands, router skills, agents, workflows, references and templates (both content
writers' files): ``~/.claude/msd-core/...`` paths, ``msd-tools`` calls (subcommand contract and
template names), spawned agents, ``/msd-*`` slash mentions and every other ``msd-*`` word.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from payload_corpus import (
    AGENTS,
    CORE,
    DATA,
    REFERENCES,
    TEMPLATES,
    Finding,
    check_agent_mentions,
    check_core_refs,
    check_slash_mentions,
    check_tools_calls,
    check_vocabulary,
    known_names,
    payload_files,
    rel,
)


def scan(check: object) -> list[str]:
    findings: list[Finding] = []
    for path in payload_files():
        findings += check(rel(path), path.read_text(encoding="utf-8"))  # type: ignore[operator]
    return [str(f) for f in findings]


def test_contract_files_of_the_other_writers_exist() -> None:
    missing = [f"agents/{a}.md" for a in AGENTS if not (DATA / "agents" / f"{a}.md").is_file()]
    missing += [f"references/{r}" for r in REFERENCES if not (CORE / "references" / r).is_file()]
    missing += [f"templates/{t}" for t in TEMPLATES if not (CORE / "templates" / t).is_file()]
    assert missing == []


def test_payload_is_not_empty() -> None:
    assert len(payload_files()) >= 50


def test_core_references_exist() -> None:
    assert scan(check_core_refs) == []


def test_msd_tools_calls_follow_the_contract() -> None:
    assert scan(check_tools_calls) == []


def test_spawned_agents_exist() -> None:
    agents_dir = DATA / "agents"
    assert scan(lambda w, t: check_agent_mentions(w, t, agents_dir)) == []


def test_slash_mentions_are_commands() -> None:
    commands_dir = DATA / "commands"
    assert scan(lambda w, t: check_slash_mentions(w, t, commands_dir)) == []


def test_every_msd_name_is_known() -> None:
    vocabulary = known_names(DATA / "hooks")
    assert scan(lambda w, t: check_vocabulary(w, t, vocabulary)) == []


# --- the scanners catch what they must (so the checks above can fail) ----------------------


@pytest.fixture
def tiny_core(tmp_path: Path) -> Path:
    core = tmp_path / "core"
    (core / "workflows").mkdir(parents=True)
    (core / "workflows" / "plan-phase.md").write_text("x", encoding="utf-8")
    (core / "templates" / "codebase").mkdir(parents=True)
    (core / "templates" / "plan.md").write_text("{{phase}} {{plan}} {{date}}", encoding="utf-8")
    (core / "templates" / "codebase" / "stack.md").write_text("x", encoding="utf-8")
    return core


def test_core_ref_scanner(tiny_core: Path) -> None:
    text = (
        "Read @~/.claude/msd-core/workflows/plan-phase.md.\n"
        "and @~/.claude/msd-core/workflows/nope.md\n"
        "dir ~/.claude/msd-core/workflows/*.md\n"
    )
    found = [str(f) for f in check_core_refs("f.md", text, tiny_core)]
    assert found == ["f.md:2: msd-core/workflows/nope.md does not exist"]


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("python3 ~/.claude/msd-core/bin/msd-tools state load", None),
        ("X=$(python3 ~/.claude/msd-core/bin/msd-tools phase next)", None),
        ("python3 ~/.claude/msd-core/bin/msd-tools init plan-phase --phase 3", None),
        ("python3 ~/.claude/msd-core/bin/msd-tools --cwd app progress --format bar", None),
        ("run `msd-tools template fill plan.md --out x` now", "misses --var"),
        ("run `msd-tools template fill codebase/stack --out x` now", None),
        ("`msd-tools state get <field>`", None),
        ("`msd-tools` keeps the state", None),
        ("python3 ~/.claude/msd-core/bin/msd-tools state frobnicate", "unknown msd-tools action"),
        ("python3 ~/.claude/msd-core/bin/msd-tools milestone add", "unknown msd-tools subcommand"),
        ("python3 ~/.claude/msd-core/bin/msd-tools init ship-it", "unknown workflow"),
        ("python3 ~/.claude/msd-core/bin/msd-tools roadmap", "needs one of"),
        ("`msd-tools template fill nope.md`", "does not exist"),
        ("bin/msd-tools template fill plan.md --out p.md --var phase=1 --var plan=01", None),
        ('bin/msd-tools template fill plan --var phase="1 a" --var plan=2 --var date=x', None),
        (
            "bin/msd-tools template fill plan.md --out p.md --var phase=1",
            "misses --var for ['plan']",
        ),
        (
            "bin/msd-tools template fill plan.md --var phase=1 --var plan=1 --var x=2",
            "no placeholder",
        ),
        ("bin/msd-tools template fill \\\n  plan.md --out p --var phase=1", "misses --var"),
    ],
)
def test_tools_call_scanner(tiny_core: Path, line: str, problem: str | None) -> None:
    found = check_tools_calls("f.md", line, tiny_core)
    if problem is None:
        assert found == []
    else:
        assert len(found) == 1 and problem in found[0].problem


def test_agent_scanner(tmp_path: Path) -> None:
    (tmp_path / "msd-planner.md").write_text("x", encoding="utf-8")
    text = (
        'subagent_type="msd-planner"\n'
        "  subagent_type: msd-plannr\n"
        "Spawn the `msd-verfier` with the phase.\n"
        "spawn 4 parallel msd-mapper agents\n"
        "the `msd-checker` agent reads it\n"
        "run /msd-plan-phase next; msd-tools is a CLI\n"
    )
    found = [str(f) for f in check_agent_mentions("a.md", text, tmp_path)]
    assert found == [
        "a.md:2: agent msd-plannr does not exist",
        "a.md:3: agent msd-verfier does not exist",
        "a.md:4: agent msd-mapper does not exist",
        "a.md:5: agent msd-checker does not exist",
    ]


def test_slash_scanner(tmp_path: Path) -> None:
    (tmp_path / "msd-help.md").write_text("x", encoding="utf-8")
    text = "Run /msd-help or (/msd-hlep); files in commands/msd-nope.md and ~/.claude/msd-x/\n"
    found = [str(f) for f in check_slash_mentions("c.md", text, tmp_path)]
    assert found == ["c.md:1: /msd-hlep is not a command"]


def test_vocabulary_scanner(tmp_path: Path) -> None:
    vocabulary = known_names(tmp_path)
    text = "msd-planner and msd-tools, msd-core/bin, /msd-help, msd-<name>, msd-plannerr\n"
    found = [str(f) for f in check_vocabulary("v.md", text, vocabulary)]
    assert found == ["v.md:1: unknown name msd-plannerr"]
