#!/usr/bin/env python3
"""msd-phase-boundary — PostToolUse hook on Write|Edit (MSD Core), advisory.

When a plan summary (`…SUMMARY.md`) or a phase verification (`…VERIFICATION.md`) under
`.planning/phases/<phase>/` has just been written, reminds the agent of the bookkeeping that
belongs to that boundary: updating STATE.md and moving on to verification.
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

# >>> msd-hook-common: inlined from _blocks/ at install time >>>
# <<< msd-hook-common <<<
PHASE_NUMBER = r"^(\d+(?:\.\d+)*)"


def main(data: dict[str, Any]) -> None:
    if tool_kind(data) not in ("write", "edit"):
        return
    path = target_path(data)
    if not path:
        return
    parts = path.replace("\\", "/").split("/")
    if len(parts) < 4 or parts[-4:-2] != [".planning", "phases"]:
        return
    name, phase_dir = parts[-1], parts[-2]
    import re  # only for a file under .planning/phases/: most calls never import it

    match = re.match(PHASE_NUMBER, phase_dir)
    phase = match.group(1) if match else phase_dir
    where = f".planning/phases/{phase_dir}/{name}"
    if name.upper().endswith("SUMMARY.MD"):
        text = (
            f"MSD phase boundary: plan summary {where} written. Record it in STATE.md "
            "(`msd-tools state advance-plan`); when every plan of phase "
            f"{phase} has a summary, run /msd-verify-work {phase}."
        )
    elif name.upper().endswith("VERIFICATION.MD"):
        text = (
            f"MSD phase boundary: verification {where} written. Update STATE.md with the "
            f"outcome; if phase {phase} passed, mark it done (`msd-tools phase complete "
            f"{phase}`), otherwise plan the gaps first (/msd-plan-phase {phase})."
        )
    else:
        return
    advise(data, "PostToolUse", text)


if __name__ == "__main__":
    run(main)
