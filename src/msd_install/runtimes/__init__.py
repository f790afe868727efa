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
