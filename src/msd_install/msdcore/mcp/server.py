"""The server process after the stdio claim: configuration, then the read loop.

Only what the first response needs is imported up front (json, os, sys and the small protocol
modules); logging and the tools load when first used (see ``log`` and ``toolbox``).
"""

from __future__ import annotations

import json
import os
import sys

from . import config, log
from .protocol import INTERNAL_ERROR, INVALID_REQUEST, PARSE_ERROR, RpcError
from .session import Session, error
from .wire import MAX_LINE_BYTES, Oversized, Writer, read_lines

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from .toolbox import Toolbox

USAGE = "usage: msd-mcp            (serve MCP on stdio)\n       msd-mcp verify-audit PATH\n"


def serve(wire_in: int, wire_out: int, session: Session) -> None:
    """Answer messages until stdin reaches end of input (or the client stops reading)."""
    writer = Writer(wire_out)
    reply: dict[str, Any] | None
    for line in read_lines(wire_in):
        if isinstance(line, Oversized):
            log.note("WARNING", "dropped a %d-byte message (limit %d)", line.size, MAX_LINE_BYTES)
            reply = error(
                None, RpcError(INVALID_REQUEST, f"message larger than {MAX_LINE_BYTES} bytes")
            )
        elif not line.strip():
            continue
        else:
            try:
                msg = json.loads(line)
            except (ValueError, RecursionError):
                reply = error(None, RpcError(PARSE_ERROR, "parse error: not valid JSON"))
            else:
                reply = session.handle(msg)
        if reply is not None:
            try:
                writer.send(reply)
            except BrokenPipeError:
                return
            except (TypeError, ValueError):  # a result that is not JSON: fail that request only
                log.get().exception("could not encode the reply to %r", reply.get("id"))
                failed = RpcError(INTERNAL_ERROR, "the result could not be encoded as JSON")
                writer.send(error(reply.get("id"), failed))


def run(wire: tuple[int, int], argv: Sequence[str], env: Mapping[str, str] | None = None) -> int:
    """Serve on the claimed wire; 2 when the configuration is refused, 0 at end of input."""
    if argv:
        sys.stderr.write(USAGE)
        return 2
    environ: Mapping[str, str] = os.environ if env is None else env
    try:
        cwd: str | None = os.getcwd()  # noqa: PTH109 - pathlib stays off the start-up path
    except OSError:
        cwd = None
    try:
        cfg = config.load(environ, cwd, environ.get("HOME"))
    except config.ConfigError as exc:
        sys.stderr.write(f"msd-mcp: refusing to start: {exc}\n")
        return 2
    log.configure(cfg.log_level, cfg.log_file)
    if cfg.audit_log is None:
        log.note("WARNING", "MSD_AUDIT_LOG is not set: file changes will not be audited")
    log.note("DEBUG", "serving %s", cfg.root)

    def open_toolbox() -> Toolbox:
        from .toolbox import Toolbox

        return Toolbox(cfg, environ)

    session = Session(open_toolbox)
    try:
        serve(*wire, session)
    except KeyboardInterrupt:
        pass
    finally:
        session.close()
    return 0
