"""``ToolError``: the one exception a tool raises for a reason its caller should see."""

from __future__ import annotations


class ToolError(Exception):
    """A tool failed for a reason the caller should see (bad argument, missing file, ...).

    The MCP layer turns it into an ``isError: true`` result; ``msd-tools`` into a JSON error
    object with exit code 1. ``code`` is a short stable identifier such as ``not_found``.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
