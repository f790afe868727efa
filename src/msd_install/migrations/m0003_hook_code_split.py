"""0.1.0: each registered hook became a launcher and its code (payload/hookcode.py).

Until then ``hooks/msd-<name>.py`` held the whole hook; now it is a launcher of a few lines and
the hook's code is in ``hooks/msd-<name>-code.py``, which Python keeps compiled. The old file
moves to the code's path (the install then updates it to this version's code and writes the
launcher where it was); one the user changed moves with their bytes, so the install saves the
edit as a patch set for the code file, where ``--reapply`` can merge it. The commands in the
config files name the same script as before: nothing there changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..payload.hookcode import code_script

if TYPE_CHECKING:
    from ..installer.migration import Op, View

# the registered hooks of the versions before 0.1.0 (msd-secret-guard was renamed in 0.0.2,
# by 0001, which runs first)
HOOKS = (
    "msd-check-update",
    "msd-context-monitor",
    "msd-phase-boundary",
    "msd-prompt-guard",
    "msd-read-guard",
    "msd-read-injection-scanner",
    "msd-secret-read-guard",
    "msd-session-state",
    "msd-statusline",
    "msd-validate-commit",
    "msd-workflow-guard",
)


@dataclass(frozen=True)
class HookCodeSplit:
    id: str = "0003-hook-code-split"
    ships_in: str = "0.1.0"
    legacy_state: tuple[str, ...] = ()

    def plan(self, view: View) -> list[Op]:
        from ..installer.migration import Move

        files = set(view.files())
        ops: list[Op] = []
        for name in HOOKS:
            old, new = f"hooks/{name}.py", f"hooks/{code_script(name + '.py')}"
            if old in files and new not in files:
                ops.append(Move(old, new))
        return ops


MIGRATION = HookCodeSplit()
