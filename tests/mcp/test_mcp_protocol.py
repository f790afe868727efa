"""Raw-pipe protocol tests: both eras, every error code, framing limits, EOF."""

from __future__ import annotations

import json
import time

import pytest
from mcp_raw import RawServer

META_V = "io.modelcontextprotocol/protocolVersion"
META = {
    META_V: "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
}


@pytest.mark.parametrize(
    ("offered", "answered"),
    [
        ("2025-11-25", "2025-11-25"),
        ("2025-06-18", "2025-06-18"),
        ("2024-11-05", "2025-11-25"),
        ("9999-01-01", "2025-11-25"),
    ],
)
def test_initialize_negotiates_or_counter_offers(
    raw: RawServer, offered: str, answered: str
) -> None:
    result = raw.initialize(offered)["result"]
    assert result["protocolVersion"] == answered
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    assert result["serverInfo"]["name"] == "msd-core"


def test_ping_and_notifications_get_no_extra_replies(raw: RawServer) -> None:
    raw.initialize()
    raw.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}})
    raw.send({"jsonrpc": "2.0", "method": "no/such/notification"})
    assert raw.request("ping")["result"] == {}  # the next line is the ping reply, nothing before it


def test_tools_list_is_deterministic_with_schemas_and_annotations(raw: RawServer) -> None:
    raw.initialize()
    first = raw.request("tools/list")["result"]["tools"]
    second = raw.request("tools/list")["result"]["tools"]
    assert first == second
    names = [t["name"] for t in first]
    assert names[:10] == [
        "read_text_file",
        "list_directory",
        "directory_tree",
        "search_files",
        "get_file_info",
        "workspace_info",
        "write_file",
        "edit_file",
        "create_directory",
        "move_file",
    ]
    for tool in first:
        assert tool["inputSchema"]["type"] == "object"
        assert tool["outputSchema"]["type"] == "object"
        assert tool["title"]
        assert set(tool["annotations"]) >= {
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
        }
    by_name = {t["name"]: t["annotations"] for t in first}
    assert by_name["read_text_file"]["readOnlyHint"] is True
    assert by_name["write_file"]["readOnlyHint"] is False
    assert by_name["write_file"]["destructiveHint"] is True
    assert by_name["create_directory"]["destructiveHint"] is False
    assert all(a["openWorldHint"] is False for a in by_name.values())


def test_tools_call_returns_structured_content_and_one_text_block(raw: RawServer) -> None:
    raw.initialize()
    result = raw.call("read_text_file", {"path": "hello.txt", "limit": 1})
    assert result["isError"] is False
    assert result["structuredContent"]["truncated"] is True
    assert result["structuredContent"]["next_offset"] == 1
    # The file text is in structuredContent (all Claude Code shows the model) and, for
    # clients that read content, its own block after the JSON of the rest.
    assert result["structuredContent"]["content"] == "line one\n"
    assert [c["text"] for c in result["content"][1:]] == ["line one\n"]
    rest = {k: v for k, v in result["structuredContent"].items() if k != "content"}
    assert json.loads(result["content"][0]["text"]) == rest


def test_tool_failure_is_an_is_error_result(raw: RawServer) -> None:
    raw.initialize()
    result = raw.call("read_text_file", {"path": "missing.txt"})
    assert result["isError"] is True
    assert json.loads(result["content"][0]["text"])["error"]["code"] == "not_found"
    assert "structuredContent" not in result


def _code(reply: dict) -> int:  # type: ignore[type-arg]
    return int(reply["error"]["code"])


def test_parse_error(raw: RawServer) -> None:
    raw.send_bytes(b"{not json\n")
    reply = raw.recv()
    assert (reply["id"], _code(reply)) == (None, -32700)
    raw.send_bytes(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\xff\xfe\n')
    assert _code(raw.recv()) == -32700  # invalid UTF-8
    assert raw.request("ping")["result"] == {}


@pytest.mark.parametrize(
    "message",
    [
        [{"jsonrpc": "2.0", "id": 1, "method": "ping"}],  # batch
        42,
        "ping",
        {"jsonrpc": "1.0", "id": 7, "method": "ping"},
        {"id": 7, "method": "ping"},
        {"jsonrpc": "2.0", "id": 7, "method": 5},
        {"jsonrpc": "2.0", "id": 7},
        {"jsonrpc": "2.0", "id": None, "method": "ping"},
        {"jsonrpc": "2.0", "id": 1.5, "method": "ping"},
        {"jsonrpc": "2.0", "id": True, "method": "ping"},
        {"jsonrpc": "2.0", "params": {}},
    ],
)
def test_invalid_request(raw: RawServer, message: object) -> None:
    raw.send(message)
    reply = raw.recv()
    assert _code(reply) == -32600
    assert reply["id"] in (None, 7)


def test_unknown_method(raw: RawServer) -> None:
    raw.initialize()
    reply = raw.request("resources/list")
    assert _code(reply) == -32601
    assert _code(raw.request("_probe/nonexistent_method_xyz")) == -32601


@pytest.mark.parametrize(
    "params",
    [
        [1, 2],
        {"name": "no_such_tool", "arguments": {}},
        {"name": 3},
        {"name": "read_text_file", "arguments": {}},
        {"name": "read_text_file", "arguments": {"path": 5}},
        {"name": "read_text_file", "arguments": {"path": "hello.txt", "bogus": 1}},
        {"name": "read_text_file", "arguments": {"path": "hello.txt", "limit": 0}},
        {"name": "read_text_file", "arguments": {"path": "hello.txt", "offset": True}},
        {"name": "read_text_file", "arguments": {"path": ""}},
        {"name": "read_text_file", "arguments": "hello.txt"},
        {"name": "edit_file", "arguments": {"path": "hello.txt", "edits": [{"old_text": "x"}]}},
        {"name": "edit_file", "arguments": {"path": "hello.txt", "edits": []}},
        {"name": "list_directory", "arguments": {"path": None}},
    ],
)
def test_invalid_params(raw: RawServer, params: object) -> None:
    raw.initialize()
    reply = raw.request("tools/call", params)
    assert _code(reply) == -32602, reply


def test_initialize_without_version_is_invalid_params(raw: RawServer) -> None:
    assert _code(raw.request("initialize", {"capabilities": {}})) == -32602


def test_oversized_line_gets_an_error_and_the_stream_resynchronises(raw: RawServer) -> None:
    raw.initialize()
    big = (
        b'{"jsonrpc":"2.0","id":9,"method":"ping","params":{"pad":"'
        + b"x" * (5 * 1024 * 1024)
        + b'"}}\n'
    )
    raw.send_bytes(big + b'{"jsonrpc":"2.0","id":10,"method":"ping"}\n')
    first = raw.recv()
    assert (first["id"], _code(first)) == (None, -32600)
    assert raw.recv() == {"jsonrpc": "2.0", "id": 10, "result": {}}


def test_blank_lines_are_ignored_and_last_line_without_newline_is_answered(raw: RawServer) -> None:
    raw.send_bytes(b"\n  \n" + b'{"jsonrpc":"2.0","id":3,"method":"ping"}')
    assert raw.proc.stdin is not None
    raw.proc.stdin.close()
    assert raw.recv() == {"jsonrpc": "2.0", "id": 3, "result": {}}
    assert raw.read_line() is None


def test_exits_promptly_on_stdin_eof(raw: RawServer) -> None:
    raw.initialize()
    started = time.monotonic()
    assert raw.close() == 0
    assert time.monotonic() - started < 2


def test_one_message_per_line_with_non_ascii_content(raw: RawServer, ws) -> None:  # type: ignore[no-untyped-def]
    (ws / "ünï.txt").write_text("a\u2028b\nçé\n")
    raw.initialize()
    line = None
    raw.send(
        {
            "jsonrpc": "2.0",
            "id": 55,
            "method": "tools/call",
            "params": {"name": "read_text_file", "arguments": {"path": "ünï.txt"}},
        }
    )
    line = raw.read_line()
    assert line is not None and b"\n" not in line
    assert json.loads(line)["result"]["content"][1]["text"] == "a\u2028b\nçé\n"
    assert "çé".encode() in line  # UTF-8 on the wire, not six-byte escapes


# --- 2026-07-28 (stateless) era ---


def test_server_discover(raw: RawServer) -> None:
    result = raw.request("server/discover", {"_meta": META})["result"]
    assert "2026-07-28" in result["supportedVersions"]
    assert result["capabilities"]["tools"] == {"listChanged": False}
    assert result["resultType"] == "complete"
    assert result["ttlMs"] >= 0 and result["cacheScope"] in ("private", "public")
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "msd-core"


def test_modern_requests_carry_result_type_and_cache_fields(raw: RawServer) -> None:
    listing = raw.request("tools/list", {"_meta": META})["result"]
    assert listing["resultType"] == "complete"
    assert isinstance(listing["ttlMs"], int) and listing["cacheScope"] in ("private", "public")
    call = raw.request("tools/call", {"_meta": META, "name": "list_directory", "arguments": {}})[
        "result"
    ]
    assert call["resultType"] == "complete"
    assert [e["name"] for e in call["structuredContent"]["entries"]] == ["hello.txt", "sub"]


@pytest.mark.parametrize("version", ["2099-01-01", "2025-11-25", 7])
def test_unsupported_modern_version_is_32022(raw: RawServer, version: object) -> None:
    reply = raw.request("tools/list", {"_meta": {**META, META_V: version}})
    assert _code(reply) == -32022
    assert reply["error"]["data"]["requested"] == version
    assert "2026-07-28" in reply["error"]["data"]["supported"]


def test_discover_without_meta_is_invalid_params(raw: RawServer) -> None:
    assert _code(raw.request("server/discover", {})) == -32602
    meta = {k: v for k, v in META.items() if k != "io.modelcontextprotocol/clientCapabilities"}
    assert _code(raw.request("server/discover", {"_meta": meta})) == -32602


def test_modern_unknown_method_and_ping(raw: RawServer) -> None:
    assert _code(raw.request("prompts/list", {"_meta": META})) == -32601
    assert _code(raw.request("ping", {"_meta": META})) == -32601  # removed in 2026-07-28


def test_initialize_after_modern_opening_is_32022(raw: RawServer) -> None:
    raw.request("server/discover", {"_meta": META})
    reply = raw.initialize()
    assert _code(reply) == -32022
    assert reply["error"]["data"]["supported"] == ["2026-07-28"]
