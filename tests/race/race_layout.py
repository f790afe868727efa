"""The race tests' world: a small workspace (files and a planning project) and an outside
tree that mirrors it with ``CANARY`` in every text and in several names, plus which of its
entries the attacker swaps for links to the outside, and where it plants new links."""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

CANARY = "CANARY"

ROADMAP = """\
# Roadmap: Demo

## Phases

- [x] **Phase 1: Foundation** - Project skeleton
- [ ] **Phase 2: Accounts** - Users can sign in

## Phase Details

### Phase 1: Foundation
**Goal**: It builds
**Depends on**: Nothing
**Requirements**: CORE-01
**Plans**: 1 plans

### Phase 2: Accounts
**Goal**: Users sign in
**Depends on**: Phase 1
**Requirements**: AUTH-01
**Plans**: 1 plans
"""
STATE = """\
---
msd_state_version: 1
project: Demo
status: executing
current_phase: "2"
current_plan: 1
plans_in_phase: 1
total_phases: 2
completed_phases: 1
---
# Project State

## Current Position

Phase: 2
"""
PLAN = """\
---
phase: "{phase}"
plan: "01"
type: execute
wave: 1
depends_on: []
files_modified: [src/app.py]
autonomous: true
requirements: [AUTH-01]
---
# Plan {marker}

<objective>
Deliver it.
</objective>

<tasks>
<task type="auto">
  <name>Task 1 {marker}</name>
  <files>src/app.py</files>
  <action>Write the code.</action>
  <verify>pytest -q</verify>
  <done>Tests pass.</done>
</task>
</tasks>
"""
TODO = '---\nid: "{id}"\ntitle: {title}\narea: general\ncreated: 2026-01-01T00:00:00Z\n---\n# t\n'


def project_files(marker: str, phase_slug: str, todo_slug: str) -> dict[str, str]:
    """A small planning project; ``marker`` goes into every text (empty inside)."""
    p = ".planning"
    return {
        f"{p}/ROADMAP.md": ROADMAP.replace("Demo", f"Demo{marker}"),
        f"{p}/STATE.md": STATE.replace("Demo", f"Demo{marker}"),
        f"{p}/config.json": json.dumps({"mode": "interactive", "note": marker}) + "\n",
        f"{p}/phases/01-{phase_slug}/01-01-PLAN.md": PLAN.format(phase="01", marker=marker),
        f"{p}/phases/01-{phase_slug}/01-01-SUMMARY.md": f'---\nphase: "01"\n---\n{marker}\n',
        f"{p}/phases/01-{phase_slug}/01-VERIFICATION.md": f"---\nstatus: passed\n---\n{marker}\n",
        f"{p}/phases/02-accounts/02-01-PLAN.md": PLAN.format(phase="02", marker=marker),
        f"{p}/todos/pending/001-{todo_slug}.md": TODO.format(id="001", title=f"first{marker}"),
        f"{p}/todos/completed/.keep": "",
        "src/app.py": f"print('hi{marker}')\n",
        "notes/readme.md": f"notes{marker}\n",
    }


def write_tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@dataclass
class Layout:
    base: Path
    ws: Path
    outside: Path

    @classmethod
    def make(cls, base: Path) -> Layout:
        ws, outside = base / "ws", base / "outside"
        write_tree(
            ws,
            {
                "d/f.txt": "hello v0\n",
                "d/e/g.txt": "inner\n",
                "d/other.md": "# other\n",
                **{f"proj/{k}": v for k, v in project_files("", "foundation", "first").items()},
            },
        )
        write_tree(
            outside,
            {
                "secret.txt": f"{CANARY} secret v0\n",
                "lock-target.txt": f"{CANARY} lock target\n",
                "d/f.txt": f"{CANARY} hello v0\n",
                "d/e/g.txt": f"{CANARY} inner\n",
                "d/CANARY-name.md": f"{CANARY}\n",
                "d/.planning/STATE.md": STATE.replace("Demo", CANARY),
                **{f"mirror/{k}": v for k, v in project_files(CANARY, "canary", "canary").items()},
            },
        )
        os.chmod(outside / "secret.txt", 0o640)
        old = time.time() - 3600  # a stale-looking lock target
        os.utime(outside / "lock-target.txt", (old, old))
        return cls(base, ws, outside)


FILE_SWAPS = [("d", "d"), ("d/f.txt", "secret.txt"), ("d/e", "d/e")]
FILE_PLANTS = [("d/new.txt", "created-by-attack.txt"), ("d/e/h.txt", "secret.txt")]
PLANNING_SWAPS = [
    ("proj", "mirror"),
    ("proj/.planning", "mirror/.planning"),
    ("proj/.planning/phases", "mirror/.planning/phases"),
    ("proj/.planning/phases/01-foundation", "mirror/.planning/phases/01-canary"),
    ("proj/.planning/todos", "mirror/.planning/todos"),
    ("proj/.planning/todos/pending", "mirror/.planning/todos/pending"),
    ("proj/.planning/STATE.md", "mirror/.planning/STATE.md"),
    ("proj/.planning/ROADMAP.md", "mirror/.planning/ROADMAP.md"),
    ("proj/.planning/config.json", "mirror/.planning/config.json"),
    (
        "proj/.planning/phases/01-foundation/01-01-PLAN.md",
        "mirror/.planning/phases/01-canary/01-01-PLAN.md",
    ),
    (
        "proj/.planning/todos/pending/001-first.md",
        "mirror/.planning/todos/pending/001-canary.md",
    ),
    ("proj/notes", "mirror/notes"),
]
PLANNING_PLANTS = [
    ("proj/.planning/.lock", "lock-target.txt"),
    ("proj/.planning/.state.lock", "lock-target.txt"),
    ("proj/.planning/phases/03-planted", "mirror/.planning/phases/01-canary"),
    ("proj/.planning/todos/pending/009-planted.md", "mirror/.planning/todos/pending/001-canary.md"),
    ("proj/notes/t.md", "secret.txt"),
]
