"""Golden trees: what an adapter plans for a runtime and scope, kept in the repository.

``check(name, plan)`` compares a plan with ``golden/<name>.json``: every planned path with the
sha256 of its bytes (code files: path and mode only) and its mode, the full text of the sample
files named, every config entry and the plan's notes. Regenerate only on purpose:
``MSD_REGEN_GOLDEN=1 bash scripts/test tests/runtimes``.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from msd_install.installer.context import Context
from msd_install.installer.plan import Plan

GOLDEN = Path(__file__).parent / "golden"
HOME, PROJECT = Path("/HOME"), Path("/PROJECT")
PY = Path("/usr/bin/python3")


def context(scope: str, **extra: Any) -> Context:
    """The fake machine every golden tree is planned on."""
    return Context(
        home=HOME,
        cwd=PROJECT,
        scope=scope,
        interpreter=PY,
        state_dir=HOME / ".local/state/msd",
        **extra,
    )


def _rel(path: Path) -> str:
    for base, mark in ((PROJECT, "<project>"), (HOME, "~")):
        if path.is_relative_to(base):
            return f"{mark}/{path.relative_to(base).as_posix()}"
    return path.as_posix()


def render(plan: Plan, samples: tuple[str, ...] = ()) -> dict[str, Any]:
    files: dict[str, Any] = {}
    texts: dict[str, str] = {}
    for op in sorted(plan.files, key=lambda o: o.path):
        rel = _rel(op.path)
        # code copied verbatim (hooks, msd-tools, the MCP server) changes with the payload, not
        # with the adapter: recorded by path and mode only, so its own work does not churn this
        verbatim = op.path.suffix == ".py" or "/msd-core/bin/" in op.path.as_posix()
        digest = "code" if verbatim else hashlib.sha256(op.content).hexdigest()[:16]
        files[rel] = [digest, oct(op.mode)]
        if any(rel.endswith(s) for s in samples):
            texts[rel] = op.content.decode("utf-8")
    entries = [
        {
            "file": _rel(e.file),
            "fmt": e.fmt,
            "kind": e.kind,
            "path": list(e.path),
            "key": e.key,
            "value": e.value,
            "label": e.label,
        }
        for e in plan.entries
    ]
    return {
        "root": _rel(plan.root),
        "files": files,
        "samples": texts,
        "entries": entries,
        "notes": list(plan.notes),
    }


def check(name: str, plan: Plan, samples: tuple[str, ...] = ()) -> None:
    path = GOLDEN / f"{name}.json"
    got = json.dumps(render(plan, samples), indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if os.environ.get("MSD_REGEN_GOLDEN") == "1":
        path.write_text(got, encoding="utf-8")
    assert path.is_file(), f"no golden tree {path.name}: run with MSD_REGEN_GOLDEN=1"
    want = path.read_text(encoding="utf-8")
    assert got == want, f"{name} differs from its golden tree (MSD_REGEN_GOLDEN=1 if intended)"
