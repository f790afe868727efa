"""Agents, references and templates of the MSD Core payload, read straight from package data.

Agents: frontmatter (ruamel.yaml) with exactly the agreed keys and valid values, one file per
contract name, size budget, a documented return heading for every marker a workflow waits for.
Templates: every contract template exists, placeholders are snake_case and match the variables
each template documents, and a filled template's frontmatter passes msd-tools' own parser and
schema. References: the model-profile and config tables agree with msd-tools' tables, and every
``@~/.claude/msd-core/...`` reference in these files exists.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from payload_corpus import (
    AGENT_MAX_CHARS,
    AGENTS,
    CORE,
    DATA,
    REFERENCES,
    TEMPLATES,
    load_frontmatter,
    payload_files,
    rel,
    split_frontmatter,
)

from msd_install.msdcore import tools_cli
from msd_install.msdcore.planning import config as msd_config
from msd_install.msdcore.planning import models as msd_models
from msd_install.msdcore.planning import schemas as msd_schemas
from msd_install.msdcore.planning import yamlish

MSDCORE_SRC = DATA.parents[1] / "msdcore"
AGENT_KEYS = ("name", "description", "tools", "color", "model")
AGENT_TOOLS = frozenset(
    {"Read", "Write", "Edit", "Bash", "Grep", "Glob", "WebSearch", "WebFetch", "TodoWrite"}
)
COLORS = frozenset({"red", "blue", "green", "yellow", "purple", "orange", "pink", "cyan"})
TIERS = frozenset({"opus", "sonnet", "haiku", "inherit"})
# Written by the msd-tools author, whose parsers define their format; checked in tests/msdtools.
TOOLS_OWNED_TEMPLATES = frozenset({"roadmap.md", "state.md", "config.json"})
MY_TEMPLATES = tuple(t for t in TEMPLATES if t not in TOOLS_OWNED_TEMPLATES)
# Which msd-tools frontmatter schema each filled template must satisfy.
TEMPLATE_SCHEMA = {
    "plan.md": "plan",
    "summary.md": "summary",
    "verification.md": "verification",
    "context.md": "context",
}
# One realistic value per variable any template uses.
SAMPLE_VARS = {
    "phase": "02",
    "plan": "01",
    "phase_name": "Accounts",
    "phase_dir": ".planning/phases/02-accounts",
    "date": "2026-01-31",
    "project_name": "Tide Tables",
    "subsystem": "auth",
    "duration": "14min",
    "commit": "3f2a9c1",
    "title": "Retry failed webhooks",
    "slug": "login-loop",
    "trigger": "login page redirects forever",
    "task": "2",
}

PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}")
SNAKE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$")
VARS_DOC = re.compile(r"<!-- msd template: (?P<name>\S+) -> \S+\. Vars: (?P<vars>[a-z0-9_, ]+)\.")
AT_CORE_REF = re.compile(r"@~/\.claude/msd-core/([A-Za-z0-9_./-]+)")
RETURN_HEADING = re.compile(r"^## ([A-Z][A-Z ]+[A-Z])$", re.MULTILINE)


def agent_path(name: str) -> Path:
    return DATA / "agents" / f"{name}.md"


def template_path(name: str) -> Path:
    return CORE / "templates" / name


def my_files() -> list[Path]:
    return sorted(
        [agent_path(a) for a in AGENTS]
        + [CORE / "references" / r for r in REFERENCES]
        + [template_path(t) for t in MY_TEMPLATES]
    )


def fill(text: str) -> str:
    return PLACEHOLDER.sub(lambda m: SAMPLE_VARS[m.group(1)], text)


# --- agents --------------------------------------------------------------------------------


def test_agent_directory_is_exactly_the_contract() -> None:
    found = sorted(p.stem for p in (DATA / "agents").glob("*.md"))
    assert found == sorted(AGENTS)


@pytest.mark.parametrize("name", AGENTS)
def test_agent_frontmatter(name: str) -> None:
    meta, body = load_frontmatter(agent_path(name))
    assert isinstance(meta, dict), "frontmatter missing or not a mapping"
    assert tuple(meta) == AGENT_KEYS
    assert meta["name"] == name == agent_path(name).stem
    description = meta["description"]
    assert isinstance(description, str) and 40 <= len(description) <= 400
    assert isinstance(meta["tools"], str), "tools is a comma-separated string, not a list"
    tools = [t.strip() for t in meta["tools"].split(",")]
    assert tools and set(tools) <= AGENT_TOOLS, set(tools) - AGENT_TOOLS
    assert len(tools) == len(set(tools))
    assert meta["color"] in COLORS
    assert meta["model"] in TIERS
    assert len(body.strip()) > 2000, "an agent prompt this short cannot carry its process"


@pytest.mark.parametrize("name", AGENTS)
def test_agent_size_budget(name: str) -> None:
    assert len(agent_path(name).read_text(encoding="utf-8")) < AGENT_MAX_CHARS


@pytest.mark.parametrize("name", AGENTS)
def test_agent_model_is_its_balanced_tier(name: str) -> None:
    meta, _ = load_frontmatter(agent_path(name))
    assert meta["model"] == msd_models.PROFILES["balanced"][name]


@pytest.mark.parametrize("name", AGENTS)
def test_agent_documents_a_return_heading(name: str) -> None:
    _, body = load_frontmatter(agent_path(name))
    assert RETURN_HEADING.search(body), "no '## HEADING' return marker for the orchestrator"


def test_agents_that_write_files_have_write_and_readers_do_not() -> None:
    # The plan checker is a read-only gate: it returns issues and never edits plans.
    meta, _ = load_frontmatter(agent_path("msd-plan-checker"))
    assert not {"Write", "Edit"} & {t.strip() for t in meta["tools"].split(",")}
    for name in AGENTS:
        if name != "msd-plan-checker":
            meta, _ = load_frontmatter(agent_path(name))
            assert "Write" in meta["tools"], name


_SPAWN = re.compile(r"Task\((?P<call>.*?)\n\s*\)", re.DOTALL)
_SUBAGENT = re.compile(r"subagent_type\s*=\s*\"(msd-[a-z-]+)\"")
_MARKER = re.compile(r"## ([A-Z][A-Z ]+[A-Z])\b")


def spawn_contracts() -> list[tuple[str, str, str]]:
    """(workflow, agent, heading) for every return heading a workflow asks a spawned agent for."""
    out = []
    for workflow in sorted((CORE / "workflows").glob("*.md")):
        for call in _SPAWN.finditer(workflow.read_text(encoding="utf-8")):
            agent = _SUBAGENT.search(call.group("call"))
            if agent:
                out += [
                    (workflow.stem, agent.group(1), m.group(1))
                    for m in _MARKER.finditer(call.group("call"))
                ]
    return out


def test_every_heading_a_workflow_waits_for_is_one_its_agent_returns() -> None:
    contracts = spawn_contracts()
    missing = [
        f"{workflow}: {agent} never returns '## {heading}'"
        for workflow, agent, heading in contracts
        if agent_path(agent).is_file()
        and f"## {heading}" not in agent_path(agent).read_text(encoding="utf-8")
    ]
    assert missing == []


# --- templates -----------------------------------------------------------------------------


def test_every_contract_template_exists() -> None:
    assert [t for t in MY_TEMPLATES if not template_path(t).is_file()] == []


def test_no_template_outside_the_contract() -> None:
    found = {rel(p).removeprefix("core/templates/") for p in (CORE / "templates").rglob("*")}
    found = {f for f in found if template_path(f).is_file()}
    assert found <= set(TEMPLATES)


@pytest.mark.parametrize("name", MY_TEMPLATES)
def test_template_placeholders_are_snake_case(name: str) -> None:
    text = template_path(name).read_text(encoding="utf-8")
    bad = [p for p in PLACEHOLDER.findall(text) if not SNAKE.match(p)]
    assert bad == []
    # A lone brace pair would be left in the output unfilled.
    assert text.count("{{") == text.count("}}") == len(PLACEHOLDER.findall(text))


@pytest.mark.parametrize("name", MY_TEMPLATES)
def test_template_documents_exactly_its_variables(name: str) -> None:
    text = template_path(name).read_text(encoding="utf-8")
    doc = VARS_DOC.search(text)
    assert doc, "missing '<!-- msd template: <name> -> <dest>. Vars: a, b. -->' comment"
    assert doc.group("name") == name
    documented = {v.strip() for v in doc.group("vars").split(",")}
    assert documented == set(PLACEHOLDER.findall(text))
    assert documented <= set(SAMPLE_VARS)
    for comment in re.findall(r"<!--.*?-->", text, re.DOTALL):
        assert "{{" not in comment


@pytest.mark.parametrize("name", MY_TEMPLATES)
def test_filled_template_frontmatter_parses_with_msd_tools_parser(name: str) -> None:
    raw, _ = split_frontmatter(fill(template_path(name).read_text(encoding="utf-8")))
    if name in TEMPLATE_SCHEMA:
        assert raw is not None, "this template must start with frontmatter"
    if raw is None:
        return
    data = yamlish.parse(raw)
    assert isinstance(data, dict) and data
    if name in TEMPLATE_SCHEMA:
        assert msd_schemas.validate(data, TEMPLATE_SCHEMA[name]) == []


def test_plan_template_has_the_task_shape_executors_follow() -> None:
    body = split_frontmatter(template_path("plan.md").read_text(encoding="utf-8"))[1]
    assert "<tasks>" in body and "</tasks>" in body
    tasks = re.findall(r'<task type="auto">(.*?)</task>', body, re.DOTALL)
    assert tasks
    for task in tasks:
        for element in ("name", "files", "action", "verify", "done"):
            assert f"<{element}>" in task and f"</{element}>" in task, element


def msd_tools(
    cwd: Path, *args: str, capsys: pytest.CaptureFixture[str]
) -> tuple[int, dict[str, Any]]:
    """Run msd-tools' CLI entry in-process (a subprocess per call would cost ~0.2 s each)."""
    capsys.readouterr()
    code = tools_cli.main(["--cwd", str(cwd), *args])
    return code, json.loads(capsys.readouterr().out)


def installed_msd_tools(tmp_path: Path) -> Path:
    """A copy of the runtime side laid out as installed: <root>/msd-core/{bin,lib,templates}."""
    core = tmp_path / "root" / "msd-core"
    shutil.copytree(MSDCORE_SRC, core / "lib" / "msdcore")
    shutil.copytree(CORE / "templates", core / "templates")
    (core / "bin").mkdir()
    shutil.copy2(CORE / "bin" / "msd-tools", core / "bin" / "msd-tools")
    return core / "bin" / "msd-tools"


def documented_vars(name: str) -> list[str]:
    doc = VARS_DOC.search(template_path(name).read_text(encoding="utf-8"))
    assert doc
    return sorted(v.strip() for v in doc.group("vars").split(","))


def test_msd_tools_fills_every_template_with_its_documented_vars(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".planning").mkdir()
    for name in MY_TEMPLATES:
        out = f".planning/out/{name}"
        var_args = [a for v in documented_vars(name) for a in ("--var", f"{v}={SAMPLE_VARS[v]}")]
        code, result = msd_tools(
            tmp_path, "template", "fill", name, "--out", out, *var_args, capsys=capsys
        )
        assert code == 0, result
        written = (tmp_path / out).read_text(encoding="utf-8")
        assert "{{" not in written and "}}" not in written
        assert written == fill(template_path(name).read_text(encoding="utf-8"))
        if name in TEMPLATE_SCHEMA:
            code, result = msd_tools(
                tmp_path,
                "frontmatter",
                "validate",
                out,
                "--schema",
                TEMPLATE_SCHEMA[name],
                capsys=capsys,
            )
            assert (code, result["valid"], result["errors"]) == (0, True, []), name


def test_installed_msd_tools_fills_the_plan_and_flags_the_unwritten_task(tmp_path: Path) -> None:
    # The way agents really run it: the launcher of an installed tree, isolated, no site.
    launcher = installed_msd_tools(tmp_path)
    project = tmp_path / "project"
    (project / ".planning").mkdir(parents=True)
    out = ".planning/phases/02-accounts/02-01-PLAN.md"
    var_args = [a for v in documented_vars("plan.md") for a in ("--var", f"{v}={SAMPLE_VARS[v]}")]

    def run(*args: str) -> dict[str, Any]:
        proc = subprocess.run(
            [sys.executable, "-I", "-S", str(launcher), *args],
            cwd=project,
            capture_output=True,
            text=True,
            timeout=60,
        )
        result: dict[str, Any] = json.loads(proc.stdout)
        return result

    assert run("template", "fill", "plan.md", "--out", out, *var_args)["path"] == out
    assert (project / out).read_text(encoding="utf-8") == fill(
        template_path("plan.md").read_text(encoding="utf-8")
    )
    result = run("verify", "plan-structure", out)
    assert [t["type"] for t in result["tasks"]] == ["auto", "auto"]
    # Task 1 holds only guidance comments: a planner that leaves it unwritten gets caught.
    assert result["valid"] is False
    assert result["errors"] == [
        "task 1: <action> is empty",
        "task 1: <verify> is empty",
        "task 1: <done> is empty",
    ]


_FILL_CALL = re.compile(r"template fill ([\w./-]+)([^`\n]*)")


def test_every_template_fill_call_passes_exactly_the_template_vars() -> None:
    # msd-tools refuses unknown --var names and unfilled placeholders (date defaults to today).
    # Only calls that write a file (--out) are complete invocations; prose may name a template.
    problems = []
    for path in payload_files():
        text = path.read_text(encoding="utf-8").replace("\\\n", " ")
        for call in _FILL_CALL.finditer(text):
            name = call.group(1)
            if "--out" not in call.group(2):
                continue
            target = next(
                (template_path(n) for n in (name, f"{name}.md") if template_path(n).is_file()),
                None,
            )
            if target is None:
                continue  # dangling names are reported by the integrity test
            used = set(PLACEHOLDER.findall(target.read_text(encoding="utf-8")))
            given = set(re.findall(r"--var\s+([a-z_][a-z0-9_]*)=", call.group(2)))
            if given - used or used - given - {"date"}:
                problems.append(f"{rel(path)}: {name} given {sorted(given)}, uses {sorted(used)}")
    assert problems == []


def test_codebase_templates_record_the_mapped_commit() -> None:
    for name in (t for t in MY_TEMPLATES if t.startswith("codebase/")):
        raw, _ = split_frontmatter(fill(template_path(name).read_text(encoding="utf-8")))
        assert raw is not None
        assert yamlish.parse(raw)["last_mapped_commit"] == SAMPLE_VARS["commit"], name


# --- references and cross-references ------------------------------------------------------


def test_every_contract_reference_exists() -> None:
    assert [r for r in REFERENCES if not (CORE / "references" / r).is_file()] == []


def test_at_references_in_these_files_exist() -> None:
    dangling = [
        f"{rel(path)}: @~/.claude/msd-core/{target}"
        for path in my_files()
        for target in AT_CORE_REF.findall(path.read_text(encoding="utf-8"))
        if not (CORE / target.rstrip(".,;:)")).exists()
    ]
    assert dangling == []


def _table_rows(text: str, first_cell: str) -> list[list[str]]:
    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and re.match(first_cell, cells[0]):
            rows.append(cells)
    return rows


def test_model_profiles_reference_matches_msd_tools_table() -> None:
    text = (CORE / "references" / "model-profiles.md").read_text(encoding="utf-8")
    rows = _table_rows(text, r"msd-")
    documented = {
        profile: {row[0]: row[i] for row in rows}
        for i, profile in enumerate(("quality", "balanced", "budget"), start=1)
    }
    expected = {p: msd_models.PROFILES[p] for p in ("quality", "balanced", "budget")}
    assert documented == expected


def test_planning_config_reference_matches_msd_tools_defaults() -> None:
    text = (CORE / "references" / "planning-config.md").read_text(encoding="utf-8")
    rows = _table_rows(text, r"`[a-z_.]+`$")
    documented = {row[0].strip("`"): row[2].strip("`") for row in rows}
    assert sorted(documented) == sorted(msd_config.known_keys())
    for key, default in documented.items():
        found, value = msd_config._lookup(msd_config.DEFAULTS, key)
        assert found
        expected = value if isinstance(value, str) else json.dumps(value)
        assert default == expected, key
