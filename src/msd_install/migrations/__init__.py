"""Installer migrations: one module per migration, listed here by hand, oldest first.

Each module exports ``MIGRATION``: an ``id``, the version it ``ships_in``, the run-time state
files earlier versions listed (``legacy_state``) and a pure ``plan(view)`` returning the
operations of ``installer/migration.py`` (move, remove-if-ours, rename a config entry, rewrite
a value). The engine applies the ones a root's manifest has not recorded, in the install's
transaction, and records them (id and version) so that none is ever applied twice.
A module imports those operations inside its ``plan``: every run imports this list (to know
what is pending, and the state files earlier versions listed), few ever plan one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import m0001_secret_guard_renamed, m0002_engine_dir_moved, m0003_hook_code_split

if TYPE_CHECKING:
    from ..installer.migration import Migration

ALL: tuple[Migration, ...] = (
    m0001_secret_guard_renamed.MIGRATION,
    m0002_engine_dir_moved.MIGRATION,
    m0003_hook_code_split.MIGRATION,
)

__all__ = ["ALL"]
