"""The ``msd-install`` console script: answers ``--version`` before importing anything.

``msd-install --version`` is run by scripts to probe for the tool; importing click alone
costs several bare interpreter starts, so the one flag that needs nothing is answered here,
with the text click's ``version_option`` prints. Everything else goes to ``cli.main``.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args == ["--version"]:
        from . import __version__

        sys.stdout.write(f"msd-install, version {__version__}\n")
        sys.stdout.flush()
        sys.exit(0)
    from .cli import main as cli_main

    cli_main(args)
