"""Pristine store figures: what keeping the installed bytes costs, per runtime and scope.

Plans every runtime (global, and local where it has one) on a fake machine, builds the store
an install would write (installer/pristine.py) and prints, per root: files kept, their bytes,
the store's size and the time to pack and compress it (and to read it back), plus the total
for `--all --global`. Figures only, no assertions.

Usage: python bench/pristine_bench.py
"""

from __future__ import annotations

import time
from pathlib import Path

from msd_install.installer import pristine
from msd_install.installer.context import GLOBAL, LOCAL, Context
from msd_install.payload import load
from msd_install.runtimes import ADAPTERS


def main() -> None:
    payload = load()
    base = Context(home=Path("/HOME"), cwd=Path("/PROJECT"), interpreter=Path("/usr/bin/python3"))
    total_files = total_bytes = total_store = 0
    print(
        f"{'runtime':<12} {'scope':<7} {'files':>5} {'bytes':>10} {'store':>9} "
        f"{'ms':>6} {'read ms':>8}"
    )
    for name, adapter in ADAPTERS.items():
        for scope in (GLOBAL, LOCAL):
            if scope not in adapter.scopes:
                continue
            plan = adapter.plan(base.with_scope(scope), payload)
            contents = [op.content for op in plan.files]
            start = time.perf_counter()
            stored = pristine.compress(pristine.pack(contents))
            packed_ms = (time.perf_counter() - start) * 1000
            start = time.perf_counter()
            blobs = pristine.blobs(pristine.unpack(stored))
            read_ms = (time.perf_counter() - start) * 1000
            size = sum(len(c) for c in blobs.values())
            print(
                f"{name:<12} {scope:<7} {len(blobs):>5} {size:>10,} {len(stored):>9,} "
                f"{packed_ms:>6.0f} {read_ms:>8.0f}"
            )
            if scope == GLOBAL:
                total_files += len(blobs)
                total_bytes += size
                total_store += len(stored)
    print(f"{'--all':<12} {'global':<7} {total_files:>5} {total_bytes:>10,} {total_store:>9,}")


if __name__ == "__main__":
    main()
