"""``frontmatter``, ``template fill`` and ``verify`` on real documents."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from msdtools_util import TEMPLATES, cli_env, fails, ok, run, write

from msd_install.msdcore.planning import yamlish

PLAN = ".planning/phases/02-accounts/02-01-PLAN.md"


def test_frontmatter_get_whole_and_one_key(project: Path) -> None:
    doc = ok(project, "frontmatter", "get", PLAN)
    assert doc["frontmatter"]["wave"] == 1 and doc["frontmatter"]["requirements"] == ["AUTH-01"]
    assert ok(project, "frontmatter", "get", PLAN, "phase")["value"] == "02"
    fails(project, "frontmatter", "get", PLAN, "missing", code="unknown_key")
    fails(project, "frontmatter", "get", "nope.md", code="not_found")


def test_frontmatter_set_changes_only_that_key(project: Path) -> None:
    path = project / PLAN
    original = path.read_text()
    path.write_text(original.replace("type: execute\n", "type: execute  # keep me\n"))
    before = path.read_text()
    doc = ok(project, "frontmatter", "set", PLAN, "files_modified", '["a.py", "b.py"]')
    assert doc["changed"] is True
    after = path.read_text()
    assert after == before.replace(
        "files_modified: [src/app.py]\n", "files_modified:\n  - a.py\n  - b.py\n"
    )
    ok(project, "frontmatter", "set", PLAN, "wave", "3")
    ok(project, "frontmatter", "set", PLAN, "owner", "team a")  # new keys are appended
    data = ok(project, "frontmatter", "get", PLAN)["frontmatter"]
    assert data["wave"] == 3 and data["owner"] == "team a" and data["type"] == "execute"
    assert "type: execute  # keep me\n" in path.read_text()
    assert ok(project, "frontmatter", "set", PLAN, "wave", "3")["changed"] is False


def test_frontmatter_set_adds_frontmatter_to_a_plain_file(project: Path) -> None:
    write(project, {"notes.md": "# Notes\n"})
    ok(project, "frontmatter", "set", "notes.md", "status", "draft")
    assert (project / "notes.md").read_text() == "---\nstatus: draft\n---\n# Notes\n"


@pytest.mark.parametrize(
    ("schema", "rel"),
    [
        ("plan", PLAN),
        ("summary", ".planning/phases/02-accounts/02-01-SUMMARY.md"),
        ("verification", ".planning/phases/01-foundation/01-VERIFICATION.md"),
        ("context", ".planning/phases/02-accounts/02-CONTEXT.md"),
    ],
)
def test_validate_accepts_good_documents(project: Path, schema: str, rel: str) -> None:
    assert ok(project, "frontmatter", "validate", rel, "--schema", schema)["valid"] is True


def test_validate_lists_every_problem(project: Path) -> None:
    write(project, {"bad.md": "---\nphase: two\nwave: 0\nautonomous: yes\n---\n"})
    doc = ok(project, "frontmatter", "validate", "bad.md", "--schema", "plan")
    assert doc["valid"] is False
    errors = "\n".join(doc["errors"])
    for words in (
        "phase: expected a phase number",
        "wave: expected a positive integer",
        "autonomous: expected true or false",
        "plan: missing",
        "type: missing",
    ):
        assert words in errors
    fails(project, "frontmatter", "validate", "bad.md", "--schema", "recipe", code="invalid_value")


def _vars_of(path: Path) -> list[str]:
    return sorted(set(re.findall(r"\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}", path.read_text())))


TEMPLATE_NAMES = sorted(
    p.relative_to(TEMPLATES).as_posix() for p in TEMPLATES.rglob("*") if p.is_file()
)


@pytest.mark.parametrize("name", TEMPLATE_NAMES)
def test_every_installed_template_fills(tmp_path: Path, name: str) -> None:
    (tmp_path / ".planning").mkdir()
    args = [f"{v}=v-{v}" for v in _vars_of(TEMPLATES / name) if v != "date"]
    flags = [part for a in args for part in ("--var", a)]
    doc = ok(tmp_path, "template", "fill", name, *flags)
    assert "{{" not in doc["content"]
    if doc["content"].startswith("---\n"):  # its frontmatter must be readable by msd-tools
        yamlish.parse(doc["content"].split("---\n")[1])


def test_fill_is_strict_about_variables(project: Path) -> None:
    msg = fails(project, "template", "fill", "todo.md", code="missing_var")
    assert "title" in msg
    msg = fails(
        project,
        "template",
        "fill",
        "todo.md",
        "--var",
        "title=x",
        "--var",
        "titel=y",
        code="unknown_var",
    )
    assert "titel" in msg
    fails(project, "template", "fill", "todo.md", "--var", "novalue", code="invalid_var")
    fails(project, "template", "fill", "nope.md", code="not_found")
    fails(project, "template", "fill", "../bin/msd-tools", code="invalid_path")


def test_fill_writes_out_and_refuses_to_overwrite(project: Path) -> None:
    out = ".planning/phases/02-accounts/02-UAT.md"
    doc = ok(
        project,
        "template",
        "fill",
        "uat.md",
        "--var",
        "phase=02",
        "--var",
        "phase_name=Accounts",
        "--var",
        "date=2026-02-03",
        "--out",
        out,
    )
    assert doc["path"] == out
    text = (project / out).read_text()
    assert "2026-02-03" in text and "Accounts" in text and "{{" not in text
    fails(
        project,
        "template",
        "fill",
        "uat.md",
        "--var",
        "phase=02",
        "--var",
        "phase_name=Accounts",
        "--out",
        out,
        code="exists",
    )
    fails(
        project,
        "template",
        "fill",
        "config.json",
        "--out",
        "../escape.json",
        code="outside_project",
    )
    assert not (project.parent / "escape.json").exists()


def test_msd_core_dir_overrides_the_templates(project: Path, tmp_path: Path) -> None:
    write(tmp_path / "core", {"templates/hello.md": "Hi {{who}}\n"})
    code, doc = run(
        project,
        "template",
        "fill",
        "hello",
        "--var",
        "who=you",
        env=cli_env({"MSD_CORE_DIR": str(tmp_path / "core")}),
    )
    assert code == 0 and doc["content"] == "Hi you\n"
    code, doc = run(
        project, "template", "fill", "hello", env=cli_env({"MSD_CORE_DIR": str(tmp_path / "none")})
    )
    assert code == 1 and doc["error"]["code"] == "not_found"


def test_verify_plan_structure(project: Path) -> None:
    doc = ok(project, "verify", "plan-structure", PLAN)
    assert doc["valid"] is True and doc["tasks"] == [
        {"n": 1, "type": "auto", "name": "Task 1: build"}
    ]
    path = project / PLAN
    broken = (
        path.read_text()
        .replace("<verify>pytest -q</verify>", "")
        .replace('<task type="auto">', '<task type="manual">')
    )
    path.write_text(broken.replace("<objective>\nDeliver it.\n</objective>", ""))
    doc = ok(project, "verify", "plan-structure", PLAN)
    assert doc["valid"] is False
    assert "body: missing <objective>...</objective>" in doc["errors"]
    assert "task 1: missing <verify>" in doc["errors"]
    assert any(e.startswith("task 1: type must be one of") for e in doc["errors"])


def test_verify_phase_completeness(project: Path) -> None:
    assert ok(project, "verify", "phase-completeness", "1")["complete"] is True
    doc = ok(project, "verify", "phase-completeness", "2")
    assert doc["complete"] is False
    assert doc["missing"] == ["02-02-SUMMARY.md", "02-VERIFICATION.md"]
    fails(project, "verify", "phase-completeness", "9", code="not_found")


def test_values_with_quotes_cannot_break_the_frontmatter(project: Path) -> None:
    name = 'Say "hi" \\ then: leave # now'
    out = ".planning/phases/02-accounts/02-CONTEXT-copy.md"
    ok(
        project,
        "template",
        "fill",
        "context.md",
        "--var",
        "phase=02",
        "--var",
        f"phase_name={name}",
        "--out",
        out,
    )
    assert ok(project, "frontmatter", "get", out, "phase_name")["value"] == name
    assert f"# Phase 02: {name} - Context" in (project / out).read_text()  # body: verbatim
