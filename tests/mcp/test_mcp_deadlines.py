"""Through the real server over stdio: a slow call never blocks the next request, a call past
its deadline is answered with an error (and changes nothing after it), and a cancelled call
stops its work and gets no response at all."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from conftest import SERVER
from mcp_raw import RawServer

SLOW = str(Path(__file__).with_name("slow_tools.py"))


@pytest.fixture
def slow(server_env: dict[str, str], tmp_path: Path):  # type: ignore[no-untyped-def]
    env = {**server_env, "MSD_MCP_TEST_TOOLS": SLOW, "MSD_MCP_CALL_TIMEOUT": "2"}
    server = RawServer(SERVER, env, tmp_path / "err.log")
    server.initialize()
    server.request("tools/list")  # the tools are loaded before the timed part
    yield server
    server.close()


def wait_for(marker: Path, text: str, seconds: float = 10) -> str:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if marker.exists() and marker.read_text() == text:
            break
        time.sleep(0.02)
    return marker.read_text() if marker.exists() else "<missing>"


def call(server: RawServer, msg_id: Any, name: str, **args: Any) -> None:
    server.send(
        {
            "jsonrpc": "2.0",
            "id": msg_id,
            "method": "tools/call",
            "params": {"name": name, "arguments": args},
        }
    )


def test_ping_and_other_calls_are_answered_while_a_slow_call_runs(
    slow: RawServer, tmp_path: Path
) -> None:
    call(slow, "long", "slow", seconds=1.8, marker=str(tmp_path / "m"))
    assert wait_for(tmp_path / "m", "started") == "started"
    slow.send({"jsonrpc": "2.0", "id": "p", "method": "ping"})
    call(slow, "quick", "list_directory")
    first, second = slow.recv(timeout=5), slow.recv(timeout=5)
    # both answered while the slow call still ran
    assert first == {"jsonrpc": "2.0", "id": "p", "result": {}}
    assert second["id"] == "quick" and second["result"]["isError"] is False
    assert (tmp_path / "m").read_text() == "started"
    done = slow.recv(timeout=5)
    assert done["id"] == "long" and done["result"]["isError"] is False
    assert (tmp_path / "m").read_text() == "finished"


def test_a_call_past_its_deadline_is_answered_with_an_error(slow: RawServer) -> None:
    started = time.monotonic()
    call(slow, 1, "stuck", seconds=6)  # never checks its guard: only the watchdog answers
    reply = slow.recv(timeout=5)
    took = time.monotonic() - started
    assert reply["id"] == 1 and reply["result"]["isError"] is True
    assert "deadline_exceeded" in reply["result"]["content"][0]["text"]
    assert 1.5 < took < 4.0
    for n in range(6):  # more stuck calls than workers: the pool replaces the stuck ones
        call(slow, f"s{n}", "stuck", seconds=4)
    replies = [slow.recv(timeout=8) for _ in range(6)]
    assert all("deadline_exceeded" in r["result"]["content"][0]["text"] for r in replies)
    call(slow, "after", "list_directory")  # while those six still sleep
    assert slow.recv(timeout=3)["result"]["isError"] is False


def test_a_cooperative_call_stops_at_its_deadline(slow: RawServer, tmp_path: Path) -> None:
    call(slow, 1, "slow", seconds=30, marker=str(tmp_path / "m"))
    reply = slow.recv(timeout=5)
    assert "deadline_exceeded" in reply["result"]["content"][0]["text"]
    assert wait_for(tmp_path / "m", "deadline_exceeded") == "deadline_exceeded"


def test_no_change_after_the_deadline(slow: RawServer, ws: Path, audit_path: Path) -> None:
    call(slow, 1, "slow_write", seconds=3)
    reply = slow.recv(timeout=5)
    assert "deadline_exceeded" in reply["result"]["content"][0]["text"]
    assert "nothing was changed" in reply["result"]["content"][0]["text"]
    time.sleep(2)  # the tool wakes up and tries to write: refused
    assert not (ws / "late.txt").exists()
    slow.send({"jsonrpc": "2.0", "id": 2, "method": "ping"})
    assert slow.recv()["id"] == 2
    assert "late.txt" not in audit_path.read_text() if audit_path.exists() else True


def test_cancelled_call_stops_and_gets_no_response(slow: RawServer, tmp_path: Path) -> None:
    marker = tmp_path / "m"
    call(slow, 7, "slow", seconds=30, marker=str(marker))
    assert wait_for(marker, "started") == "started"
    slow.send(
        {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": 7, "reason": "user pressed Esc"},
        }
    )
    assert wait_for(marker, "cancelled") == "cancelled"  # the work itself stopped
    slow.send({"jsonrpc": "2.0", "id": 8, "method": "ping"})
    assert slow.recv(timeout=3) == {"jsonrpc": "2.0", "id": 8, "result": {}}  # and no reply 7
    with pytest.raises(TimeoutError):
        slow.recv(timeout=2.5)  # not even after its deadline passed


def test_cancelling_a_queued_call_or_an_unknown_id_is_harmless(slow: RawServer) -> None:
    for n in range(4):
        call(slow, f"busy{n}", "stuck", seconds=1)
    call(slow, "queued", "list_directory")
    slow.send(
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "queued"}}
    )
    slow.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 999}})
    slow.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": "junk"})
    ids = {slow.recv(timeout=5)["id"] for _ in range(4)}
    assert ids == {f"busy{n}" for n in range(4)}
    slow.send({"jsonrpc": "2.0", "id": "p", "method": "ping"})
    assert slow.recv(timeout=3)["id"] == "p"


def test_a_duplicate_id_in_flight_is_refused(slow: RawServer, tmp_path: Path) -> None:
    call(slow, 5, "slow", seconds=0.5, marker=str(tmp_path / "m"))
    call(slow, 5, "list_directory")
    first = slow.recv(timeout=3)
    assert first["id"] == 5 and first["error"]["code"] == -32600
    assert slow.recv(timeout=3)["result"]["isError"] is False


def test_calls_pending_at_end_of_input_are_still_answered(
    server_env: dict[str, str], tmp_path: Path
) -> None:
    env = {**server_env, "MSD_MCP_TEST_TOOLS": SLOW, "MSD_MCP_CALL_TIMEOUT": "2"}
    server = RawServer(SERVER, env, tmp_path / "err.log")
    server.initialize()
    call(server, 1, "slow", seconds=0.3, marker=str(tmp_path / "m"))
    call(server, 2, "stuck", seconds=30)
    assert server.proc.stdin is not None
    server.proc.stdin.close()  # end of input right after the requests
    replies = {m["id"]: m for m in (server.recv(timeout=5) for _ in range(2))}
    assert replies[1]["result"]["isError"] is False
    assert "deadline_exceeded" in replies[2]["result"]["content"][0]["text"]
    assert server.close() == 0
