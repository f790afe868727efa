"""The stdout guard against a tool that writes to stdout every way it can."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
from conftest import SERVER
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_raw import RawServer

from mcp import ClientSession
from msd_install.msdcore.mcp import registry

ROGUE = str(Path(__file__).with_name("rogue_tools.py"))
ROGUE_LINES = [
    "ROGUE print",
    "ROGUE sys.__stdout__",
    "ROGUE os.write",
    "ROGUE libc printf",
    "ROGUE echo child",
    "ROGUE progress: 50%",
    "ROGUE import-time print",
]


def test_raw_client_sees_only_valid_frames_and_every_answer(
    server_env: dict[str, str], tmp_path: Path
) -> None:
    env = {**server_env, "MSD_MCP_TEST_TOOLS": ROGUE}
    server = RawServer(SERVER, env, tmp_path / "err.log")
    try:
        server.initialize()
        for n in range(3):
            # Pipeline requests so a stolen or glued line would lose one of them.
            server.send(
                {
                    "jsonrpc": "2.0",
                    "id": f"call{n}",
                    "method": "tools/call",
                    "params": {"name": "rogue_output", "arguments": {}},
                }
            )
            server.send({"jsonrpc": "2.0", "id": f"ping{n}", "method": "ping"})
            # each line must parse as JSON; calls run off the reader, so either may come first
            got = {m["id"]: m for m in (server.recv(), server.recv())}
            call, ping = got[f"call{n}"], got[f"ping{n}"]
            assert call["result"]["isError"] is False
            assert call["result"]["structuredContent"] == {"stolen_bytes": 0}
            assert ping == {"jsonrpc": "2.0", "id": f"ping{n}", "result": {}}
    finally:
        assert server.close() == 0
    stderr = server.stderr()
    for text in ROGUE_LINES:
        assert text in stderr


async def _sdk_rogue(env: dict[str, str], errlog: Path) -> list[Any]:
    params = StdioServerParameters(command=sys.executable, args=SERVER[1:], env=env)
    out = []
    with open(errlog, "w") as err:
        async with (
            stdio_client(params, errlog=err) as (read, write),
            ClientSession(read, write, read_timeout_seconds=8) as session,
        ):
            await session.initialize()
            for _ in range(2):
                result = await session.call_tool("rogue_output", {})
                out.append(result.structured_content)
                await session.send_ping()
            listing = await session.list_tools()
            out.append(len(listing.tools))
    return out


def test_sdk_client_is_unaffected(server_env: dict[str, str], tmp_path: Path) -> None:
    env = {**server_env, "MSD_MCP_TEST_TOOLS": ROGUE}
    out = anyio.run(_sdk_rogue, env, tmp_path / "err.log")
    assert out[:2] == [{"stolen_bytes": 0}] * 2
    assert out[2] == len(registry.build()) + 2  # every regular tool plus the two test tools


def test_rogue_tools_are_not_listed_without_the_switch(raw: RawServer) -> None:
    raw.initialize()
    names = [t["name"] for t in raw.request("tools/list")["result"]["tools"]]
    assert "rogue_output" not in names


def test_test_tools_inside_the_workspace_or_relative_are_refused(
    server_env: dict[str, str], ws: Path, tmp_path: Path
) -> None:
    planted = ws / "plugin.py"
    planted.write_text(Path(ROGUE).read_text())
    for value in (str(planted), "rogue_tools.py"):
        server = RawServer(SERVER, {**server_env, "MSD_MCP_TEST_TOOLS": value}, tmp_path / "e.log")
        assert server.read_line() is None
        assert server.close() == 2
        assert "MSD_MCP_TEST_TOOLS" in server.stderr()
        assert json.dumps("ROGUE") not in server.stderr()


def test_a_result_that_is_not_json_fails_only_that_request(
    server_env: dict[str, str], tmp_path: Path
) -> None:
    server = RawServer(SERVER, {**server_env, "MSD_MCP_TEST_TOOLS": ROGUE}, tmp_path / "err.log")
    server.initialize()
    for flag in (False, True):
        reply = server.request("tools/call", {"name": "not_json", "arguments": {"object": flag}})
        assert reply["error"]["code"] == -32603
    assert server.request("ping")["result"] == {}
    assert server.close() == 0
