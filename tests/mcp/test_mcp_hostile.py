"""Hostile sizes and patterns, through the real server over stdio: every call is answered
(a result, or an error) within its deadline, responses stay bounded, and the server keeps
answering ``ping`` meanwhile."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import SERVER
from mcp_raw import RawServer

DEADLINE = 10.0


@pytest.fixture
def hostile(server_env: dict[str, str], tmp_path: Path):  # type: ignore[no-untyped-def]
    env = {**server_env, "MSD_MCP_CALL_TIMEOUT": str(DEADLINE)}
    server = RawServer(SERVER, env, tmp_path / "err.log")
    server.initialize()
    server.request("tools/list")
    yield server
    server.close()


def timed(
    server: RawServer, name: str, args: Any, limit: float = DEADLINE + 3
) -> tuple[Any, float]:
    """The reply to one call and how long it took (failing if later than ``limit``)."""
    started = time.monotonic()
    server.send(
        {
            "jsonrpc": "2.0",
            "id": "h",
            "method": "tools/call",
            "params": {"name": name, "arguments": args},
        }
    )
    line = server.read_line(timeout=limit)
    assert line is not None
    return json.loads(line), time.monotonic() - started


def error_code(reply: dict[str, Any]) -> str:
    result = reply["result"]
    assert result["isError"] is True, result
    return str(json.loads(result["content"][0]["text"])["error"]["code"])


def test_backtracking_glob_is_linear(hostile: RawServer, ws: Path) -> None:
    for n in range(30):
        (ws / f"{'a' * 200}{n}").write_text("x")
    pattern = "*a" * 450 + "*b"  # exponential for a backtracking matcher
    reply, took = timed(hostile, "search_files", {"pattern": pattern})
    assert reply["result"]["structuredContent"]["matches"] == []
    assert took < 5
    reply, _ = timed(hostile, "search_files", {"pattern": "*a" * 150 + "*"})
    assert len(reply["result"]["structuredContent"]["matches"]) == 30


def test_thousand_edits_on_a_seven_megabyte_file_answer_in_time(
    hostile: RawServer, ws: Path
) -> None:
    lines = [f"line {i:07d} some filler text to make it longer ......\n" for i in range(120_000)]
    (ws / "big.txt").write_text("".join(lines))
    edits = [
        {"old_text": f"line {i * 100:07d} ", "new_text": f"LINE {i * 100:07d} "}
        for i in range(1000)
    ]
    reply, _ = timed(hostile, "edit_file", {"path": "big.txt", "edits": edits})
    result = reply["result"]
    if result["isError"]:  # a slow machine: then it must be the deadline, and nothing written
        assert error_code(reply) == "deadline_exceeded"
        assert (ws / "big.txt").read_text() == "".join(lines)
    else:
        out = result["structuredContent"]
        assert out["applied"] == 1000 and len(out["diff"]) <= 256 * 1024
        assert (ws / "big.txt").read_text().count("LINE ") == 1000
    hostile.send({"jsonrpc": "2.0", "id": "p", "method": "ping"})
    assert hostile.recv(timeout=5)["id"] == "p"


def test_sparse_twenty_gib_file_is_refused_before_it_is_read(hostile: RawServer, ws: Path) -> None:
    with open(ws / "sparse.bin", "wb") as fh:
        fh.truncate(20 * 1024**3)
    edits = [{"old_text": "a", "new_text": "b"}]
    for name, args in [
        ("read_text_file", {"path": "sparse.bin"}),
        ("edit_file", {"path": "sparse.bin", "edits": edits}),
        ("write_file", {"path": "sparse.bin", "content": "x"}),
    ]:
        reply, took = timed(hostile, name, args)
        assert error_code(reply) == "too_large" and took < 3, name
    reply, took = timed(hostile, "move_file", {"source": "sparse.bin", "destination": "s2.bin"})
    assert reply["result"]["isError"] is False and took < 3  # a move does not read content
    assert (ws / "s2.bin").stat().st_size == 20 * 1024**3


def test_an_eight_mebibyte_read_is_sent_once_and_bounded(hostile: RawServer, ws: Path) -> None:
    plain = "".join(
        f"{i:07d} plain text line of the file .......................\n" for i in range(130_000)
    )
    (ws / "plain.txt").write_text(plain[: 8 * 1024 * 1024 - 100])
    reply, _ = timed(hostile, "read_text_file", {"path": "plain.txt", "limit": 100_000})
    texts = [c["text"] for c in reply["result"]["content"]]
    size = len(json.dumps(reply))
    assert texts[1] == "".join(plain[: 8 * 1024 * 1024 - 100].splitlines(keepends=True)[:100_000])
    # twice (structuredContent for Claude Code, a block for the rest), each escaped once
    assert size < 2.2 * len(texts[1])
    (ws / "ctl.txt").write_bytes(b"\x01" * (8 * 1024 * 1024 - 1) + b"\n")
    hostile.send(
        {
            "jsonrpc": "2.0",
            "id": "c",
            "method": "tools/call",
            "params": {"name": "read_text_file", "arguments": {"path": "ctl.txt"}},
        }
    )
    line = hostile.read_line(timeout=DEADLINE + 3)
    assert line is not None and len(line) < 11 * 1024 * 1024  # was 109 MB
    result = json.loads(line)["result"]
    if result["isError"]:  # one 8 MiB line escapes to 48 MB: too large for one answer
        assert "too_large" in result["content"][0]["text"]
    else:
        assert result["structuredContent"]["truncated"] is True


def test_control_characters_on_many_lines_are_paged(hostile: RawServer, ws: Path) -> None:
    (ws / "ctl.txt").write_bytes((b"\x01" * 1023 + b"\n") * (8 * 1024 - 1))
    reply, _ = timed(hostile, "read_text_file", {"path": "ctl.txt", "limit": 100_000})
    out = reply["result"]["structuredContent"]
    assert out["truncated"] is True and 0 < out["next_offset"] < out["total_lines"]
    assert len(json.dumps(reply)) < 15 * 1024 * 1024  # 7 MiB of escaped text, sent twice


def _hostile_value(schema: dict[str, Any]) -> Any:
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) else kind
    return {
        "string": "x" * 1_000_000,
        "integer": 2**62,
        "number": 1e308,
        "boolean": True,
        "array": ["x" * 1000] * 1000,
        "object": {f"k{i}": "v" * 100 for i in range(1000)},
    }.get(kind, "x" * 1000)


BAD_ARGS = [
    ("float for an integer", {"path": "hello.txt", "offset": 1.0}),
    ("lone surrogate", {"path": "hello.txt", "content": "\ud800"}),
    ("unknown argument", {"path": "hello.txt", "bogus": 1}),
    ("out of range", {"path": "hello.txt", "limit": 0}),
    ("deep nesting", {"path": json.loads("[" * 90 + "]" * 90)}),
]


@pytest.mark.parametrize(("why", "args"), BAD_ARGS, ids=[w for w, _ in BAD_ARGS])
def test_malformed_arguments_are_invalid_params(hostile: RawServer, why: str, args: Any) -> None:
    name = "write_file" if why == "lone surrogate" else "read_text_file"
    if why == "lone surrogate":  # json.dumps would refuse to send it: escape by hand
        raw = '{"jsonrpc":"2.0","id":"h","method":"tools/call","params":{"name":"write_file",'
        raw += '"arguments":{"path":"s.txt","content":"\\ud800"}}}\n'
        hostile.send_bytes(raw.encode())
        reply = json.loads(hostile.read_line() or b"{}")
    else:
        reply, _ = timed(hostile, name, args)
    assert reply["error"]["code"] == -32602, reply


def test_every_tool_answers_hostile_arguments_in_time(hostile: RawServer, ws: Path) -> None:
    tools = hostile.request("tools/list")["result"]["tools"]
    for tool in tools:
        props = tool["inputSchema"].get("properties", {})
        args = {k: _hostile_value(v) for k, v in props.items()}
        reply, took = timed(hostile, tool["name"], args)
        assert took < DEADLINE + 3, tool["name"]
        assert "result" in reply or reply["error"]["code"] == -32602, (tool["name"], reply)
    hostile.send({"jsonrpc": "2.0", "id": "p", "method": "ping"})
    assert hostile.recv(timeout=5)["id"] == "p"


ROADMAP_BOMBS = {
    "comment openers": "## Phases\n" + "<!--" * 400_000,
    "long phase line": "## Phases\n- [ ] **Phase 1:" + " " * 2_000_000 + "x\n",
    "long details line": "## Phase Details\n### Phase 1:" + " " * 2_000_000 + "\n",
    "many stars": "## Phases\n- [ ] **Phase 1: a" + " **" * 500_000 + " b\n",
}
PLAN_BOMBS = {
    "task openers": "---\nphase: '01'\n---\n" + "<task " * 500_000,
    "task without closer": "---\nphase: '01'\n---\n<tasks>" + "<task>" * 300_000,
    "deep yaml": "---\n" + "".join(" " * i + f"k{i}:\n" for i in range(2000)) + "---\n",
    "huge float": "---\nwave: 1e999\n---\n",
}


@pytest.mark.parametrize("bomb", sorted(ROADMAP_BOMBS) + sorted(PLAN_BOMBS))
def test_planning_tools_answer_hostile_documents_in_time(
    hostile: RawServer, ws: Path, bomb: str
) -> None:
    planning = ws / ".planning"
    (planning / "phases" / "01-x").mkdir(parents=True)
    (planning / "ROADMAP.md").write_text(ROADMAP_BOMBS.get(bomb, "## Phases\n"))
    plan = planning / "phases" / "01-x" / "01-01-PLAN.md"
    plan.write_text(PLAN_BOMBS.get(bomb, "---\nphase: '01'\n---\n"))
    (planning / "STATE.md").write_text(PLAN_BOMBS.get(bomb, "---\nstatus: executing\n---\n"))
    rel = ".planning/phases/01-x/01-01-PLAN.md"
    calls = [
        ("roadmap_analyze", {}),
        ("phase_list", {}),
        ("progress", {}),
        ("state_load", {}),
        ("frontmatter_get", {"file": rel}),
        ("verify_plan_structure", {"file": rel}),
        ("verify_phase_completeness", {"number": "1"}),
    ]
    for name, args in calls:
        reply, took = timed(hostile, name, args)
        assert "result" in reply, (name, reply)
        assert took < 5, (bomb, name, took)  # linear parsers: seconds, not minutes
