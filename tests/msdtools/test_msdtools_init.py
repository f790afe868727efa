"""``init <workflow>``: one JSON with what each workflow needs."""

from __future__ import annotations

from pathlib import Path

import pytest
from msdtools_util import TEMPLATES, fails, ok, write

from msd_install.msdcore.planning import yamlish

WORKFLOWS = [
    "new-project",
    "map-codebase",
    "discuss-phase",
    "plan-phase",
    "execute-phase",
    "verify-work",
    "progress",
    "quick",
    "debug",
    "pause-work",
    "resume-work",
    "new-milestone",
    "complete-milestone",
    "settings",
]


@pytest.mark.parametrize("workflow", WORKFLOWS)
def test_every_workflow_gets_the_common_context(project: Path, workflow: str) -> None:
    doc = ok(project, "init", workflow)
    assert doc["workflow"] == workflow and doc["errors"] == []
    assert doc["planning_exists"] is True and doc["project_exists"] is True
    assert doc["files"]["roadmap"] == {"path": ".planning/ROADMAP.md", "exists": True}
    assert doc["commit_docs"] is True and doc["flags"]["research"] is True
    assert (
        doc["models"]["msd-planner"] == "opus" and doc["models"]["msd-codebase-mapper"] == "haiku"
    )
    assert doc["state"]["current_phase"] == "2" and doc["next_phase_number"] == "3"
    assert doc["generic"] is (workflow == "settings")


def test_phase_workflows_resolve_the_current_phase(project: Path) -> None:
    phase = ok(project, "init", "plan-phase")["phase"]
    assert phase["number"] == "2" and phase["name"] == "Accounts" and phase["prefix"] == "02"
    assert phase["dir"] == ".planning/phases/02-accounts" and phase["has_context"] is True
    assert phase["has_research"] is False and phase["requirements"] == ["AUTH-01"]
    assert phase["paths"]["research"] == ".planning/phases/02-accounts/02-RESEARCH.md"
    assert phase["next_plan"] == "03" and phase["incomplete_plans"] == ["02"]


def test_execute_phase_groups_plans_in_waves(project: Path) -> None:
    ok(project, "config", "set", "git.branching_strategy", "phase")
    doc = ok(project, "init", "execute-phase", "--phase", "2")
    assert {w: [(p["plan"], p["done"]) for p in plans] for w, plans in doc["waves"].items()} == {
        "1": [("01", True)],
        "2": [("02", False)],
    }
    assert doc["branch_name"] == "msd/phase-02-accounts"


def test_phase_not_on_disk_yet_gets_its_future_paths(project: Path) -> None:
    ok(project, "phase", "add", "Billing")
    (project / ".planning/phases/03-billing").rmdir()
    phase = ok(project, "init", "discuss-phase", "--phase", "3")["phase"]
    assert phase["dir_exists"] is False and phase["dir"] == ".planning/phases/03-billing"
    assert phase["paths"]["context"] == ".planning/phases/03-billing/03-CONTEXT.md"


def test_new_project_in_an_empty_directory(tmp_path: Path) -> None:
    doc = ok(tmp_path, "init", "new-project")
    assert doc["planning_exists"] is False and doc["project_exists"] is False
    assert doc["is_brownfield"] is False and doc["state"] is None
    assert doc["config"]["workflow"]["verifier"] is True
    write(tmp_path, {"pyproject.toml": "[project]\n"})
    doc = ok(tmp_path, "init", "new-project")
    assert doc["is_brownfield"] is True and doc["needs_codebase_map"] is True


def test_from_a_subdirectory_the_project_is_found(project: Path) -> None:
    doc = ok(project / "src", "init", "progress")
    assert doc["project_root"] == str(project.resolve())
    assert doc["progress"]["percent"] == 75


def test_broken_files_are_listed_not_fatal(project: Path) -> None:
    (project / ".planning/config.json").write_text("{oops")
    doc = ok(project, "init", "progress")
    assert any("config.json" in e for e in doc["errors"])
    assert doc["config"]["mode"] == "interactive"


def test_quick_and_debug_and_pause(project: Path) -> None:
    quick = ok(project, "init", "quick")
    assert quick["quick_id"].endswith("-001") and len(quick["quick_id"]) == 10
    write(project, {".planning/debug/login-loop.md": "x", ".planning/debug/knowledge-base.md": "k"})
    assert ok(project, "init", "debug")["active_sessions"] == [".planning/debug/login-loop.md"]
    assert ok(project, "init", "resume-work")["continue_here"]["exists"] is False


def test_init_errors(project: Path, tmp_path: Path) -> None:
    fails(project, "init", "plan-phase", "--phase", "9", code="not_found")
    fails(project, "init", "Bad Name", code="invalid_value")
    (tmp_path / "empty").mkdir()
    fails(tmp_path / "empty", "init", "plan-phase", code="no_phase")


def test_balanced_profile_matches_each_agents_model_line(project: Path) -> None:
    agents = TEMPLATES.parent.parent / "agents"
    declared = {}
    for path in sorted(agents.glob("msd-*.md")):
        front = path.read_text(encoding="utf-8").split("---\n")[1]
        declared[path.stem] = yamlish.parse(front)["model"]
    assert ok(project, "init", "progress")["models"] == declared
