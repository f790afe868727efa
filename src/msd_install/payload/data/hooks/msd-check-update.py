#!/usr/bin/env python3
"""msd-check-update — SessionStart hook (MSD Core): announces a newer msd-install.

Reads `<root>/msd-core/cache/msd-update-check.json` (root = this file's parent's parent, the runtime
root) and, when it says a newer version exists for the version in `<root>/msd-core/VERSION`,
adds a short notice (additionalContext + systemMessage). When the cache is missing, about
another installed version, or due (RECHECK_SECONDS after an answer; after a failed check, its
`retry_after`, which backs off from 15 min to 6 h), it starts msd-check-update-worker.py
detached in the background and returns at once; the worker refreshes the cache for next time.
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
HOOKS_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HOOKS_DIR)
CACHE = os.path.join(ROOT, "msd-core", "cache", "msd-update-check.json")
WORKER = os.path.join(HOOKS_DIR, "msd-check-update-worker.py")
RECHECK_SECONDS = 6 * 3600


def due(cache: dict[str, Any], now: float) -> bool:
    """Whether the cache should be refreshed (a clock set back counts as due)."""
    checked, retry = cache.get("checked"), cache.get("retry_after")
    if not isinstance(checked, (int, float)) or now < checked:
        return True
    if isinstance(retry, (int, float)) and cache.get("failures"):
        return not now < retry <= checked + RECHECK_SECONDS
    return now - checked >= RECHECK_SECONDS


def installed_version() -> str:
    try:
        with open(os.path.join(ROOT, "msd-core", "VERSION"), encoding="utf-8") as handle:
            return handle.read().strip()
    except (OSError, ValueError):
        return ""


def spawn_worker() -> None:
    """Start the worker in its own session/process group, detached from our pipes."""
    import subprocess

    argv = [sys.executable, "-I", "-S", WORKER]
    null = subprocess.DEVNULL
    if os.name == "nt":
        # DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP | CREATE_NO_WINDOW
        flags = 0x00000008 | 0x00000200 | 0x08000000
        subprocess.Popen(argv, stdin=null, stdout=null, stderr=null, creationflags=flags)
    else:
        subprocess.Popen(argv, stdin=null, stdout=null, stderr=null, start_new_session=True)


def main(data: dict[str, Any]) -> None:
    installed = installed_version()
    if not installed:
        return
    try:
        cache = json_file(CACHE)
    except (OSError, ValueError):
        cache = None
    cache = cache if isinstance(cache, dict) else {}
    current = cache.get("installed") == installed
    if (not current or due(cache, time.time())) and os.path.isfile(WORKER):
        spawn_worker()
    latest = cache.get("latest")
    if current and cache.get("update_available") is True and isinstance(latest, str):
        text = (
            f"MSD Core update available: msd-install {latest} (installed {installed}). "
            "Run /msd-update to upgrade."
        )
        advise(data, "SessionStart", text, notify=True)


if __name__ == "__main__":
    run(main)
