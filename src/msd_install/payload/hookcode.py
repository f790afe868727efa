"""A registered hook is installed as a small launcher and its code, which Python keeps compiled.

Python compiles the script it is given on every start; only a file loaded through the import
system keeps its bytecode (``__pycache__/<name>.<tag>.pyc``). A hook runs on every tool call,
and compiling one (its shared blocks inlined, 700 to 4,000 lines) took about as long as
starting Python itself. So the script a runtime is told to run, ``hooks/msd-<name>.py``, is a
launcher of a few lines that loads ``hooks/msd-<name>-code.py`` through the import system and
runs it as ``__main__``:

- the first call compiles the code and writes its bytecode beside it (where the folder is
  writable); every later call loads that bytecode, checked against the source's size and time
  by Python itself, so an edited or upgraded hook is compiled again, never run stale;
- another interpreter (a committed project install run by another ``python3``) has its own
  cache file: nothing breaks, the first call compiles;
- the code runs with ``__name__ == "__main__"`` and ``__file__`` naming the code file, in the
  same folder, so everything it finds relative to itself is where it was.

``msd-install --uninstall`` removes the bytecode files compiled from the files it installed
(installer/uninstall.py), as it already did for the MCP server's package. Helper scripts that
are not registered (event ``None``) are left as they are: they are started rarely, or already
loaded as modules (the secret guard's shell analysis).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from . import HookSpec

CODE_SUFFIX = "-code.py"

_LAUNCHER = '''#!/usr/bin/env python3
"""MSD Core hook launcher: runs the hook's code, in CODE beside this file, from its bytecode.

Python compiles a script on every start but keeps the bytecode of a file it imports: this
launcher loads CODE through the import system, which caches it in __pycache__/ (removed by
msd-install --uninstall), and runs it as the script.
"""

import os
import sys
from importlib.machinery import SourceFileLoader

CODE = "{code}"


def main() -> None:
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), CODE)
    code = SourceFileLoader("__main__", path).get_code("__main__")
    if code is None:
        sys.exit(f"{{CODE}}: no code to run")
    exec(code, {{"__name__": "__main__", "__file__": path}})


if __name__ == "__main__":
    main()
'''


def code_script(script: str) -> str:
    """``msd-x.py`` -> ``msd-x-code.py``."""
    return script[: -len(".py")] + CODE_SUFFIX


def split(hook: HookSpec) -> tuple[HookSpec, HookSpec]:
    """The launcher (registered under the hook's own name and script) and its code (a helper
    the launcher requires, so every adapter installs the two together)."""
    code = code_script(hook.script)
    launcher = _LAUNCHER.format(code=code)
    return (
        replace(hook, content=launcher.encode("utf-8"), requires=(code, *hook.requires)),
        replace(
            hook,
            name=code[: -len(".py")],
            script=code,
            event=None,
            matcher=None,
            timeout=None,
            requires=(),
        ),
    )
