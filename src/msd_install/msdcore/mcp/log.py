"""Server logging: ``logging`` to stderr, plus a file when ``MSD_MCP_LOG`` is set.

Configured lazily: ``logging`` is imported on the first record at or above the level, so a
server that has nothing to say starts without paying for it (it is one of the larger imports
on the way to the first response).

Every record is one line: control characters (newline, ESC, DEL, the C1 range and the Unicode
line separators) are escaped, so a path or a client string in a message cannot start a forged
log line or drive a terminal. Tracebacks are folded into the same line for the same reason.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import logging

LEVELS = {"DEBUG": 10, "INFO": 20, "WARNING": 30, "ERROR": 40}
_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(32), 127, *range(0x80, 0xA0))}
_CONTROLS.update({0x2028: "\\u2028", 0x2029: "\\u2029", 0x85: "\\x85"})


def clean(text: str) -> str:
    """``text`` on one line, control characters escaped (lone surrogates too)."""
    return text.translate(_CONTROLS).encode("utf-8", "backslashreplace").decode("utf-8")


_settings = {"level": "INFO", "file": ""}
_logger: list[logging.Logger] = []


def configure(level: str, file: str | None) -> None:
    _settings["level"] = level
    _settings["file"] = file or ""


def enabled(level: str) -> bool:
    return LEVELS[level] >= LEVELS[_settings["level"]]


def get() -> logging.Logger:
    """The configured ``msd-mcp`` logger (set up on first call)."""
    if _logger:
        return _logger[0]
    import logging

    class OneLine(logging.Formatter):
        def format(self, record: logging.LogRecord) -> str:
            return clean(super().format(record))

    logger = logging.getLogger("msd-mcp")
    fmt = OneLine("msd-mcp %(asctime)s %(levelname)s %(message)s")
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if _settings["file"]:
        try:
            handlers.append(logging.FileHandler(_settings["file"], encoding="utf-8"))
        except OSError as exc:
            sys.stderr.write(
                f"msd-mcp: cannot open MSD_MCP_LOG {_settings['file']}: {exc.strerror}\n"
            )
    for handler in handlers:
        handler.setFormatter(fmt)
        logger.addHandler(handler)
    logger.setLevel(_settings["level"])
    logger.propagate = False
    _logger.append(logger)
    return logger


def note(level: str, msg: str, *args: object) -> None:
    """Log ``msg % args`` at ``level`` without importing ``logging`` when it is filtered out."""
    if enabled(level):
        get().log(LEVELS[level], msg, *args)
