"""``init <workflow>``: one JSON document with everything a workflow needs to start.

The common part (project files and whether they exist, effective config with its flags, model
tier per agent, STATE.md fields, git branch, next phase number) is the same for every workflow;
phase workflows add the resolved phase (from ``--phase``, else STATE.md's current phase, else
the first incomplete one) with its directory, documents, plans and summaries; a few workflows
add their own facts. Problems in individual files do not abort ``init``: they are listed under
``errors`` so the workflow can tell the user and decide.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from pathlib import Path

from ..toolspec import JSONObject, ToolError
from . import config, disk, models, phasenum, progress, state
from .frontmatter import read
from .fsio import entries, exists, files_in, is_dir
from .project import PLANNING_FILES, Project

# Keys of disk.PhaseDir.to_json that init already reports under other names.
_DUPLICATES = ("number", "dir", "prefix", "context", "research", "verification", "uat")
PHASE_WORKFLOWS = ("discuss-phase", "plan-phase", "execute-phase", "verify-work")
CODEBASE_DOCS = (
    "STACK.md",
    "ARCHITECTURE.md",
    "STRUCTURE.md",
    "CONVENTIONS.md",
    "TESTING.md",
    "INTEGRATIONS.md",
    "CONCERNS.md",
)
CODE_MARKERS = (
    "package.json",
    "pyproject.toml",
    "setup.py",
    "go.mod",
    "Cargo.toml",
    "pom.xml",
    "build.gradle",
    "Gemfile",
    "composer.json",
    "Makefile",
    "CMakeLists.txt",
    "src",
    "lib",
    "app",
)


def _read_head(path: Path) -> str | None:
    """The first 4 KiB of ``.git/HEAD`` (the file itself, never a symlink's target)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        return os.read(fd, 4096).decode("utf-8", "replace").strip()
    except OSError:
        return None
    finally:
        os.close(fd)


def _git_branch(root: Path) -> JSONObject:
    # Read .git/HEAD directly: spawning git would cost more than the rest of init together.
    for candidate in (root, *root.parents):
        dot_git = candidate / ".git"
        if dot_git.is_dir():
            head = _read_head(dot_git / "HEAD")
            if head is None:
                return {"repo": True, "branch": None}
            branch = (
                head[len("ref: refs/heads/") :] if head.startswith("ref: refs/heads/") else None
            )
            return {"repo": True, "branch": branch}
        if dot_git.is_file():  # worktree or submodule
            return {"repo": True, "branch": None}
    return {"repo": False, "branch": None}


def _common(project: Project, workflow: str, errors: list[str]) -> JSONObject:
    try:
        cfg = config.effective(project)
    except ToolError as exc:
        errors.append(exc.message)
        cfg = config.effective_defaults()
    fields: JSONObject | None = None
    if exists(project, project.file("STATE.md")):
        try:
            fields = state.load(project)[0]
        except ToolError as exc:
            errors.append(exc.message)
    phases: list[JSONObject] = []
    try:
        phases = progress.merged(project)
    except ToolError as exc:
        errors.append(exc.message)
    keys = [phasenum.parse(p["number"]) for p in phases]
    first_open = next((p["number"] for p in phases if not p["complete"]), None)
    profile = str(cfg.get("model_profile", "balanced"))
    return {
        "workflow": workflow,
        "project_root": str(project.root),
        "planning_exists": is_dir(project, project.planning),
        "project_exists": exists(project, project.file("PROJECT.md")),
        "files": {
            key: {"path": rel, "exists": exists(project, project.path(rel))}
            for key, rel in PLANNING_FILES.items()
        },
        "config": cfg,
        "commit_docs": config.flag(cfg, "commit_docs"),
        "mode": cfg.get("mode"),
        "flags": {
            name: config.flag(cfg, f"workflow.{name}")
            for name in ("research", "plan_check", "verifier", "nyquist_validation")
        },
        "model_profile": profile,
        "models": models.models_for(profile),
        "state": fields,
        "current_phase": (fields or {}).get("current_phase") or first_open,
        "next_phase_number": phasenum.canonical(phasenum.next_integer(keys)),
        "phase_count": len(phases),
        "git": _git_branch(project.root),
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
    }


def _phase(project: Project, number: str | None, base: JSONObject, errors: list[str]) -> JSONObject:
    if number is None:
        number = base["current_phase"]
    if number is None:
        raise ToolError("no_phase", "no phase given and none in progress (pass --phase N)")
    key = phasenum.parse(number)
    rm = progress.load_roadmap(project)
    listed = rm.find(key) if rm else None
    d = disk.scan(project).get(key)
    if listed is None and d is None:
        raise ToolError(
            "not_found", f"phase {phasenum.canonical(key)} is not in ROADMAP.md or on disk"
        )
    name = listed.name if listed else (d.slug.replace("-", " ") if d else "")
    directory = d.path if d else project.file(f"phases/{phasenum.dir_name(key, name)}")
    docs = disk.PhaseDir(key, directory, "")
    pre = phasenum.prefix(key)
    info: JSONObject = {
        "number": phasenum.canonical(key),
        "name": name,
        "slug": phasenum.slugify(name),
        "prefix": pre,
        "dir": project.rel(directory),
        "dir_exists": d is not None,
        "in_roadmap": listed is not None,
        "complete": bool(listed and listed.complete),
        "goal": listed.goal if listed else "",
        "depends_on": listed.depends_on if listed else [],
        "requirements": listed.requirements if listed else [],
        "success_criteria": listed.success_criteria if listed else [],
        "paths": {
            kind.lower(): project.rel(docs.doc(f"{pre}-{kind}.md"))
            for kind in ("CONTEXT", "RESEARCH", "VERIFICATION", "UAT")
        },
    }
    if d is not None:
        info.update({k: v for k, v in d.to_json(project).items() if k not in _DUPLICATES})
    else:
        info.update(
            plans=[], summaries=[], incomplete_plans=[], next_plan="01", status="not_started"
        )
    for kind in ("context", "research", "verification", "uat"):
        info[f"has_{kind}"] = bool(d and d.has(kind.upper()))
    if listed is None:
        errors.append(f"phase {info['number']} is on disk but not in ROADMAP.md")
    return info


def _plan_waves(project: Project, phase: JSONObject, errors: list[str]) -> JSONObject:
    waves: dict[str, list[JSONObject]] = {}
    for rel in phase["plans"]:
        try:
            data, _ = read(project, project.path(rel), rel)
        except ToolError as exc:
            errors.append(exc.message)
            continue
        plan_no = re.search(r"-(\d+)-PLAN\.md$", rel)
        wave = data.get("wave", 1)
        entry = {
            "plan": plan_no.group(1) if plan_no else None,
            "path": rel,
            "wave": wave,
            "depends_on": data.get("depends_on", []),
            "autonomous": data.get("autonomous", True),
            "done": bool(plan_no and plan_no.group(1) not in phase["incomplete_plans"]),
        }
        waves.setdefault(str(wave), []).append(entry)
    return dict(sorted(waves.items(), key=lambda kv: int(kv[0]) if kv[0].isdigit() else 0))


def _extra(project: Project, workflow: str, out: JSONObject, errors: list[str]) -> None:
    cfg = out["config"]
    if workflow == "new-project":
        code = [m for m in CODE_MARKERS if exists(project, project.path(m))]
        mapped = [d for d in CODEBASE_DOCS if exists(project, project.file(f"codebase/{d}"))]
        out.update(code_markers=code, is_brownfield=bool(code), has_codebase_map=bool(mapped))
        out["needs_codebase_map"] = bool(code) and not mapped
    elif workflow == "map-codebase":
        out["codebase_docs"] = {
            d: {
                "path": f".planning/codebase/{d}",
                "exists": exists(project, project.file(f"codebase/{d}")),
            }
            for d in CODEBASE_DOCS
        }
    elif workflow == "execute-phase":
        phase = out["phase"]
        out["waves"] = _plan_waves(project, phase, errors)
        strategy = cfg.get("git", {}).get("branching_strategy", "none")
        milestone = (out["state"] or {}).get("milestone") or "v1.0"
        out["branch_name"] = {
            "phase": f"msd/phase-{phase['prefix']}-{phase['slug']}",
            "milestone": f"msd/{phasenum.slugify(str(milestone))}",
        }.get(strategy)
    elif workflow == "progress":
        out["progress"] = progress.summary(project)
    elif workflow == "quick":
        stamp = time.strftime("%y%m%d", time.gmtime())
        today = [name for name, _ in entries(project, project.file("quick"))]
        seq = sum(1 for n in today if n.startswith(f"{stamp}-")) + 1
        out["quick_id"] = f"{stamp}-{seq:03d}"
        out["quick_dir"] = ".planning/quick"
    elif workflow == "debug":
        sessions = [
            name
            for name in files_in(project, project.file("debug"))
            if name.endswith(".md") and name != "knowledge-base.md"
        ]
        out["active_sessions"] = [f".planning/debug/{s}" for s in sessions]
        out["knowledge_base"] = ".planning/debug/knowledge-base.md"
    elif workflow in ("pause-work", "resume-work"):
        out["continue_here"] = {
            "path": ".planning/continue-here.md",
            "exists": exists(project, project.file("continue-here.md")),
        }
    elif workflow in ("new-milestone", "complete-milestone"):
        summary = progress.summary(project)
        out["milestone"] = (out["state"] or {}).get("milestone")
        out["all_phases_complete"] = summary["milestone_complete"]
        out["incomplete_phases"] = [p["number"] for p in summary["phases"] if not p["complete"]]


# ---- operation shared by the CLI (init is not an MCP tool: it is a workflow bootstrap) --------

WORKFLOW_RE = re.compile(r"^[a-z][a-z0-9-]*$")
KNOWN: tuple[str, ...] = (
    "new-project",
    "map-codebase",
    *PHASE_WORKFLOWS,
    "progress",
    "quick",
    "debug",
    "pause-work",
    "resume-work",
    "new-milestone",
    "complete-milestone",
)
Hook = Callable[[Project, str, JSONObject, list[str]], None]


def init(project: Project, workflow: str, phase: str | None = None) -> JSONObject:
    if not WORKFLOW_RE.match(workflow):
        raise ToolError("invalid_value", f"{workflow!r}: a workflow name such as plan-phase")
    errors: list[str] = []
    out = _common(project, workflow, errors)
    out["generic"] = workflow not in KNOWN
    if workflow in PHASE_WORKFLOWS or phase is not None:
        out["phase"] = _phase(project, phase, out, errors)
    _extra(project, workflow, out, errors)
    out["errors"] = errors
    return out
