"""How many runs of a multi-runtime command may go side by side (``MSD_INSTALL_JOBS``).

Checked on every run, so that a bad setting is refused even when one runtime is named; the
workers themselves (``parallel.py``) are imported only by a run of several runtimes.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from .errors import UsageError

JOBS_ENV = "MSD_INSTALL_JOBS"
MAX_JOBS = 4  # more workers than this only add contention on the disk and the registry


def jobs(env: Mapping[str, str]) -> int:
    """How many runs may go side by side: ``MSD_INSTALL_JOBS``, else the CPUs this process
    may use (at most ``MAX_JOBS``); 1 where processes cannot be forked."""
    raw = env.get(JOBS_ENV, "")
    if raw:
        number = raw.strip()
        # the digits bounded before ``int`` reads them: never a 100,000-digit conversion
        if not (number.isascii() and number.isdigit() and len(number) <= 8):
            raise UsageError(f"{JOBS_ENV}={raw!r} is not a number of workers from 1 to 64")
        wanted = int(number)
        if not 1 <= wanted <= 64:
            raise UsageError(f"{JOBS_ENV}={raw!r} is not a number of workers from 1 to 64")
    else:
        try:
            wanted = min(len(os.sched_getaffinity(0)), MAX_JOBS)
        except AttributeError:  # pragma: no cover - macOS
            wanted = min(os.cpu_count() or 1, MAX_JOBS)
    return wanted if hasattr(os, "fork") else 1
