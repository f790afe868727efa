"""Run ``msd-install ARGS`` on a synthetic payload: ``python bench/synthetic_run.py DATA -- ARGS``.

DATA is a folder laid out like ``src/msd_install/payload/data`` (bench/incumbent_bench.py
writes one of the incumbent's shape). It is read by the payload loader's own ``load_tree``,
the code ``payload.load()`` runs on the bundled data, then the real entry point runs: the
same code path as an install of MSD Core, on a payload of another size.
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

from msd_install import payload
from msd_install.entry import main

data = Path(sys.argv[1])
payload.load = cache(lambda: payload.load_tree(data))
main(sys.argv[3:] if sys.argv[2:3] == ["--"] else sys.argv[2:])
