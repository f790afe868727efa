"""The planning ToolSpecs: schemas, results that match their output schemas, the same answers
as the CLI, ``project_path`` confinement, touched paths, and one call through the real server."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from msdtools_util import cli_env, ok

from msd_install.msdcore.callguard import CallGuard, Change
from msd_install.msdcore.mcp.schema import unsupported_keywords
from msd_install.msdcore.planning.tools import PLANNING_TOOLS
from msd_install.msdcore.toolspec import ToolContext, ToolError, ToolSpec

BY_NAME = {t.name: t for t in PLANNING_TOOLS}
PLAN = ".planning/phases/02-accounts/02-01-PLAN.md"

# One valid call per tool, against the sample project (which sits at <root>/proj).
CALLS: dict[str, dict[str, Any]] = {
    "state_load": {},
    "state_get": {"field": "status"},
    "roadmap_analyze": {},
    "roadmap_get_phase": {"number": "2"},
    "phase_list": {},
    "phase_next": {},
    "config_get": {"key": "workflow.research"},
    "progress": {"format": "bar"},
    "frontmatter_get": {"file": PLAN},
    "frontmatter_validate": {"file": PLAN, "schema": "plan"},
    "verify_plan_structure": {"file": PLAN},
    "verify_phase_completeness": {"number": "2"},
    "todo_list": {"include_completed": True},
    "state_update": {"field": "current_plan", "value": 2},
    "state_patch": {"changes": {"status": "executing", "blockers": ["x"]}},
    "state_advance_plan": {},
    "phase_add": {"name": "Billing", "goal": "Users can pay"},
    "phase_insert": {"after": "1", "name": "Hot fix"},
    "phase_complete": {"number": "1"},
    "config_set": {"key": "mode", "value": "yolo"},
    "frontmatter_set": {"file": PLAN, "key": "wave", "value": 2},
    "template_fill": {"name": "todo.md", "vars": {"title": "T"}, "out": "notes/todo.md"},
    "todo_add": {"title": "Cache it"},
    "todo_done": {"id": "1"},
}


def _ctx(project: Path) -> ToolContext:
    return ToolContext(root=project.parent.resolve(), env={})


def _call(spec: ToolSpec, project: Path, args: dict[str, Any]) -> dict[str, Any]:
    return spec.run(_ctx(project), {"project_path": "proj", **args})


def test_every_operation_is_a_tool_with_strict_inputs() -> None:
    assert sorted(BY_NAME) == sorted(CALLS)
    assert len(BY_NAME) == len(PLANNING_TOOLS)
    for spec in PLANNING_TOOLS:
        jsonschema.Draft202012Validator.check_schema(spec.input_schema)
        jsonschema.Draft202012Validator.check_schema(spec.output_schema)
        assert unsupported_keywords(spec.input_schema) == set(), spec.name
        assert spec.input_schema["additionalProperties"] is False
        assert "project_path" in spec.input_schema["properties"]
        jsonschema.validate({"project_path": "proj", **CALLS[spec.name]}, spec.input_schema)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_results_match_the_output_schema(project: Path, name: str) -> None:
    if name == "todo_done":
        ok(project, "todo", "add", "First")
    spec = BY_NAME[name]
    out = _call(spec, project, CALLS[name])
    jsonschema.validate(out, spec.output_schema)


@pytest.mark.parametrize(
    ("name", "cli"),
    [
        ("roadmap_analyze", ["roadmap", "analyze"]),
        ("phase_list", ["phase", "list"]),
        ("progress", ["progress", "--format", "bar"]),
        ("config_get", ["config", "get", "workflow.research"]),
        ("frontmatter_get", ["frontmatter", "get", PLAN]),
        ("verify_plan_structure", ["verify", "plan-structure", PLAN]),
        ("state_get", ["state", "get", "status"]),
    ],
)
def test_tool_and_cli_give_the_same_answer(project: Path, name: str, cli: list[str]) -> None:
    assert _call(BY_NAME[name], project, CALLS[name]) == ok(project, *cli)


@pytest.mark.parametrize("bad", ["..", "../..", "/", "/etc", "proj/../../x", "outlink", "C:\\x"])
def test_project_path_is_confined(project: Path, tmp_path: Path, bad: str) -> None:
    (project.parent / "outlink").symlink_to(tmp_path.parent)
    for spec in (BY_NAME["state_load"], BY_NAME["state_update"]):
        with pytest.raises(ToolError) as info:
            spec.run(_ctx(project), {"project_path": bad, "field": "status", "value": "x"})
        assert info.value.code in ("outside_workspace", "invalid_path")


def test_file_arguments_stay_inside_the_project(project: Path) -> None:
    (project.parent / "sibling.md").write_text("---\nk: 1\n---\n")
    with pytest.raises(ToolError) as info:
        _call(BY_NAME["frontmatter_get"], project, {"file": "../sibling.md"})
    assert info.value.code == "outside_project"
    with pytest.raises(ToolError):
        _call(BY_NAME["template_fill"], project, {"name": "config.json", "out": "../x.json"})
    assert not (project.parent / "x.json").exists()


def test_project_path_must_be_a_directory(project: Path) -> None:
    with pytest.raises(ToolError) as info:
        BY_NAME["phase_list"].run(_ctx(project), {"project_path": "proj/src/app.py"})
    assert info.value.code == "not_found"


def _tree(top: Path) -> dict[str, str]:
    """Every entry below ``top``: a file's sha256, or 'dir' / 'link'."""
    out = {}
    for path in top.rglob("*"):
        rel = path.relative_to(top).as_posix()
        if path.is_symlink():
            out[rel] = "link"
        elif path.is_dir():
            out[rel] = "dir"
        else:
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


@pytest.mark.parametrize("name", sorted(n for n, s in BY_NAME.items() if not s.read_only))
def test_the_journal_names_exactly_what_changes(project: Path, name: str) -> None:
    if name == "todo_done":
        ok(project, "todo", "add", "First")
    journaled: list[Change] = []
    guard = CallGuard(journal=journaled.append)
    ctx = ToolContext(root=project.parent.resolve(), env={}, guard=guard)
    before = _tree(project.parent)
    BY_NAME[name].run(ctx, {"project_path": "proj", **CALLS[name]})
    after = _tree(project.parent)
    changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    named = {c.path for c in journaled} | {c.to for c in journaled if c.to}
    assert named == changed, name
    assert guard.changes == journaled  # every announced change happened
    for change in journaled:  # and the hashes are what is on disk now
        if change.op in ("write", "create"):
            assert after[change.path] == change.after_sha256
            assert before.get(change.path) == change.before_sha256


def test_a_planning_tool_through_the_real_server_is_audited(
    project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    audit = tmp_path_factory.mktemp("audit") / "log.jsonl"  # outside the workspace
    env = cli_env({"MSD_WORKSPACE": str(project.parent), "MSD_AUDIT_LOG": str(audit)})
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {
                "name": "phase_insert",
                "arguments": {"project_path": "proj", "after": "1", "name": "Hot fix"},
            },
        },
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {
                "name": "state_get",
                "arguments": {"project_path": "../", "field": "status"},
            },
        },
    ]
    proc = subprocess.run(
        [sys.executable, "-m", "msd_install.msdcore.mcp"],
        input="".join(json.dumps(r) + "\n" for r in requests),
        env=env,
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
    )
    replies = {m["id"]: m for m in map(json.loads, proc.stdout.splitlines())}
    assert set(replies) == {1, 2, 3}, proc.stdout + proc.stderr
    inserted = replies[2]["result"]
    assert inserted["isError"] is False and inserted["structuredContent"]["number"] == "1.1"
    assert json.loads(inserted["content"][0]["text"]) == inserted["structuredContent"]
    assert replies[3]["result"]["isError"] is True
    assert (project / ".planning/phases/01.1-hot-fix").is_dir()
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    intents = [r for r in records if r["stage"] == "intent"]
    record = next(r for r in records if r["stage"] == "outcome")
    assert record["tool"] == "phase_insert" and record["outcome"] == "ok"
    assert {r["path"] for r in intents} == {
        "proj/.planning/ROADMAP.md",
        "proj/.planning/STATE.md",
        "proj/.planning/phases/01.1-hot-fix",
    }
    changed = {p["path"]: p for p in record["paths"]}
    assert set(changed) == {i["path"] for i in intents}
    files = {k: v for k, v in changed.items() if not k.endswith("hot-fix")}
    assert all(p["before_sha256"] != p["after_sha256"] for p in files.values())
    assert os.stat(audit).st_size > 0
