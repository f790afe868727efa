"""ROADMAP.md parsing and phase operations (add, decimal insert, next, complete) via the CLI."""

from __future__ import annotations

from pathlib import Path

from msdtools_util import ROADMAP, fails, ok, write


def _roadmap(project: Path) -> str:
    return (project / ".planning/ROADMAP.md").read_text(encoding="utf-8")


def test_analyze_reads_checklist_details_and_disk(project: Path) -> None:
    doc = ok(project, "roadmap", "analyze")
    assert [p["number"] for p in doc["phases"]] == ["1", "2"]
    one, two = doc["phases"]
    assert one["complete"] is True and one["status"] == "complete"
    assert one["requirements"] == ["CORE-01", "CORE-02"]
    assert one["success_criteria"] == ["`make test` passes in CI", "A hello page is served"]
    assert one["plans"] == [{"id": "01-01", "done": True, "text": "01-01-PLAN.md - scaffold"}]
    # "**Goal:**" (colon inside the bold) reads the same as "**Goal**:"
    assert two["goal"] == "Users can sign up and sign in"
    assert two["depends_on"] == ["1"] and two["plan_count"] == 2
    assert two["status"] == "in_progress"
    assert two["disk"]["incomplete_plans"] == ["02"] and two["disk"]["next_plan"] == "03"
    assert doc["current_phase"] == "2" and doc["warnings"] == []
    assert doc["percent"] == 75  # phase 1 done, phase 2 half executed


def test_get_phase_and_unknown_phase(project: Path) -> None:
    assert ok(project, "roadmap", "get-phase", "02")["name"] == "Accounts"
    fails(project, "roadmap", "get-phase", "7", code="not_found")
    fails(project, "roadmap", "get-phase", "two", code="invalid_phase")


def test_analyze_warns_about_drift(project: Path) -> None:
    write(project, {".planning/phases/05-orphan/notes.md": "x"})
    text = _roadmap(project).replace(
        "### Phase 1: Foundation", "### Phase 1.5: Ghost\n\n### Phase 1: Foundation"
    )
    (project / ".planning/ROADMAP.md").write_text(text)
    warnings = ok(project, "roadmap", "analyze")["warnings"]
    assert any("1.5 has details but no checklist entry" in w for w in warnings)
    assert any("phase 5 is not in ROADMAP.md" in w for w in warnings)


def test_add_appends_in_both_sections_and_creates_the_directory(project: Path) -> None:
    doc = ok(project, "phase", "add", "Billing", "--goal", "Users can pay")
    assert doc["number"] == "3" and doc["dir"] == ".planning/phases/03-billing"
    assert (project / doc["dir"]).is_dir()
    text = _roadmap(project)
    assert (
        "- [ ] **Phase 2: Accounts** - Users can sign up and sign in\n"
        "- [ ] **Phase 3: Billing** - Users can pay\n" in text
    )
    block = text.split("### Phase 3: Billing\n", 1)[1]
    assert block.startswith("**Goal**: Users can pay\n**Depends on**: Phase 2\n")
    assert text.endswith("## Notes\n\nFree text after the details stays untouched.\n")
    assert ok(project, "roadmap", "get-phase", "3")["depends_on"] == ["2"]
    assert ok(project, "state", "get", "total_phases")["value"] == 3


def test_decimal_insert_numbers_and_order(project: Path) -> None:
    assert ok(project, "phase", "insert", "1", "Hot fix")["number"] == "1.1"
    assert ok(project, "phase", "insert", "1", "Second fix")["number"] == "1.2"
    nested = ok(project, "phase", "insert", "1.1", "Nested fix")
    assert nested["number"] == "1.1.1" and nested["dir"] == ".planning/phases/01.1.1-nested-fix"
    assert ok(project, "phase", "insert", "2", "After two")["number"] == "2.1"
    listed = [p["number"] for p in ok(project, "roadmap", "analyze")["phases"]]
    assert listed == ["1", "1.1", "1.1.1", "1.2", "2", "2.1"]
    text = _roadmap(project)
    checklist = [line for line in text.splitlines() if line.startswith("- [") and "**Phase" in line]
    assert [line.split(":")[0] for line in checklist] == [
        "- [x] **Phase 1",
        "- [ ] **Phase 1.1",
        "- [ ] **Phase 1.1.1",
        "- [ ] **Phase 1.2",
        "- [ ] **Phase 2",
        "- [ ] **Phase 2.1",
    ]
    heads = [line for line in text.splitlines() if line.startswith("### Phase")]
    assert heads == [
        "### Phase 1: Foundation",
        "### Phase 1.1: Hot fix",
        "### Phase 1.1.1: Nested fix",
        "### Phase 1.2: Second fix",
        "### Phase 2: Accounts",
        "### Phase 2.1: After two",
    ]
    # Existing phase blocks are untouched by the inserts.
    assert ROADMAP.split("### Phase 2: Accounts\n")[1].split("## Notes")[0] in text
    dirs = sorted(p.name for p in (project / ".planning/phases").iterdir())
    assert dirs == [
        "01-foundation",
        "01.1-hot-fix",
        "01.1.1-nested-fix",
        "01.2-second-fix",
        "02-accounts",
        "02.1-after-two",
    ]


def test_insert_and_add_errors(project: Path) -> None:
    before = _roadmap(project)
    fails(project, "phase", "insert", "9", "Nowhere", code="not_found")
    fails(project, "phase", "add", "Bad: name", code="invalid_value")
    fails(project, "phase", "add", "   ", code="invalid_value")
    assert _roadmap(project) == before
    (project / ".planning/ROADMAP.md").write_text("# Roadmap\n\n## Phases\n")
    fails(project, "phase", "add", "X", code="invalid_roadmap")
    (project / ".planning/ROADMAP.md").unlink()
    fails(project, "phase", "add", "X", code="no_roadmap")


def test_add_into_an_empty_template_roadmap(tmp_path: Path) -> None:
    project = tmp_path
    (project / ".planning").mkdir()
    ok(
        project,
        "template",
        "fill",
        "roadmap.md",
        "--var",
        "project_name=Demo",
        "--out",
        ".planning/ROADMAP.md",
    )
    ok(project, "phase", "add", "First")
    ok(project, "phase", "add", "Second")
    doc = ok(project, "roadmap", "analyze")
    assert [(p["number"], p["name"]) for p in doc["phases"]] == [("1", "First"), ("2", "Second")]
    assert doc["warnings"] == []
    assert sorted(p.name for p in (project / ".planning/phases").iterdir()) == [
        "01-first",
        "02-second",
    ]


def test_next_and_list(project: Path) -> None:
    nxt = ok(project, "phase", "next")
    assert nxt["next"]["number"] == "2" and nxt["next_number"] == "3"
    assert nxt["all_complete"] is False
    write(project, {".planning/phases/04-later/04-CONTEXT.md": "x"})
    listed = ok(project, "phase", "list")
    assert [(p["number"], p["in_roadmap"], p["status"]) for p in listed["phases"]] == [
        ("1", True, "complete"),
        ("2", True, "in_progress"),
        ("4", False, "discussed"),
    ]


def test_complete_refuses_unfinished_plans_unless_forced(project: Path) -> None:
    msg = fails(project, "phase", "complete", "2", code="incomplete")
    assert "02" in msg and "--force" in msg
    write(project, {".planning/phases/02-accounts/02-02-SUMMARY.md": "---\nphase: '02'\n---\n"})
    doc = ok(project, "phase", "complete", "2")
    assert doc["milestone_complete"] is True and doc["next_phase"] is None
    assert "- [x] **Phase 2: Accounts**" in _roadmap(project)
    fields = ok(project, "state", "load")["fields"]
    assert fields["status"] == "milestone_complete" and fields["completed_phases"] == 2
    assert fields["progress_percent"] == 100


def test_complete_moves_state_to_the_next_phase(project: Path) -> None:
    ok(project, "phase", "add", "Billing")
    doc = ok(project, "phase", "complete", "2", "--force")
    assert doc["forced_with_missing"] == ["02"] and doc["next_phase"]["number"] == "3"
    fields = ok(project, "state", "load")["fields"]
    assert fields["current_phase"] == "3" and fields["current_phase_name"] == "Billing"
    assert fields["status"] == "ready_to_plan" and fields["current_plan"] == 0
    fails(project, "phase", "complete", "8", code="not_found")


def test_two_directories_for_one_phase_is_an_error(project: Path) -> None:
    write(project, {".planning/phases/02-other/x.md": "x"})
    fails(project, "phase", "list", code="duplicate_phase")
