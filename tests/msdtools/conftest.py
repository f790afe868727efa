"""A sample two-phase project: phase 1 done, phase 2 with two plans of which one is executed."""

from __future__ import annotations

from pathlib import Path

import pytest
from msdtools_util import ROADMAP, TEMPLATES, plan_text, summary_text, write


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    state = (TEMPLATES / "state.md").read_text(encoding="utf-8")
    state = state.replace("{{project_name}}", "Demo").replace("{{date}}", "2026-01-01")
    state = state.replace('current_phase: "1"', 'current_phase: "2"')
    write(
        root,
        {
            ".planning/PROJECT.md": "# Demo\n",
            ".planning/ROADMAP.md": ROADMAP,
            ".planning/STATE.md": state,
            ".planning/config.json": (TEMPLATES / "config.json").read_text(encoding="utf-8"),
            ".planning/phases/01-foundation/01-01-PLAN.md": plan_text("01", "01"),
            ".planning/phases/01-foundation/01-01-SUMMARY.md": summary_text("01", "01"),
            ".planning/phases/01-foundation/01-VERIFICATION.md": (
                '---\nphase: "01"\nstatus: passed\nscore: "2/2"\n---\n'
            ),
            ".planning/phases/02-accounts/02-CONTEXT.md": '---\nphase: "02"\n---\n# ctx\n',
            ".planning/phases/02-accounts/02-01-PLAN.md": plan_text("02", "01"),
            ".planning/phases/02-accounts/02-02-PLAN.md": plan_text("02", "02", 2, '["01"]'),
            ".planning/phases/02-accounts/02-01-SUMMARY.md": summary_text("02", "01"),
            "src/app.py": "print('hi')\n",
        },
    )
    return root
