"""The issue's reproductions, as planned: links planted in ``.planning/`` are never followed out
of the project, by the MCP tools and by ``msd-tools`` alike, and a link at a lock file is
broken as a link, never through its target."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest
from msdtools_util import ok, run

from msd_install.msdcore.planning.tools import PLANNING_TOOLS
from msd_install.msdcore.toolspec import ToolContext, ToolError

BY_NAME = {t.name: t for t in PLANNING_TOOLS}


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    out = tmp_path / "outside"
    (out / "phases" / "07-secret").mkdir(parents=True)
    (out / "phases" / "07-secret" / "07-01-PLAN.md").write_text("---\nphase: '07'\n---\nSECRET\n")
    (out / "todo.md").write_text("---\nid: '042'\ntitle: SECRET\n---\nSECRET body\n")
    (out / "verification.md").write_text("---\nstatus: passed\n---\nSECRET\n")
    (out / "target.txt").write_text("SECRET target\n")
    return out


def _tool(project: Path, name: str, **args: Any) -> dict[str, Any]:
    ctx = ToolContext(root=project.parent.resolve(), env={})
    return BY_NAME[name].run(ctx, {"project_path": "proj", **args})


def _refused(project: Path, name: str, **args: Any) -> ToolError:
    with pytest.raises(ToolError) as info:
        _tool(project, name, **args)
    assert "SECRET" not in info.value.message and "outside/" not in info.value.message
    return info.value


def test_a_linked_todo_is_neither_listed_nor_completed(project: Path, outside: Path) -> None:
    pending = project / ".planning/todos/pending"
    pending.mkdir(parents=True)
    (pending / "042-linked.md").symlink_to(outside / "todo.md")
    assert _tool(project, "todo_list")["pending"] == []
    assert ok(project, "todo", "list")["pending"] == []
    assert _refused(project, "todo_done", id="42").code == "not_found"
    assert run(project, "todo", "done", "42")[0] == 1
    assert not (project / ".planning/todos/completed").exists()
    assert (outside / "todo.md").read_text().endswith("SECRET body\n")


def test_a_linked_phases_directory_leaks_nothing(project: Path, outside: Path) -> None:
    phases = project / ".planning/phases"
    phases.rename(project / "phases-real")
    phases.symlink_to(outside / "phases")
    for name, args in [
        ("phase_list", {}),
        ("progress", {}),
        ("roadmap_analyze", {}),
        ("verify_phase_completeness", {"number": "7"}),
    ]:
        assert _refused(project, name, **args).code == "outside_project", name
    code, doc = run(project, "phase", "list")
    assert code == 1 and "07-secret" not in str(doc)


def test_linked_phase_entries_are_ignored(project: Path, outside: Path) -> None:
    phases = project / ".planning/phases"
    (phases / "07-secret").symlink_to(outside / "phases" / "07-secret")
    (phases / "02-accounts" / "02-VERIFICATION.md").symlink_to(outside / "verification.md")
    listed = [p["number"] for p in _tool(project, "phase_list")["phases"]]
    assert "7" not in listed
    done = _tool(project, "verify_phase_completeness", number="2")
    assert done["verification_status"] is None and "02-VERIFICATION.md" in done["missing"]
    assert "SECRET" not in str(_tool(project, "roadmap_analyze"))
    assert "SECRET" not in str(ok(project, "progress"))


@pytest.mark.parametrize("lock", [".lock", ".state.lock"])
@pytest.mark.parametrize("inside", [True, False])
def test_a_linked_lock_is_broken_as_a_link(
    project: Path, outside: Path, lock: str, inside: bool
) -> None:
    target = project / "src" / "keep.txt" if inside else outside / "target.txt"
    target.write_text("precious\n")
    old = time.time() - 3600
    os.utime(target, (old, old))
    link = project / ".planning" / lock
    link.symlink_to(target)
    os.utime(link, (old, old), follow_symlinks=False)  # a stale-looking lock
    if lock == ".lock":
        _tool(project, "todo_add", title="after the lock")
    else:
        _tool(project, "state_update", field="status", value="executing")
    assert target.read_text() == "precious\n"  # the target is never deleted or written
    assert not link.is_symlink()


def test_cli_paths_stay_inside_the_project_it_runs_in(project: Path, outside: Path) -> None:
    (project / "docs").symlink_to(outside / "phases" / "07-secret")
    code, doc = run(project, "frontmatter", "get", "docs/07-01-PLAN.md")
    assert code == 1 and doc["error"]["code"] == "outside_project"
    code, doc = run(project / "src", "frontmatter", "set", "../../outside/todo.md", "k", "v")
    assert code == 1 and doc["error"]["code"] == "outside_project"
    assert "k: v" not in (outside / "todo.md").read_text()
