"""Every adapter that exists, by runtime name (the registry's names and labels are in
``msd_install.runtimes``; this module imports all sixteen runtime modules, so only the verbs
that plan or detect import it)."""

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
