"""The runtime registry: every runtime msd-install knows, and the adapters that exist.

The only place that maps a runtime name to its code. The CLI's flags, ``--all``, detection
and the docs' runtime matrix are all generated from ``RUNTIMES`` and ``ADAPTERS``: a new
runtime is one module exporting ``ADAPTER`` plus one line in ``ADAPTERS`` (``adapters.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._base import Adapter
    from .adapters import ADAPTERS as ADAPTERS

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
    "kimi": "Kimi Code CLI",
}


def __getattr__(name: str) -> Any:
    """``ADAPTERS`` is imported on first use: ``msd-install --help`` needs only the names."""
    if name == "ADAPTERS":
        from .adapters import ADAPTERS

        globals()["ADAPTERS"] = ADAPTERS
        return ADAPTERS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def adapter(name: str) -> Adapter | None:
    """The adapter for ``name``, or None when that runtime is not supported yet."""
    from .adapters import ADAPTERS

    return ADAPTERS.get(name)


def matrix_markdown() -> str:
    """docs/reference/runtimes.md, generated so that it cannot drift from the registry."""
    from .adapters import ADAPTERS
    from .matrix import matrix_markdown as render

    return render(RUNTIMES, ADAPTERS)
