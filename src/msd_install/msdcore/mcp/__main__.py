"""``msd-mcp`` / ``python -m msd_install.msdcore.mcp``: claim stdio first, then serve.

``msd-mcp verify-audit PATH`` checks an audit log's hash chain instead (it writes its report to
stdout, so it does not claim stdio).
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["verify-audit"]:
        from ..auditverify import verify_main

        return verify_main(args[1:], sys.stdout)  # stdout-ok: a CLI report, not the MCP wire
    from .guard import claim_stdio

    wire = claim_stdio()  # before importing the rest of the server: nothing may reach fd 1
    from .server import run

    return run(wire, args)


if __name__ == "__main__":
    sys.exit(main())
