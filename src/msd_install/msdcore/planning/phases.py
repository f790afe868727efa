"""Phase operations: list, add, insert (decimal numbering), next.

Adding or inserting a phase keeps ROADMAP.md (checklist entry + details block, in number
order) and ``.planning/phases/`` in step, under the planning lock. Numbering rules are in
``phasenum``.
"""

from __future__ import annotations

from ..toolspec import JSONObject, ToolError
from . import disk, phasenum, progress, roadmap, state
from .fsio import atomic_write, ensure_dir, exists, read_text
from .locking import file_lock
from .phasenum import PhaseKey
from .project import Project


def _known_keys(project: Project, rm: roadmap.Roadmap) -> list[PhaseKey]:
    return sorted({p.key for p in rm.phases} | set(disk.scan(project)))


def _create(project: Project, key: PhaseKey, name: str, goal: str, deps: list[str]) -> JSONObject:
    path = project.file("ROADMAP.md")
    text = read_text(project, path, project.rel(path))
    new_text = roadmap.with_phase(text, key, name, goal, deps)
    directory = project.file(f"phases/{phasenum.dir_name(key, name)}")
    ensure_dir(project, directory)
    atomic_write(project, path, new_text)
    return {
        "number": phasenum.canonical(key),
        "name": name,
        "dir": project.rel(directory),
        "prefix": phasenum.prefix(key),
        "roadmap": project.rel(path),
    }


def _sync_state_counts(project: Project) -> bool:
    if not exists(project, project.file("STATE.md")):
        return False

    def change(fields: JSONObject) -> JSONObject:
        current = fields.get("current_phase")
        key = phasenum.parse(current) if current is not None else None
        return progress.state_counts(project, key)

    state.mutate(project, change)
    return True


def _clean_name(name: str) -> str:
    name = " ".join(str(name).split())
    if not name or "*" in name or ":" in name:
        raise ToolError(
            "invalid_value", f"{name!r}: a phase name must be non-empty, without '*' or ':'"
        )
    return name


# ---- operations shared by the CLI and the MCP tools -------------------------------------------


def phase_list(project: Project) -> JSONObject:
    phases = progress.merged(project)
    return {"phases": phases, "count": len(phases)}


def phase_add(project: Project, name: str, goal: str = "") -> JSONObject:
    project.require_planning()
    name = _clean_name(name)
    with file_lock(project, project.lock(".lock")):
        rm = progress.load_roadmap(project, required=True)
        assert rm is not None
        known = _known_keys(project, rm)
        key = phasenum.next_integer(known)
        deps = [phasenum.canonical(max(known))] if known else []
        result = _create(project, key, name, goal, deps)
    result["state_updated"] = _sync_state_counts(project)
    return result


def phase_insert(project: Project, after: str, name: str, goal: str = "") -> JSONObject:
    project.require_planning()
    name = _clean_name(name)
    anchor = phasenum.parse(after)
    with file_lock(project, project.lock(".lock")):
        rm = progress.load_roadmap(project, required=True)
        assert rm is not None
        known = _known_keys(project, rm)
        if anchor not in known:
            raise ToolError("not_found", f"phase {phasenum.canonical(anchor)} does not exist")
        key = phasenum.next_child(anchor, known)
        result = _create(project, key, name, goal, [phasenum.canonical(anchor)])
    result["after"] = phasenum.canonical(anchor)
    result["state_updated"] = _sync_state_counts(project)
    return result


def phase_next(project: Project) -> JSONObject:
    phases = progress.merged(project)
    nxt = next((p for p in phases if not p["complete"]), None)
    keys = [phasenum.parse(p["number"]) for p in phases]
    return {
        "next": nxt,
        "next_number": phasenum.canonical(phasenum.next_integer(keys)),
        "all_complete": bool(phases) and nxt is None,
    }
