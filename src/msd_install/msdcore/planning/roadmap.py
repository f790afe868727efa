"""ROADMAP.md: parse the phase checklist and the phase detail blocks; place new phases.

Format (the template is ``msd-core/templates/roadmap.md``)::

    ## Phases
    - [ ] **Phase 1: Foundation** - Project skeleton, CI, first deploy
    - [x] **Phase 2: Accounts** - Users can sign up and sign in
    - [ ] **Phase 2.1: Rate limits** - Inserted after phase 2

    ## Phase Details
    ### Phase 1: Foundation
    **Goal**: one sentence, an outcome rather than a task
    **Depends on**: Nothing | Phase 1, Phase 2
    **Requirements**: CORE-01, CORE-02 | None
    **Success Criteria** (what must be TRUE):
      1. an observable behaviour
    **Plans**: 2 plans | TBD
    Plans:
    - [ ] 01-01-PLAN.md - scaffold

A checked box in ``## Phases`` means the phase is complete. HTML comments are ignored (the
template explains the format inside one). Labels may carry their colon inside or outside the
bold (``**Goal:**`` or ``**Goal**:``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..toolspec import JSONObject, ToolError
from . import phasenum
from .phasenum import PhaseKey

# Only the fixed-shape heads are regexes; the free text after them is cut with str methods,
# because a lazy name followed by optional parts backtracks quadratically on long lines.
CHECK_HEAD_RE = re.compile(r"^\s*[-*] \[(?P<mark>[ xX])\]\s+\*\*Phase\s+(?P<num>\d+(?:\.\d+)*)\s*:")
DETAIL_HEAD_RE = re.compile(r"^###\s+Phase\s+(?P<num>\d+(?:\.\d+)*)\s*:")
_SPACES = re.compile(r"\s*")
LABEL_RE = re.compile(r"^\*\*(?P<label>[^*]+?):?\*\*(?:\s*\([^)]*\))?\s*:?\s*(?P<value>.*)$")
ITEM_RE = re.compile(r"^\s*(?:\d+[.)]|[-*])\s+(?P<text>.+)$")
PLAN_RE = re.compile(r"^\s*[-*] \[(?P<mark>[ xX])\]\s+(?P<text>.+)$")


@dataclass
class Phase:
    key: PhaseKey
    name: str
    complete: bool = False
    goal: str = ""
    depends_on: list[str] = field(default_factory=list)
    requirements: list[str] = field(default_factory=list)
    success_criteria: list[str] = field(default_factory=list)
    plans: list[JSONObject] = field(default_factory=list)
    plan_count: int | None = None
    in_checklist: bool = False
    has_details: bool = False

    def to_json(self) -> JSONObject:
        return {
            "number": phasenum.canonical(self.key),
            "name": self.name,
            "goal": self.goal,
            "complete": self.complete,
            "depends_on": self.depends_on,
            "requirements": self.requirements,
            "success_criteria": self.success_criteria,
            "plans": self.plans,
            "plan_count": self.plan_count,
            "in_checklist": self.in_checklist,
            "has_details": self.has_details,
        }


@dataclass
class Roadmap:
    phases: list[Phase]
    warnings: list[str]
    lines: list[str]  # original lines (keepends)
    sections: dict[str, tuple[int, int]]  # "## Title" -> [start, end) line indexes
    checklist_at: dict[PhaseKey, int]
    details_at: dict[PhaseKey, tuple[int, int]]

    def find(self, key: PhaseKey) -> Phase | None:
        return next((p for p in self.phases if p.key == key), None)


def strip_comments(text: str, keep_lines: bool = False) -> str:
    """``text`` without ``<!-- ... -->`` comments (an unclosed one stays as it is), linear.

    With ``keep_lines``, each comment leaves its newlines, so line numbers stay valid."""
    out: list[str] = []
    pos = 0
    while True:
        start = text.find("<!--", pos)
        end = text.find("-->", start + 4) if start >= 0 else -1
        if end < 0:
            out.append(text[pos:])
            return "".join(out)
        out.append(text[pos:start])
        if keep_lines:
            out.append("\n" * text.count("\n", start, end + 3))
        pos = end + 3


def check_entry(line: str) -> tuple[str, str, str, str] | None:
    """``(mark, number, name, goal)`` of a ``- [ ] **Phase N: Name** - goal`` line."""
    m = CHECK_HEAD_RE.match(line)
    if not m:
        return None
    rest = line[m.end() :]
    body_end = len(rest.rstrip())
    at = rest.find("**")
    while at >= 0:  # the name ends at the first '**' followed by nothing, or by '-', ':' ...
        after = _SPACES.match(rest, at + 2).end()  # type: ignore[union-attr]
        if after >= body_end:
            return m.group("mark"), m.group("num"), rest[:at].strip(), ""
        if rest[after] in "-–—:":
            return m.group("mark"), m.group("num"), rest[:at].strip(), rest[after + 1 :].strip()
        at = rest.find("**", at + 2)
    return None


def detail_head(line: str) -> tuple[str, str] | None:
    """``(number, name)`` of a ``### Phase N: Name`` line (the name must not be empty)."""
    m = DETAIL_HEAD_RE.match(line)
    name = line[m.end() :].strip() if m else ""
    return (m.group("num"), name) if m and name else None


def _split_list(value: str) -> list[str]:
    if value.strip().lower() in ("", "none", "nothing", "-", "tbd", "n/a"):
        return []
    return [part.strip() for part in re.split(r"[,;]", value) if part.strip()]


def _parse_block(phase: Phase, lines: list[str]) -> None:
    label = ""
    for line in lines:
        m = LABEL_RE.match(line.strip())
        if m:
            label = m.group("label").strip().lower()
            value = m.group("value").strip()
            if label == "goal":
                phase.goal = value
            elif label == "depends on":
                phase.depends_on = re.findall(r"\d+(?:\.\d+)*", value) if _split_list(value) else []
            elif label == "requirements":
                phase.requirements = _split_list(value)
            elif label == "plans":
                count = re.match(r"^(\d+)", value)
                phase.plan_count = int(count.group(1)) if count else None
            continue
        if line.strip().lower() == "plans:":
            label = "plans"
            continue
        plan = PLAN_RE.match(line)
        if plan and label == "plans":
            text = plan.group("text").strip()
            ident = re.match(r"^(\d+(?:\.\d+)*-\d+)", text)
            phase.plans.append(
                {
                    "id": ident.group(1) if ident else None,
                    "done": plan.group("mark") != " ",
                    "text": text,
                }
            )
            continue
        item = ITEM_RE.match(line)
        if item and label == "success criteria":
            phase.success_criteria.append(item.group("text").strip())
    if phase.plan_count is None and phase.plans:
        phase.plan_count = len(phase.plans)


def parse(text: str) -> Roadmap:
    lines = text.splitlines(keepends=True)
    clean = strip_comments(text, keep_lines=True).splitlines()
    sections: dict[str, tuple[int, int]] = {}
    current, start = "", 0
    for i, line in enumerate(clean):
        if line.startswith("## "):
            if current:
                sections[current] = (start, i)
            current, start = line[3:].strip(), i
    if current:
        sections[current] = (start, len(clean))
    by_key: dict[PhaseKey, Phase] = {}
    warnings: list[str] = []
    checklist_at: dict[PhaseKey, int] = {}
    details_at: dict[PhaseKey, tuple[int, int]] = {}
    lo, hi = sections.get("Phases", (0, 0))
    for i in range(lo, hi):
        entry = check_entry(clean[i])
        if entry is None:
            continue
        mark, num, name, goal = entry
        key = phasenum.parse(num)
        if key in checklist_at:
            warnings.append(f"line {i + 1}: phase {phasenum.canonical(key)} listed twice")
            continue
        checklist_at[key] = i
        by_key[key] = Phase(key, name, mark != " ", goal)
        by_key[key].in_checklist = True
    lo, hi = sections.get("Phase Details", (0, 0))
    heads = [(i, detail_head(clean[i])) for i in range(lo, hi) if clean[i].startswith("### ")]
    for n, (i, head) in enumerate(heads):
        end = heads[n + 1][0] if n + 1 < len(heads) else hi
        if head is None:
            continue
        key = phasenum.parse(head[0])
        if key in details_at:
            warnings.append(f"line {i + 1}: details for phase {phasenum.canonical(key)} repeated")
            continue
        details_at[key] = (i, end)
        phase = by_key.get(key)
        if phase is None:
            phase = by_key[key] = Phase(key, head[1])
            warnings.append(
                f"line {i + 1}: phase {phasenum.canonical(key)} has details but no checklist entry"
            )
        phase.has_details = True
        _parse_block(phase, clean[i + 1 : end])
    for key, phase in by_key.items():
        if not phase.has_details:
            warnings.append(f"phase {phasenum.canonical(key)} has no '### Phase' details block")
    phases = sorted(by_key.values(), key=lambda p: p.key)
    return Roadmap(phases, warnings, lines, sections, checklist_at, details_at)


def _last_content_line(lines: list[str], lo: int, hi: int) -> int:
    """Index just after the last non-blank line of section [lo, hi) (at least after its heading)."""
    end = hi
    while end > lo + 1 and not lines[end - 1].strip():
        end -= 1
    return end


def with_phase(text: str, key: PhaseKey, name: str, goal: str, depends_on: list[str]) -> str:
    """ROADMAP.md text with a new phase placed in number order in both sections."""
    rm = parse(text)
    if rm.find(key) is not None:
        raise ToolError("exists", f"ROADMAP.md: phase {phasenum.canonical(key)} already exists")
    for section in ("Phases", "Phase Details"):
        if section not in rm.sections:
            raise ToolError("invalid_roadmap", f"ROADMAP.md: no '## {section}' section")
    lines = list(rm.lines)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    number = phasenum.canonical(key)
    deps = ", ".join(f"Phase {d}" for d in depends_on) or "Nothing"
    details = [
        f"### Phase {number}: {name}\n",
        f"**Goal**: {goal or 'To be defined'}\n",
        f"**Depends on**: {deps}\n",
        "**Requirements**: TBD\n",
        "**Success Criteria** (what must be TRUE):\n",
        "  1. To be defined\n",
        "**Plans**: TBD\n",
    ]
    # Details first: they sit below the checklist, so the checklist indexes stay valid.
    later = [span[0] for k, span in rm.details_at.items() if k > key]
    if later:
        at = min(later)
        lines[at:at] = [*details, "\n"]
    else:
        at = _last_content_line(lines, *rm.sections["Phase Details"])
        lines[at:at] = ["\n", *details]
    entry = f"- [ ] **Phase {number}: {name}**" + (f" - {goal}" if goal else "") + "\n"
    later = [pos for k, pos in rm.checklist_at.items() if k > key]
    if later:
        at = min(later)
    elif rm.checklist_at:
        at = max(rm.checklist_at.values()) + 1
    else:
        at = _last_content_line(lines, *rm.sections["Phases"])
        lines.insert(at, "\n")
        at += 1
    lines.insert(at, entry)
    return "".join(lines)


def with_complete(text: str, key: PhaseKey, done: bool = True) -> str:
    rm = parse(text)
    at = rm.checklist_at.get(key)
    if at is None:
        raise ToolError(
            "not_found", f"ROADMAP.md: phase {phasenum.canonical(key)} is not in '## Phases'"
        )
    lines = list(rm.lines)
    lines[at] = re.sub(r"\[[ xX]\]", "[x]" if done else "[ ]", lines[at], count=1)
    return "".join(lines)
