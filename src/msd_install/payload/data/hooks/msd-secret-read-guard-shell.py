#!/usr/bin/env python3
"""msd-secret-read-guard-shell — the analysis behind msd-secret-read-guard (never registered).

msd-secret-read-guard.py imports this file by path, through the import system, so Python
keeps its compiled form in `__pycache__/` (removed with the install): compiling these ~4,000
lines on every tool call would cost more than everything else the hook does. It holds a bash
parser, word expansion against the real files at the command's working directory, what the
common commands do with their operands, and the secret look-ups; `check_command` and
`secret_file` are its entry points. Standard library only; it writes nothing anywhere.
"""

from __future__ import annotations

import itertools
import os
import re
import stat
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# >>> msd-secret-policy: inlined from _blocks/ at install time >>>
# <<< msd-secret-policy <<<
# >>> msd-shell-ast: inlined from _blocks/ at install time >>>
# <<< msd-shell-ast <<<
# >>> msd-shell-lex: inlined from _blocks/ at install time >>>
# <<< msd-shell-lex <<<
# >>> msd-shell-grammar: inlined from _blocks/ at install time >>>
# <<< msd-shell-grammar <<<
# >>> msd-shell-expand: inlined from _blocks/ at install time >>>
# <<< msd-shell-expand <<<
# >>> msd-shell-pattern: inlined from _blocks/ at install time >>>
# <<< msd-shell-pattern <<<
# >>> msd-shell-glob: inlined from _blocks/ at install time >>>
# <<< msd-shell-glob <<<
# >>> msd-secret-code: inlined from _blocks/ at install time >>>
# <<< msd-secret-code <<<
# >>> msd-secret-readers: inlined from _blocks/ at install time >>>
# <<< msd-secret-readers <<<
# >>> msd-secret-senders: inlined from _blocks/ at install time >>>
# <<< msd-secret-senders <<<
# >>> msd-secret-commands: inlined from _blocks/ at install time >>>
# <<< msd-secret-commands <<<
# >>> msd-shell-builtins: inlined from _blocks/ at install time >>>
# <<< msd-shell-builtins <<<
# >>> msd-secret-programs: inlined from _blocks/ at install time >>>
# <<< msd-secret-programs <<<
# >>> msd-secret-sed: inlined from _blocks/ at install time >>>
# <<< msd-secret-sed <<<
# >>> msd-secret-tools: inlined from _blocks/ at install time >>>
# <<< msd-secret-tools <<<
# >>> msd-secret-find: inlined from _blocks/ at install time >>>
# <<< msd-secret-find <<<
# >>> msd-shell-eval: inlined from _blocks/ at install time >>>
# <<< msd-shell-eval <<<
# >>> msd-secret-filetools: inlined from _blocks/ at install time >>>
# <<< msd-secret-filetools <<<
