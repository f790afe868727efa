"""Phase directories on disk: ``.planning/phases/NN-slug/`` and the documents inside them.

The status of a phase is read from which documents exist, so it can never disagree with the
files the agents actually wrote: CONTEXT -> discussed, RESEARCH -> researched, any PLAN ->
planned, some SUMMARY -> in_progress, a SUMMARY for every PLAN -> executed, VERIFICATION ->
verified (its frontmatter status tells whether it passed).

Only real directories and regular files count: a symlink in ``phases/`` or in a phase
directory is not followed (``fsio.entries``), so it can neither add a phase nor a document.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..confine import Target
from ..toolspec import JSONObject, ToolError
from . import phasenum
from .fsio import subdirectories
from .phasenum import PhaseKey
from .project import Project, child


@dataclass
class PhaseDir:
    key: PhaseKey
    path: Target
    slug: str
    plans: list[str] = field(default_factory=list)  # plan numbers, e.g. ["01", "02"]
    summaries: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    def has(self, kind: str) -> bool:
        return f"{phasenum.prefix(self.key)}-{kind}.md" in self.files

    def doc(self, name: str) -> Target:
        return child(self.path, name)

    @property
    def incomplete_plans(self) -> list[str]:
        return [p for p in self.plans if p not in self.summaries]

    @property
    def status(self) -> str:
        if self.has("VERIFICATION"):
            return "verified"
        if self.plans and not self.incomplete_plans:
            return "executed"
        if self.summaries:
            return "in_progress"
        if self.plans:
            return "planned"
        if self.has("RESEARCH"):
            return "researched"
        if self.has("CONTEXT"):
            return "discussed"
        return "not_started"

    def to_json(self, project: Project) -> JSONObject:
        pre = phasenum.prefix(self.key)
        docs = {
            kind.lower(): (project.rel(self.doc(f"{pre}-{kind}.md")) if self.has(kind) else None)
            for kind in ("CONTEXT", "RESEARCH", "VERIFICATION", "UAT")
        }
        return {
            "number": phasenum.canonical(self.key),
            "dir": project.rel(self.path),
            "prefix": pre,
            "plans": [project.rel(self.doc(f"{pre}-{p}-PLAN.md")) for p in self.plans],
            "summaries": [project.rel(self.doc(f"{pre}-{p}-SUMMARY.md")) for p in self.summaries],
            "incomplete_plans": self.incomplete_plans,
            "next_plan": f"{max((int(p) for p in self.plans), default=0) + 1:02d}",
            "status": self.status,
            **docs,
        }


def scan(project: Project) -> dict[PhaseKey, PhaseDir]:
    """Every phase directory, by phase number; two directories for one number is an error."""
    root = project.file("phases")
    out: dict[PhaseKey, PhaseDir] = {}
    for name, files in subdirectories(project, root, lambda n: bool(phasenum.DIR_RE.match(n))):
        m = phasenum.DIR_RE.match(name)
        assert m is not None
        key = phasenum.parse(m.group("num"))
        entry = child(root, name)
        if key in out:
            raise ToolError(
                "duplicate_phase",
                f"{project.rel(out[key].path)} and {project.rel(entry)}: two directories for "
                f"phase {phasenum.canonical(key)}",
            )
        phase = PhaseDir(key, entry, m.group("slug") or "")
        for doc in files:
            phase.files.append(doc)
            plan = phasenum.PLAN_RE.match(doc)
            summary = phasenum.SUMMARY_RE.match(doc)
            if plan and phasenum.parse(plan.group("num")) == key:
                phase.plans.append(plan.group("plan"))
            elif summary and phasenum.parse(summary.group("num")) == key:
                phase.summaries.append(summary.group("plan"))
        out[key] = phase
    return out
