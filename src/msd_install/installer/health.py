"""One root's health for ``msd-install doctor``: manifest or not, then ``doctor.diagnose``.

A manifest that fails validation is not a finding: like every other command, doctor stops
with the one-line ``ManifestError`` (exit 4), having changed nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import manifest
from .context import Context
from .doctor import Finding, Health, diagnose
from .plan import Bounds
from .recovery import recover
from .registry import Registry

FOREIGN_NOTE = (
    "not written by your msd-install (cloned, edited, moved or older): uninstall removes "
    "only what still hashes as msd's; running msd-install here makes it yours"
)

NO_PYTHON3 = (
    "python3 is not on your PATH: this project's hooks and MCP server run `python3` "
    "(3.10 or newer) from the PATH; install one or put it on the PATH"
)


def check_health(runtime: str, ctx: Context, root: Path, bounds: Callable[[], Bounds]) -> Health:
    registry = Registry(ctx.manifest_registry())
    recovered = None
    if root.is_dir():  # an interrupted run is rolled back first, like every verb does
        recovered = recover(root, bounds, registry, fence=ctx.cwd if ctx.is_local else None)
    found = manifest.load(root, bounds, registry) if root.is_dir() else None
    if found is None:
        notes = [Finding("note", root, recovered)] if recovered else []
        return Health(runtime, ctx.scope, root, False, notes)
    findings = diagnose(found)
    if ctx.is_local and ctx.which("python3") is None:
        # a project install's commands run python3 from the PATH (portable-installs.md)
        findings.append(Finding("problem", root, NO_PYTHON3))
    if recovered:
        findings.insert(0, Finding("note", root, recovered))
    if not found.trusted:
        findings.insert(0, Finding("note", found.path, FOREIGN_NOTE))
    return Health(runtime, ctx.scope, root, True, findings)


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
