"""0.0.2: the secret-read guard hook was renamed from ``msd-secret-guard`` to
``msd-secret-read-guard`` (it guards reads; the name said too little).

The script ``hooks/msd-secret-guard.py`` moves to ``hooks/msd-secret-read-guard.py``; our
recorded hook entry takes the new label, and the command naming the old script is rewritten
in the config file (and in the manifest), so a timeout or matcher the user tuned is kept
instead of the entry being removed and added again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..installer.migration import Op, View


OLD, NEW = "msd-secret-guard", "msd-secret-read-guard"


@dataclass(frozen=True)
class SecretGuardRenamed:
    id: str = "0001-secret-guard-renamed"
    ships_in: str = "0.0.2"
    legacy_state: tuple[str, ...] = ()

    def plan(self, view: View) -> list[Op]:
        from ..installer.migration import Move, RenameConfigEntry, RewriteValue

        old_rel, new_rel = f"hooks/{OLD}.py", f"hooks/{NEW}.py"
        ops: list[Op] = []
        if old_rel in view.files():
            ops.append(Move(old_rel, new_rel))
        old_label, new_label = f"hook {OLD}", f"hook {NEW}"
        renamed = False
        for entry in view.entries():
            if entry.label != old_label:
                continue
            if not renamed:
                ops.append(RenameConfigEntry(old_label, new_label))
                renamed = True
            for old_ref, new_ref in zip(view.refs(old_rel), view.refs(new_rel), strict=True):
                if old_ref in entry.marker:
                    new_marker = entry.marker.replace(old_ref, new_ref)
                    ops.append(RewriteValue(new_label, entry.marker, new_marker))
                    break
        return ops


MIGRATION = SecretGuardRenamed()
