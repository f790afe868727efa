"""One root's health for ``msd-install doctor``: manifest or not, then ``doctor.diagnose``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import MsdError
from . import manifest
from .doctor import Finding, Health, diagnose


def check_health(runtime: str, scope: str, root: Path) -> Health:
    try:
        found = manifest.load(root) if root.is_dir() else None
    except MsdError as exc:
        return Health(runtime, scope, root, True, [Finding("problem", root, exc.one_line())])
    if found is None:
        return Health(runtime, scope, root, False)
    return Health(runtime, scope, root, True, diagnose(found))


def health_json(health: Health) -> dict[str, Any]:
    return {
        "runtime": health.runtime,
        "scope": health.scope,
        "root": str(health.root),
        "installed": health.installed,
        "healthy": health.healthy,
        "findings": [
            {"level": f.level, "path": str(f.path), "message": f.message} for f in health.findings
        ],
    }
