"""A registered hook is installed as a small launcher and its code, which Python keeps compiled.

Python compiles the script it is given on every start; only a file loaded through the import
system keeps its bytecode (``__pycache__/<name>.<tag>.pyc``). A hook runs on every tool call,
and compiling one (its shared blocks inlined, 700 to 4,000 lines) took about as long as
starting Python itself. So the script a runtime is told to run, ``hooks/msd-<name>.py``, is a
launcher of a few lines that loads ``hooks/msd-<name>-code.py`` through the import system and
runs it as ``__main__``:

- the first call compiles the code and writes its bytecode beside it (where the folder is
  writable); every later call loads that bytecode, checked against the source by Python
  itself, so an edited or upgraded hook is compiled again;
- another interpreter (a committed project install run by another ``python3``) has its own
  cache file: nothing breaks, the first call compiles;
- the code runs with ``__name__ == "__main__"`` and ``__file__`` naming the code file, in the
  same folder, so everything it finds relative to itself is where it was;
- a damaged cache file is passed over (the source is compiled instead), and code that cannot
  be loaded at all (missing, unreadable, a syntax error) stops the call with exit 2 and one
  line on stderr: a guard fails closed, as it did when a missing script made Python exit 2.

Python checks a cache file against the source's size and modification time (whole seconds),
as for every module: an edit of the same size in the same second as the compile it follows
could run the previous code once more, until the next change. Installs and upgrades write
through msd-install, which removes the caches of the files it replaces or removes.

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
msd-install --uninstall), and runs it as the script. A damaged cache is passed over; code that
cannot be loaded at all stops the call (exit 2), as a missing hook script would.
"""

import os
import sys
from importlib.machinery import SourceFileLoader

CODE = "{code}"


def main() -> None:
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), CODE)
    loader = SourceFileLoader("__main__", path)
    try:
        code = loader.get_code("__main__")
    except Exception:  # a damaged cache, or a source that cannot be read: tried again below
        code = None
    if code is None:
        try:
            code = compile(loader.get_data(path), path, "exec", dont_inherit=True)
        except Exception as exc:
            sys.stderr.write(
                f"MSD hook {{CODE}} cannot be loaded ({{type(exc).__name__}}: {{exc}}); "
                "install MSD Core again with msd-install to repair it\\n"
            )
            sys.exit(2)
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
