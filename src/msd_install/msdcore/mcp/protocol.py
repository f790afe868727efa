"""Protocol facts: versions, error codes, ``_meta`` keys, and the JSON-RPC error type."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs milliseconds on the start-up path
    from typing import Any

SERVER_NAME = "msd-core"
SERVER_TITLE = "MSD Core"

# Newest first: the first entry is the counter-offer for an unknown initialize version.
HANDSHAKE_VERSIONS = ("2025-11-25", "2025-06-18")
MODERN_VERSIONS = ("2026-07-28",)

META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
UNSUPPORTED_VERSION = -32022

# The tool list only changes when the server restarts with another configuration.
LIST_TTL_MS = 300_000

INSTRUCTIONS = (
    "File tools confined to one workspace directory (see workspace_info). Paths are relative "
    "to it, or absolute inside it. Mutating tools are recorded in an append-only audit log."
)


class RpcError(Exception):
    """A JSON-RPC error response."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_json(self) -> dict[str, Any]:
        err: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            err["data"] = self.data
        return err


# Kept equal to msd_install.__version__ by a test: this package is also installed on its own.
SERVER_VERSION = "0.1.0"
SERVER_INFO = {"name": SERVER_NAME, "title": SERVER_TITLE, "version": SERVER_VERSION}
