"""The server process after the stdio claim: configuration, logging, and the read loop."""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..audit import AuditLog
from ..toolspec import ToolContext
from . import config, registry
from .protocol import INVALID_REQUEST, PARSE_ERROR, RpcError
from .session import Session, error
from .wire import MAX_LINE_BYTES, Oversized, Writer, read_lines

log = logging.getLogger("msd-mcp")
USAGE = "usage: msd-mcp            (serve MCP on stdio)\n       msd-mcp verify-audit PATH\n"


def setup_logging(cfg: config.ServerConfig) -> None:
    fmt = logging.Formatter("msd-mcp %(asctime)s %(levelname)s %(message)s")
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if cfg.log_file is not None:
        try:
            handlers.append(logging.FileHandler(cfg.log_file, encoding="utf-8"))
        except OSError as exc:
            sys.stderr.write(f"msd-mcp: cannot open MSD_MCP_LOG {cfg.log_file}: {exc.strerror}\n")
    for handler in handlers:
        handler.setFormatter(fmt)
        log.addHandler(handler)
    log.setLevel(cfg.log_level)
    log.propagate = False


def serve(wire_in: int, wire_out: int, session: Session) -> None:
    """Answer messages until stdin reaches end of input (or the client stops reading)."""
    writer = Writer(wire_out)
    reply: dict[str, Any] | None
    for line in read_lines(wire_in):
        if isinstance(line, Oversized):
            log.warning("dropped a %d-byte message (limit %d)", line.size, MAX_LINE_BYTES)
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


def run(wire: tuple[int, int], argv: Sequence[str], env: Mapping[str, str] | None = None) -> int:
    """Serve on the claimed wire; 2 when the configuration is refused, 0 at end of input."""
    if argv:
        sys.stderr.write(USAGE)
        return 2
    env = dict(os.environ) if env is None else env
    try:
        cwd: str | None = str(Path.cwd())
    except OSError:
        cwd = None
    try:
        cfg = config.load(env, cwd, env.get("HOME"))
        setup_logging(cfg)
        tools = registry.build(cfg.test_tools)
    except (config.ConfigError, registry.RegistryError) as exc:
        sys.stderr.write(f"msd-mcp: refusing to start: {exc}\n")
        return 2
    if cfg.audit_log is None:
        log.warning("MSD_AUDIT_LOG is not set: file changes will not be audited")
    audit = AuditLog(cfg.audit_log) if cfg.audit_log else None
    log.info("serving %s (%d tools)", cfg.root, len(tools))
    session = Session(tools, ToolContext(root=cfg.root, env=dict(env)), audit)
    try:
        serve(*wire, session)
    except KeyboardInterrupt:
        pass
    finally:
        if audit is not None:
            audit.close()
    return 0
