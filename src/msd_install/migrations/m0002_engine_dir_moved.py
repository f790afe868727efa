"""0.1.0: the engine directory moved from ``<root>/msd/`` to ``<root>/msd-core/`` (``msd/``
was too likely to be a folder of the user's, and ``msd-core`` names what it holds).

Every file of ours under ``msd/`` moves to ``msd-core/`` (the install then updates it to this
version's text); one the user changed moves with their bytes, and the install saves it as a
patch set under its new path, for ``--reapply``.
The update-check cache (run-time state) moves with it. Config values naming the MCP launcher
under ``msd/`` (the server's args) are rewritten, so a user's tuning of the server entry
(an env var, say) is kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..installer.migration import Op, View


OLD, NEW = "msd/", "msd-core/"
STATE = "msd/cache/msd-update-check.json"


@dataclass(frozen=True)
class EngineDirMoved:
    id: str = "0002-engine-dir-moved"
    ships_in: str = "0.1.0"
    legacy_state: tuple[str, ...] = (STATE,)

    def plan(self, view: View) -> list[Op]:
        from ..installer.migration import Move, RewriteValue

        ops: list[Op] = [
            Move(rel, NEW + rel[len(OLD) :]) for rel in view.files() if rel.startswith(OLD)
        ]
        ops += [Move(rel, NEW + rel[len(OLD) :]) for rel in view.state() if rel.startswith(OLD)]
        old_refs = view.refs(OLD.rstrip("/"))
        new_refs = view.refs(NEW.rstrip("/"))
        for entry in view.entries():
            for text in sorted(_strings(entry.value)):
                for old_ref, new_ref in zip(old_refs, new_refs, strict=True):
                    if text == old_ref or text.startswith(old_ref + "/"):
                        ops.append(RewriteValue(entry.label, text, new_ref + text[len(old_ref) :]))
                        break
        return ops


def _strings(value: object) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return {s for v in value.values() for s in _strings(v)}
    if isinstance(value, list):
        return {s for v in value for s in _strings(v)}
    return set()


MIGRATION = EngineDirMoved()
