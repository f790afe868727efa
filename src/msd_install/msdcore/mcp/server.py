"""The server process after the stdio claim: configuration, then the read loop.

Only what the first response needs is imported up front (json, os, sys and the small protocol
modules); logging, the tools and the worker threads load when first used (see ``log``,
``toolbox`` and ``dispatch``).
"""

from __future__ import annotations

import os
import sys

from . import config, log
from .protocol import INTERNAL_ERROR, INVALID_REQUEST, PARSE_ERROR, RpcError
from .session import Cancel, Pending, Session, error
from .wire import MAX_LINE_BYTES, Oversized, Writer, decode, read_lines

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from .dispatch import Dispatcher
    from .toolbox import Toolbox

USAGE = "usage: msd-mcp            (serve MCP on stdio)\n       msd-mcp verify-audit PATH\n"


class _Out:
    """The writer as the session and the workers use it: a reply that cannot be encoded
    fails that request only, and a client gone away ends the output quietly."""

    def __init__(self, writer: Writer) -> None:
        self.writer = writer

    def send(self, reply: dict[str, Any]) -> None:
        if self.writer.closed:
            return
        try:
            self.writer.send(reply)
        except BrokenPipeError:
            self.writer.closed = True
        except (TypeError, ValueError):
            log.get().exception("could not encode the reply to %r", reply.get("id"))
            failed = RpcError(INTERNAL_ERROR, "the result could not be encoded as JSON")
            self.send(error(reply.get("id"), failed))


def _decoded(line: bytes | Oversized) -> tuple[Any, dict[str, Any] | None]:
    """``(message, None)``, or ``(None, error reply)`` for a line that is not a message."""
    if isinstance(line, Oversized):
        log.note("WARNING", "dropped a %d-byte message (limit %d)", line.size, MAX_LINE_BYTES)
        too_big = RpcError(INVALID_REQUEST, f"message larger than {MAX_LINE_BYTES} bytes")
        return None, error(None, too_big)
    try:
        return decode(line), None
    except (ValueError, RecursionError):
        return None, error(None, RpcError(PARSE_ERROR, "parse error: not valid JSON"))


def serve(wire_in: int, wire_out: int, session: Session, call_timeout: float = 30.0) -> None:
    """Answer messages until stdin reaches end of input (or the client stops reading), then
    wait for the calls still running to be answered."""
    out = _Out(Writer(wire_out))
    dispatcher: Dispatcher | None = None
    for line in read_lines(wire_in):
        if out.writer.closed:
            break
        if not isinstance(line, Oversized) and not line.strip():
            continue
        msg, refused = _decoded(line)
        action = refused if refused is not None else session.handle(msg)
        if isinstance(action, Pending):
            if dispatcher is None:
                from .dispatch import Dispatcher

                out.writer.threaded()
                dispatcher = Dispatcher(out.send, call_timeout)
            dispatcher.submit(action.msg_id, action.run)
        elif isinstance(action, Cancel):
            if dispatcher is not None:
                dispatcher.cancel(action.request_id)
        elif action is not None:
            out.send(action)
    if dispatcher is not None:
        dispatcher.drain()


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
        sys.stderr.write(f"msd-mcp: refusing to start: {log.clean(str(exc))}\n")
        return 2
    log.configure(cfg.log_level, cfg.log_file)
    if cfg.audit_log is None:
        log.note(
            "WARNING",
            "MSD_AUDIT_LOG is not set and there is no home for the state directory: "
            "file changes will not be audited",
        )
    log.note("DEBUG", "serving %s", cfg.root)

    def open_toolbox() -> Toolbox:
        from .toolbox import Toolbox

        return Toolbox(cfg, environ)

    session = Session(open_toolbox)
    try:
        serve(*wire, session, cfg.call_timeout)
    except KeyboardInterrupt:
        pass
    finally:
        session.close()
    return 0
