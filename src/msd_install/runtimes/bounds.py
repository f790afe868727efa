"""What a manifest of a runtime's root may name besides its own files, asked cheaply.

``Plan.bounds`` of the adapter's plan over the whole payload is the answer, but that plan
reads, parses and converts every payload file, and an uninstall (or ``doctor``, or a pack's
plan) wants only the config and state files. The same adapter's plan over the payload's
skeleton (``payload/skeleton.py``: every hook, one of each other kind, no bytes) names the
same files; ``tests/runtimes/test_bounds_skeleton.py`` proves it for every runtime and scope.
"""

from __future__ import annotations

from ..installer.context import Context
from ..installer.plan import Bounds
from ..payload.skeleton import skeleton
from ._base import Adapter


def core_bounds(adapter: Adapter, ctx: Context) -> Bounds:
    """The config and state files ``adapter`` names for MSD Core in ``ctx``'s root."""
    return adapter.plan(ctx, skeleton()).bounds()
