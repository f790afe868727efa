"""The runtime registry: every runtime msd-install knows, and the adapters that exist.

The only place that maps a runtime name to its code. The CLI's flags, ``--all``, detection
and the docs' runtime matrix are all generated from ``RUNTIMES``.
"""

from __future__ import annotations

from ._base import Adapter
from .claude import ADAPTER as CLAUDE

# name (= CLI flag without dashes) -> label, in the order of the CLI help
RUNTIMES: dict[str, str] = {
    "claude": "Claude Code",
    "codex": "OpenAI Codex CLI",
    "cursor": "Cursor",
    "copilot": "GitHub Copilot",
    "opencode": "OpenCode",
    "kilo": "Kilo Code",
    "gemini": "Gemini CLI",
    "antigravity": "Google Antigravity",
    "windsurf": "Windsurf",
    "augment": "Augment Code",
    "trae": "Trae",
    "qwen": "Qwen Code",
    "hermes": "Hermes Agent",
    "codebuddy": "CodeBuddy Code",
    "cline": "Cline",
    "kimi": "Kimi CLI",
}

ADAPTERS: dict[str, Adapter] = {a.name: a for a in (CLAUDE,)}


def adapter(name: str) -> Adapter | None:
    """The adapter for ``name``, or None when that runtime is not supported yet."""
    return ADAPTERS.get(name)


def matrix_markdown() -> str:
    """docs/reference/runtimes.md, generated so that it cannot drift from the registry."""
    from pathlib import Path

    from ..installer.context import GLOBAL, LOCAL, Context

    home, project = Path("/HOME"), Path("/PROJECT")
    lines = [
        "# Runtimes",
        "",
        "Generated from `src/msd_install/runtimes/__init__.py`; do not edit by hand",
        "(`MSD_REGEN_DOCS=1 bash scripts/test tests/docs` rewrites it).",
        "",
        "| flag | runtime | status | global root | local root |",
        "|---|---|---|---|---|",
    ]
    for name, label in RUNTIMES.items():
        found = adapter(name)
        if found is None:
            lines.append(f"| `--{name}` | {label} | not supported yet | | |")
            continue
        g = found.root(Context(home=home, cwd=project, scope=GLOBAL))
        loc = found.root(Context(home=home, cwd=project, scope=LOCAL))
        lines.append(
            f"| `--{name}` | {label} | supported | `{_tilde(g, home)}` | "
            f"`{_tilde(loc, project, '.')}` |"
        )
    return "\n".join(lines) + "\n"


def _tilde(path: object, base: object, mark: str = "~") -> str:
    from pathlib import PurePosixPath

    p, b = PurePosixPath(str(path)), PurePosixPath(str(base))
    return f"{mark}/{p.relative_to(b)}" if p.is_relative_to(b) else str(p)
