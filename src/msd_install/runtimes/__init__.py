"""The runtime registry: every runtime msd-install knows, and the adapters that exist.

The only place that maps a runtime name to its code. The CLI's flags, ``--all``, detection
and the docs' runtime matrix are all generated from ``RUNTIMES`` and ``ADAPTERS``: a new
runtime is one module exporting ``ADAPTER`` plus one line in ``ADAPTERS`` below.
"""

from __future__ import annotations

from ._base import Adapter
from .antigravity import ADAPTER as ANTIGRAVITY
from .augment import ADAPTER as AUGMENT
from .claude import ADAPTER as CLAUDE
from .cline import ADAPTER as CLINE
from .codebuddy import ADAPTER as CODEBUDDY
from .codex import ADAPTER as CODEX
from .copilot import ADAPTER as COPILOT
from .cursor import ADAPTER as CURSOR
from .gemini import ADAPTER as GEMINI
from .hermes import ADAPTER as HERMES
from .kilo import ADAPTER as KILO
from .kimi import ADAPTER as KIMI
from .opencode import ADAPTER as OPENCODE
from .qwen import ADAPTER as QWEN
from .trae import ADAPTER as TRAE
from .windsurf import ADAPTER as WINDSURF

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

ADAPTERS: dict[str, Adapter] = {
    a.name: a
    for a in (
        CLAUDE,
        CODEX,
        COPILOT,
        OPENCODE,
        KILO,
        GEMINI,
        HERMES,
        AUGMENT,
        QWEN,
        CODEBUDDY,
        KIMI,
        CLINE,
        CURSOR,
        WINDSURF,
        ANTIGRAVITY,
        TRAE,
    )
}


def adapter(name: str) -> Adapter | None:
    """The adapter for ``name``, or None when that runtime is not supported yet."""
    return ADAPTERS.get(name)


def matrix_markdown() -> str:
    """docs/reference/runtimes.md, generated so that it cannot drift from the registry."""
    from .matrix import matrix_markdown as render

    return render(RUNTIMES, ADAPTERS)
