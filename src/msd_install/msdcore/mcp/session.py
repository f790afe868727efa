"""One connection's JSON-RPC dispatch, for both protocol eras.

Legacy (2025-06-18, 2025-11-25): ``initialize`` negotiates a version, then ``ping``,
``tools/list`` and ``tools/call``. Modern (2026-07-28): no handshake; every request names its
version in ``params._meta`` and ``server/discover`` describes the server; results carry
``resultType`` (and list results ``ttlMs``/``cacheScope``). The era is chosen by how the client
opens: once a modern request has been served, ``initialize`` is answered with -32022 naming
the modern versions, which is how dual-era clients recognise a server that already went modern.

``handle`` answers the cheap requests itself. A ``tools/call`` is checked here (tool name,
arguments) and comes back as a ``Pending`` call for the dispatcher to run off this thread; a
``notifications/cancelled`` comes back as a ``Cancel``. What a client says about itself
(``clientInfo``) is kept only as a short summary of two strings, for the audit log.
"""

from __future__ import annotations

from .protocol import (
    HANDSHAKE_VERSIONS,
    INSTRUCTIONS,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    LIST_TTL_MS,
    META_CAPABILITIES,
    META_CLIENT_INFO,
    META_SERVER_INFO,
    META_VERSION,
    METHOD_NOT_FOUND,
    MODERN_VERSIONS,
    SERVER_INFO,
    UNSUPPORTED_VERSION,
    RpcError,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing and the tool modules stay off the start-up path
    from collections.abc import Callable
    from typing import Any

    from ..callguard import CallGuard
    from .toolbox import Toolbox

    JSONObject = dict[str, Any]
    Runner = Callable[[CallGuard], JSONObject]

ALL_VERSIONS = [*MODERN_VERSIONS, *HANDSHAKE_VERSIONS]
CAPABILITIES = {"tools": {"listChanged": False}}


def error(msg_id: Any, exc: RpcError) -> JSONObject:
    return {"jsonrpc": "2.0", "id": msg_id, "error": exc.to_json()}


class Pending:
    """A ``tools/call`` that passed its checks; ``run(guard)`` produces its result."""

    __slots__ = ("msg_id", "run")

    def __init__(self, msg_id: Any, run: Runner) -> None:
        self.msg_id = msg_id
        self.run = run


class Cancel:
    """``notifications/cancelled`` for ``request_id``."""

    __slots__ = ("request_id",)

    def __init__(self, request_id: Any) -> None:
        self.request_id = request_id


def _short(value: Any, limit: int) -> str | None:
    if not isinstance(value, str):
        return None
    text = value[:limit]
    return text.encode("utf-8", "replace").decode("utf-8")  # no lone surrogates survive


def client_summary(info: Any) -> dict[str, str] | None:
    """``clientInfo`` reduced to its name and version (bounded strings), or None."""
    if not isinstance(info, dict):
        return None
    summary = {k: v for k in ("name", "version") if (v := _short(info.get(k), 64)) is not None}
    return summary or None


def _echo(value: Any) -> Any:
    """A client value safe to echo back in an error: a short string, a number, or (for a
    structure, which could be huge or deeply nested) its type name."""
    if isinstance(value, str):
        return _short(value, 64)
    if value is None or isinstance(value, (bool, int)):
        return value if not isinstance(value, int) or abs(value) < 1 << 53 else "int"
    return type(value).__name__


class Session:
    def __init__(self, open_toolbox: Callable[[], Toolbox]) -> None:
        self._open_toolbox = open_toolbox
        self._toolbox: Toolbox | None = None
        self.era: str | None = None
        self._client: dict[str, Any] | None = None
        self._version: str | None = None

    def handle(self, msg: Any) -> JSONObject | Pending | Cancel | None:
        """The reply to one decoded message, a call to run, a cancellation, or None
        (other notifications and stray responses)."""
        if not isinstance(msg, dict):
            why = "batches are not supported" if isinstance(msg, list) else "not a JSON object"
            return error(None, RpcError(INVALID_REQUEST, f"invalid request: {why}"))
        if "id" not in msg:
            if msg.get("method") == "notifications/cancelled":
                params = msg.get("params")
                if isinstance(params, dict) and "requestId" in params:
                    return Cancel(params["requestId"])
                return None
            if isinstance(msg.get("method"), str) or "result" in msg or "error" in msg:
                return None  # a notification: never answered, even if we do not know it
            return error(None, RpcError(INVALID_REQUEST, "invalid request: no method"))
        msg_id = msg["id"]
        if isinstance(msg_id, bool) or not isinstance(msg_id, (str, int)):
            return error(
                None, RpcError(INVALID_REQUEST, "invalid request: id must be a string or integer")
            )
        if "method" not in msg and ("result" in msg or "error" in msg):
            return None  # a response to a request we never send; ignore it
        try:
            if msg.get("jsonrpc") != "2.0":
                raise RpcError(INVALID_REQUEST, 'invalid request: jsonrpc must be "2.0"')
            method = msg.get("method")
            if not isinstance(method, str):
                raise RpcError(INVALID_REQUEST, "invalid request: method must be a string")
            params = msg.get("params", {})
            if not isinstance(params, dict):
                raise RpcError(INVALID_PARAMS, "params must be an object")
            result = self._dispatch(method, params)
            if isinstance(result, Pending):
                result.msg_id = msg_id
                return result
        except RpcError as exc:
            return error(msg_id, exc)
        except Exception:  # a bug must cost one request, not the connection
            from . import log

            log.get().exception("internal error while handling %r", msg.get("method"))
            return error(msg_id, RpcError(INTERNAL_ERROR, "internal error; see the server log"))
        return {"jsonrpc": "2.0", "id": msg_id, "result": result}

    def _dispatch(self, method: str, params: JSONObject) -> JSONObject | Pending:
        meta = params.get("_meta")
        if method == "initialize":
            return self._initialize(params)
        if method == "server/discover" or (isinstance(meta, dict) and META_VERSION in meta):
            return self._modern(method, params, meta)
        handler = self._legacy_methods().get(method)
        if handler is None:
            raise RpcError(METHOD_NOT_FOUND, f"method not found: {method}")
        return handler(params)

    def _legacy_methods(self) -> dict[str, Callable[[JSONObject], JSONObject | Pending]]:
        return {"ping": lambda p: {}, "tools/list": self._list, "tools/call": self._call}

    def _initialize(self, params: JSONObject) -> JSONObject:
        requested = params.get("protocolVersion")
        if not isinstance(requested, str):
            raise RpcError(INVALID_PARAMS, "initialize: protocolVersion must be a string")
        if self.era == "modern":
            data = {"supported": list(MODERN_VERSIONS), "requested": _echo(requested)}
            raise RpcError(
                UNSUPPORTED_VERSION, "this connection already uses the stateless protocol", data
            )
        version = requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[0]
        self._client = client_summary(params.get("clientInfo"))
        self._version = version
        self.era = "legacy"
        return {
            "protocolVersion": version,
            "capabilities": CAPABILITIES,
            "serverInfo": SERVER_INFO,
            "instructions": INSTRUCTIONS,
        }

    def _modern(self, method: str, params: JSONObject, meta: Any) -> JSONObject | Pending:
        if not isinstance(meta, dict) or META_VERSION not in meta:
            raise RpcError(INVALID_PARAMS, f"{method}: params._meta[{META_VERSION!r}] is required")
        requested = meta[META_VERSION]
        if requested not in MODERN_VERSIONS:
            data = {"supported": ALL_VERSIONS, "requested": _echo(requested)}
            raise RpcError(
                UNSUPPORTED_VERSION, f"unsupported protocol version: {_echo(requested)!r}", data
            )
        if not isinstance(meta.get(META_CAPABILITIES), dict):
            raise RpcError(
                INVALID_PARAMS, f"{method}: params._meta[{META_CAPABILITIES!r}] must be an object"
            )
        info = client_summary(meta.get(META_CLIENT_INFO))
        if method == "server/discover":
            result: JSONObject = {
                "supportedVersions": ALL_VERSIONS,
                "capabilities": CAPABILITIES,
                "instructions": INSTRUCTIONS,
                "ttlMs": LIST_TTL_MS,
                "cacheScope": "private",
            }
        elif method == "tools/list":
            result = {"tools": self._tools().listing, "ttlMs": LIST_TTL_MS, "cacheScope": "private"}
        elif method == "tools/call":
            run = self._tools().prepare(params, info, requested)
            if self.era is None:
                self.era = "modern"

            def modern_call(guard: CallGuard) -> JSONObject:
                return _modern_result(run(guard))

            return Pending(None, modern_call)
        else:
            raise RpcError(METHOD_NOT_FOUND, f"method not found: {method}")
        if self.era is None:
            self.era = "modern"
        return _modern_result(result)

    def _tools(self) -> Toolbox:
        if self._toolbox is None:
            from .registry import RegistryError

            try:
                self._toolbox = self._open_toolbox()
            except RegistryError as exc:
                raise RpcError(INTERNAL_ERROR, f"tools unavailable: {exc}") from None
            except Exception as exc:  # e.g. a test-tools file that does not even import
                from . import log

                log.get().exception("loading the tools failed")
                raise RpcError(INTERNAL_ERROR, f"tools unavailable: {exc!r}") from None
        return self._toolbox

    def _list(self, params: JSONObject) -> JSONObject:
        return {"tools": self._tools().listing}

    def _call(self, params: JSONObject) -> Pending:
        return Pending(None, self._tools().prepare(params, self._client, self._version))

    def close(self) -> None:
        if self._toolbox is not None:
            self._toolbox.close()


def _modern_result(result: JSONObject) -> JSONObject:
    result["resultType"] = "complete"
    result["_meta"] = {META_SERVER_INFO: SERVER_INFO}
    return result
