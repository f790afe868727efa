"""Run ``msd-install ARGS`` on a synthetic payload: ``python bench/synthetic_run.py DATA -- ARGS``.

DATA is a folder laid out like ``src/msd_install/payload/data`` (bench/incumbent_bench.py
writes one of the incumbent's shape). It is read by the payload loader's own ``load_tree``,
the code ``payload.load()`` runs on the bundled data, then the real entry point runs: the
same code path as an install of MSD Core, on a payload of another size.

``msd_install.payload`` is not imported here: ``payload.load`` is replaced right after the
CLI first imports the module (an import hook wraps its loader), so each verb imports what a
user's run imports, when it does (an uninstall converts no payload), and the bench measures
that.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from msd_install.entry import main

PAYLOAD = "msd_install.payload"
data = sys.argv[1]


class SyntheticPayload:
    """A finder that finds ``msd_install.payload`` as the finders after it do, and has its
    loader set ``payload.load`` to read DATA once the module's own code has run."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != PAYLOAD:
            return None
        sys.meta_path.remove(self)  # once: the module is imported once
        spec = None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = find(name, path, target) if find is not None else None
            if spec is not None:
                break
        if spec is None or spec.loader is None:  # never silently the bundled payload
            raise ImportError(f"synthetic_run: cannot find {PAYLOAD} to patch its load()")
        own = spec.loader.exec_module

        def exec_module(module: ModuleType) -> None:
            own(module)
            from functools import cache

            module.load = cache(lambda: module.load_tree(Path(data)))

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


if PAYLOAD in sys.modules or not (Path(data) / "commands").is_dir():  # never the bundled one,
    sys.exit(f"synthetic_run: {data!r} is not a payload folder (no commands/)")  # nor none
sys.meta_path.insert(0, SyntheticPayload())
main(sys.argv[3:] if sys.argv[2:3] == ["--"] else sys.argv[2:])
