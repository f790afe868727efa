"""Running the real ``msd-tools`` CLI in a subprocess and building sample ``.planning/`` trees."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "src"
TEMPLATES = SRC / "msd_install" / "payload" / "data" / "core" / "templates"


def cli_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MSD_", "GIT_"))}
    env["PYTHONPATH"] = str(SRC)
    env.update(extra or {})
    return env


def run(cwd: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, Any]:
    """Exit code and the parsed JSON document printed on stdout (exactly one)."""
    proc = subprocess.run(
        [sys.executable, "-m", "msd_install.msdcore.tools_cli", *args],
        cwd=cwd,
        env=env or cli_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.stdout.endswith("\n") and proc.stdout.count("\n") == 1, proc.stdout + proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def ok(cwd: Path, *args: str, env: dict[str, str] | None = None) -> Any:
    code, doc = run(cwd, *args, env=env)
    assert code == 0, doc
    return doc


def fails(cwd: Path, *args: str, code: str, exit_code: int = 1) -> str:
    """Assert the command fails with ``{"error": {"code": code}}``; return the message."""
    rc, doc = run(cwd, *args)
    assert rc == exit_code, doc
    assert set(doc) == {"error"} and doc["error"]["code"] == code, doc
    assert isinstance(doc["error"]["message"], str) and doc["error"]["message"]
    return str(doc["error"]["message"])


ROADMAP = """\
# Roadmap: Demo

## Overview

A demo project.

## Phases

- [x] **Phase 1: Foundation** - Project skeleton and CI
- [ ] **Phase 2: Accounts** - Users can sign up and sign in

## Phase Details

### Phase 1: Foundation
**Goal**: The project builds and deploys
**Depends on**: Nothing
**Requirements**: CORE-01, CORE-02
**Success Criteria** (what must be TRUE):
  1. `make test` passes in CI
  2. A hello page is served
**Plans**: 1 plans

Plans:
- [x] 01-01-PLAN.md - scaffold

### Phase 2: Accounts
**Goal:** Users can sign up and sign in
**Depends on:** Phase 1
**Requirements:** AUTH-01
**Success Criteria** (what must be TRUE):
  1. A user can register with email
**Plans:** 2 plans

Plans:
- [ ] 02-01-PLAN.md - registration
- [ ] 02-02-PLAN.md - login

## Notes

Free text after the details stays untouched.
"""

PLAN = """\
---
phase: "{phase}"
plan: "{plan}"
type: execute
wave: {wave}
depends_on: {deps}
files_modified: [src/app.py]
autonomous: true
requirements: [AUTH-01]
---
# Plan

<objective>
Deliver it.
</objective>

<tasks>
<task type="auto">
  <name>Task 1: build</name>
  <files>src/app.py</files>
  <action>Write the code.</action>
  <verify>pytest -q</verify>
  <done>Tests pass.</done>
</task>
</tasks>
"""


def plan_text(phase: str, plan: str, wave: int = 1, deps: str = "[]") -> str:
    return PLAN.format(phase=phase, plan=plan, wave=wave, deps=deps)


def summary_text(phase: str, plan: str) -> str:
    return f'---\nphase: "{phase}"\nplan: "{plan}"\nsubsystem: core\ntags: [x]\n---\n# Summary\n'


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
