"""The official MCP SDK as the client, over stdio, in both protocol eras."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from mcp.client._probe import negotiate_auto
from mcp.client.stdio import StdioServerParameters, stdio_client

from mcp import ClientSession

# One valid call per tool, run in this order against the fixture workspace.
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("workspace_info", {}),
    ("read_text_file", {"path": "hello.txt", "offset": 1, "limit": 1}),
    ("list_directory", {"path": "."}),
    ("directory_tree", {"max_depth": 2}),
    ("search_files", {"pattern": "*.md"}),
    ("get_file_info", {"path": "hello.txt"}),
    ("write_file", {"path": "new/dir/out.txt", "content": "made by sdk\n", "create_parents": True}),
    (
        "edit_file",
        {"path": "new/dir/out.txt", "edits": [{"old_text": "sdk", "new_text": "the SDK"}]},
    ),
    ("create_directory", {"path": "made"}),
    ("move_file", {"source": "new/dir/out.txt", "destination": "made/out.txt"}),
]


async def _session_run(env: dict[str, str], errlog: Path, modern: bool) -> dict[str, Any]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "msd_install.msdcore.mcp"], env=env
    )
    seen: dict[str, Any] = {}
    with open(errlog, "w") as err:
        async with (
            stdio_client(params, errlog=err) as (read, write),
            ClientSession(read, write, read_timeout_seconds=10) as session,
        ):
            if modern:
                await negotiate_auto(session)
                seen["era"] = "modern" if session.discover_result else "legacy"
            else:
                await session.initialize()
                seen["era"] = "legacy"
            tools = (await session.list_tools()).tools
            seen["schemas"] = {t.name: t.output_schema for t in tools}
            seen["annotations"] = {t.name: t.annotations for t in tools}
            for name, args in CALLS:
                result = await session.call_tool(name, args)
                seen[name] = (
                    result.is_error,
                    result.structured_content,
                    [c.text for c in result.content],
                )  # type: ignore[union-attr]
            bad = await session.call_tool("read_text_file", {"path": "../outside"})
            seen["refused"] = (bad.is_error, bad.content[0].text)  # type: ignore[union-attr]
    return seen


@pytest.mark.parametrize("modern", [False, True], ids=["legacy", "modern"])
def test_sdk_client_lists_and_calls_every_tool(
    server_env: dict[str, str], ws: Path, tmp_path: Path, modern: bool
) -> None:
    seen = anyio.run(_session_run, server_env, tmp_path / "err.log", modern)
    assert seen["era"] == ("modern" if modern else "legacy")
    for name, _ in CALLS:
        is_error, structured, texts = seen[name]
        assert is_error is False, (name, texts)
        jsonschema.validate(structured, seen["schemas"][name])
        # The file text comes in structuredContent and as its own block after the JSON of
        # the rest; every other result is the JSON copy of its structuredContent.
        extra = ["line two\n"] if name == "read_text_file" else []
        rest = {k: v for k, v in structured.items() if not extra or k != "content"}
        assert texts == [json.dumps(rest, ensure_ascii=False), *extra]
    assert seen["read_text_file"][1]["content"] == "line two\n"
    assert seen["search_files"][1]["matches"] == ["sub/inner.md"]
    assert (ws / "made" / "out.txt").read_text() == "made by the SDK\n"
    assert not (ws / "new" / "dir" / "out.txt").exists()
    assert seen["refused"][0] is True and "outside_workspace" in seen["refused"][1]
    assert seen["annotations"]["move_file"].destructive_hint is True
