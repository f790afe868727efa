"""``state load|get|update|patch|advance-plan`` on a real STATE.md through the real CLI."""

from __future__ import annotations

from pathlib import Path

from msdtools_util import fails, ok, write


def _state(project: Path) -> str:
    return (project / ".planning/STATE.md").read_text(encoding="utf-8")


def test_load_returns_typed_fields_and_sections(project: Path) -> None:
    doc = ok(project, "state", "load")
    assert doc["path"] == ".planning/STATE.md"
    assert doc["fields"]["current_phase"] == "2"
    assert doc["fields"]["current_plan"] == 0
    assert doc["fields"]["blockers"] == []
    assert "Session Continuity" in doc["sections"]


def test_get_a_field_and_a_section(project: Path) -> None:
    assert ok(project, "state", "get", "status") == {"field": "status", "value": "not_started"}
    section = ok(project, "state", "get", "project reference")
    assert section["section"] is True and "PROJECT.md" in section["value"]
    fails(project, "state", "get", "no_such_thing", code="unknown_field")


def test_update_types_values_and_keeps_free_text(project: Path) -> None:
    path = project / ".planning/STATE.md"
    path.write_text(
        _state(project).replace("## Decisions\n", "## Decisions\n\n- [Phase 1] keep it small\n")
    )
    doc = ok(project, "state", "update", "current_phase", "02.10")
    assert doc == {"field": "current_phase", "value": "2.10", "previous": "2"}
    ok(project, "state", "update", "current_plan", "3")
    ok(project, "state", "update", "blockers", '["waiting for an API key"]')
    text = _state(project)
    assert 'current_phase: "2.10"\n' in text  # a string: 2.10 must not become the float 2.1
    assert "current_plan: 3\n" in text
    assert "  - waiting for an API key\n" in text
    assert "- [Phase 1] keep it small\n" in text
    assert "Phase: 2.10 of 0" in text and "Plan: 3 of 0" in text  # Current Position rewritten
    fields = ok(project, "state", "load")["fields"]
    assert fields["current_plan"] == 3 and fields["blockers"] == ["waiting for an API key"]
    assert fields["last_updated"].endswith("Z")


def test_update_refuses_bad_fields_and_values(project: Path) -> None:
    before = _state(project)
    fails(project, "state", "update", "colour", "red", code="unknown_field")
    fails(project, "state", "update", "current_plan", "three", code="invalid_value")
    fails(project, "state", "update", "status", "done-ish", code="invalid_value")
    fails(project, "state", "update", "current_phase", "2.x", code="invalid_phase")
    assert _state(project) == before


def test_patch_is_all_or_nothing(project: Path) -> None:
    before = _state(project)
    fails(
        project,
        "state",
        "patch",
        "--json",
        '{"status": "executing", "current_plan": "x"}',
        code="invalid_value",
    )
    assert _state(project) == before
    doc = ok(project, "state", "patch", "--json", '{"status": "executing", "current_plan": 1}')
    assert doc["updated"] == {"status": "executing", "current_plan": 1}
    assert doc["previous"] == {"status": "not_started", "current_plan": 0}
    fails(project, "state", "patch", "--json", "[1]", code="invalid_value")
    fails(project, "state", "patch", "--json", "{not json", code="invalid_value")


def test_advance_plan_walks_the_plans_then_verifies(project: Path) -> None:
    ok(project, "state", "patch", "--json", '{"status": "executing", "current_plan": 1}')
    doc = ok(project, "state", "advance-plan")
    assert doc["advanced"] is True and doc["current_plan"] == 2 and doc["plans_in_phase"] == 2
    write(project, {".planning/phases/02-accounts/02-02-SUMMARY.md": "---\nphase: '02'\n---\n"})
    doc = ok(project, "state", "advance-plan")
    assert doc["advanced"] is False and doc["status"] == "verifying"
    assert doc["phase_plans_done"] is True and doc["current_plan"] == 2
    fields = ok(project, "state", "load")["fields"]
    assert fields["completed_plans"] == 3 and fields["total_plans"] == 3
    assert fields["progress_percent"] == 100  # phase 1 checked + phase 2 fully executed
    assert fields["current_phase_name"] == "Accounts"


def test_missing_or_broken_state_is_a_clear_error(project: Path) -> None:
    (project / ".planning/STATE.md").unlink()
    msg = fails(project, "state", "load", code="no_state")
    assert "template fill state.md" in msg
    (project / ".planning/STATE.md").write_text("---\nstatus: [open\n---\n")
    msg = fails(project, "state", "get", "status", code="invalid_frontmatter")
    assert msg.startswith(".planning/STATE.md: line 2:")
    (project / ".planning/STATE.md").write_text("---\nstatus: x\n")
    fails(project, "state", "load", code="invalid_frontmatter")
