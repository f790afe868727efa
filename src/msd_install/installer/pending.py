"""Which installer migrations a manifest still needs, and what earlier versions may have left.

``pending``: the migrations (``msd_install.migrations.ALL``) a root's manifest has not
recorded and that are newer than the version that wrote it; ``records``: what a new manifest
records of them; ``widened``: an adapter's bounds plus the run-time state files earlier
versions listed, so that their manifests are accepted, migrated and uninstalled. Apart from
``migration.py`` (the operations and the view a plan looks at), which only a migration that
plans needs: every install, reinstall and uninstall asks these questions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .plan import Bounds

if TYPE_CHECKING:
    from .manifest import Manifest
    from .manifest import MigrationRecord as Applied
    from .migration import Migration

_VERSION = re.compile(r"(\d+(?:\.\d+)*)(?:[-_.]?(a|b|rc|alpha|beta|c|pre|preview|dev)\.?(\d*))?")


def version_key(text: str) -> tuple[tuple[int, ...], int, int]:
    """``0.1.0`` -> ((0, 1), 1, 0): the release (trailing zeros dropped), then a pre-release
    (``1.0.0rc12``: 0, 12) before the final release (1); anything unreadable sorts first
    (the oldest), so every migration runs for it."""
    match = _VERSION.fullmatch(text.strip().lower().lstrip("v"))
    if not match:
        return ((-1,), 0, 0)
    release = [int(p) for p in match.group(1).split(".")]
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    pre = match.group(2)
    return (tuple(release), 0 if pre else 1, int(match.group(3) or 0))


def records(migrations: Sequence[Migration]) -> list[Applied]:
    return [{"id": m.id, "version": m.ships_in} for m in migrations]


def pending(old: Manifest, migrations: Sequence[Migration]) -> list[Migration]:
    """The migrations ``old`` needs: not recorded, and newer than the version that wrote it."""
    done = {(a["id"], a["version"]) for a in old.migrations}
    written_by = version_key(old.installer_version)
    return [
        m
        for m in migrations
        if (m.id, m.ships_in) not in done and version_key(m.ships_in) > written_by
    ]


def widened(
    bounds: Callable[[], Bounds], root: Path, migrations: Sequence[Migration]
) -> Callable[[], Bounds]:
    """The adapter's bounds plus the state files earlier versions listed (so that their
    manifests are accepted, migrated and uninstalled)."""

    def inner() -> Bounds:
        base = bounds()
        legacy = {root / rel for m in migrations for rel in m.legacy_state}
        return Bounds(base.config_files, base.state_files | legacy)

    return inner
