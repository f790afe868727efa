"""A pack installs no path another manifest of the same root lists (MSD Core's or a pack's).

Names are namespaced by prefix (``<pack>-<name>``), and a prefix is not unique: pack ``acme``'s
``commands/git/commit.md`` and pack ``acme-git``'s ``commands/commit.md`` both become
``acme-git-commit``. Whichever came second would take the first one's file (``--force``
overwrites what it finds), and the uninstalls then leave one of them behind. So a pack's
install is refused, before anything is written, when one of its paths is in another manifest
of the root. ``--force`` does not change that: it is for the user's own files, never for what
another install of msd owns.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..errors import ManifestError, UsageError
from . import manifest
from .manifestcheck import MANIFEST_NAME, PACK_MANIFEST
from .plan import Bounds, Plan


def refuse_claimed(plan: Plan, bounds: Callable[[], Bounds]) -> None:
    """Raise ``UsageError`` naming both owners and the path when ``plan`` (a pack's) would
    install a file another manifest of its root lists."""
    if not plan.namespace:
        return
    own = manifest.manifest_name(plan.namespace)
    wanted = {op.path for op in plan.files}
    for name in _manifests(plan.root):
        if name == own:
            continue
        try:
            other = manifest.validated(plan.root, bounds, name)
        except ManifestError:
            continue  # a damaged manifest is its own uninstall's problem
        if other is None:
            continue
        for rel in sorted(other.files):
            if other.abs(rel) in wanted:
                raise UsageError(
                    f"pack {plan.namespace} would install this file, which {_owner(name)} "
                    f"installed ({name}): rename the pack or its file; nothing was changed",
                    path=other.abs(rel),
                )


def _manifests(root: Path) -> list[str]:
    try:
        names = sorted(p.name for p in root.iterdir())
    except OSError:
        return []
    return [n for n in names if n == MANIFEST_NAME or PACK_MANIFEST.fullmatch(n)]


def _owner(name: str) -> str:
    if name == MANIFEST_NAME:
        return "MSD Core"
    return f"pack {name.removeprefix('msd-file-manifest.').removesuffix('.json')}"
