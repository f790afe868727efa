"""``docs/reference/runtimes.md``, generated from the registry and the adapters' own plans.

The page is derived by planning a real install into a fake ``/HOME`` and ``/PROJECT`` for every
runtime and scope, so what it says lands where is what the adapter would really write; a test
fails when the committed page differs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from ..installer.context import GLOBAL, LOCAL, Context
from ..payload import load
from ._base import Adapter

HOME, PROJECT = Path("/HOME"), Path("/PROJECT")


def _tilde(path: Path) -> str:
    p = PurePosixPath(path.as_posix())
    for base, mark in ((PROJECT, "."), (HOME, "~")):
        b = PurePosixPath(base.as_posix())
        if p.is_relative_to(b):
            return f"{mark}/{p.relative_to(b)}"
    return str(p)


def _surfaces(adapter: Adapter, scope: str) -> tuple[str, list[str], list[str]]:
    ctx = Context(home=HOME, cwd=PROJECT, scope=scope)
    plan = adapter.plan(ctx, load())
    groups: Counter[str] = Counter()
    for op in plan.files:
        rel = (
            op.path.relative_to(plan.root).as_posix() if op.path.is_relative_to(plan.root) else None
        )
        if rel is None:
            groups[_tilde(op.path.parent) + "/"] += 1
            continue
        parts = rel.split("/")
        key = parts[0] + "/" if len(parts) > 1 else parts[0]
        groups[key] += 1
    files = [f"`{name}` ({count})" for name, count in sorted(groups.items())]
    config: dict[str, list[str]] = {}
    for entry in plan.entries:
        config.setdefault(_tilde(entry.file), []).append(entry.label.split(" ")[0])
    configs = [
        f"`{name}`: " + ", ".join(f"{k} ×{v}" if v > 1 else k for k, v in Counter(labels).items())
        for name, labels in config.items()
    ]
    return _tilde(plan.root), files, configs


def matrix_markdown(runtimes: dict[str, str], adapters: Mapping[str, Adapter]) -> str:
    lines = [
        "# Runtimes",
        "",
        "Generated from the runtime registry (`src/msd_install/runtimes/`) by planning an install",
        "into a fake `~` and project; do not edit by hand",
        "(`MSD_REGEN_DOCS=1 bash scripts/test tests/docs` rewrites it).",
        "",
        "| flag | runtime | global root | local root | override | hooks |",
        "|---|---|---|---|---|---|",
    ]
    details: list[str] = []
    for name, label in runtimes.items():
        adapter = adapters[name]
        g_root, g_files, g_config = _surfaces(adapter, GLOBAL)
        l_root, l_files, l_config = (
            _surfaces(adapter, LOCAL) if LOCAL in adapter.scopes else ("—", [], [])
        )
        override = f"`{adapter.env_override}`" if adapter.env_override else ""
        lines.append(
            f"| `--{name}` | {label} | `{g_root}` | `{l_root}` | {override} | "
            f"{adapter.hooks or 'none'} |"
        )
        details += [f"## {label} (`--{name}`)", ""]
        for scope, root, files, config in (
            ("global", g_root, g_files, g_config),
            ("local", l_root, l_files, l_config),
        ):
            if not files:
                details.append(f"- **{scope}**: none (the runtime has no {scope} scope)")
                continue
            details.append(f"- **{scope}** into `{root}`: " + ", ".join(files))
            if config:
                details.append("  - config entries: " + "; ".join(config))
        if adapter.sources:
            details.append(f"- sources and open questions: {adapter.sources}")
        details.append("")
    return "\n".join([*lines, "", *details]).rstrip("\n") + "\n"
