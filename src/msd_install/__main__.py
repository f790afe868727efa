"""``python -m msd_install``: the same as the ``msd-install`` command."""

from __future__ import annotations

from .entry import main

main()
