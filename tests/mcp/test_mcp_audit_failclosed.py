"""The audit log fails closed: when the intent record cannot be written, the change does not
happen. Records stay strict JSON, bounded, one line each, whatever the client sends."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import SERVER
from mcp_raw import RawServer

from msd_install.msdcore.audit import MAX_RECORD_BYTES, AuditError, AuditLog


def _server(env: dict[str, str], tmp_path: Path, audit: str) -> RawServer:
    server = RawServer(SERVER, {**env, "MSD_AUDIT_LOG": audit}, tmp_path / "err.log")
    server.initialize()
    return server


def _code(result: dict[str, Any]) -> str:
    return str(json.loads(result["content"][0]["text"])["error"]["code"])


MUTATIONS = [
    ("write_file", {"path": "new.txt", "content": "x"}),
    ("edit_file", {"path": "hello.txt", "edits": [{"old_text": "one", "new_text": "1"}]}),
    ("create_directory", {"path": "newdir"}),
    ("move_file", {"source": "hello.txt", "destination": "moved.txt"}),
]


def _untouched(ws: Path) -> None:
    assert sorted(p.name for p in ws.iterdir()) == ["hello.txt", "sub"]
    assert (ws / "hello.txt").read_text() == "line one\nline two\nline three\n"


@pytest.mark.parametrize("damage", ["garbage", "torn", "nan", "not_a_record"])
def test_a_damaged_log_refuses_every_change(
    server_env: dict[str, str], tmp_path: Path, ws: Path, damage: str
) -> None:
    log = tmp_path / "audit.jsonl"
    log.write_bytes(
        {
            "garbage": b"this is not json\n",
            "torn": b'{"v":1,"seq":1,',
            "nan": b'{"v":1,"seq":NaN,"prev_hash":null}\n',
            "not_a_record": b"[1, 2, 3]\n",
        }[damage]
    )
    server = _server(server_env, tmp_path, str(log))
    for name, args in MUTATIONS:
        result = server.call(name, args)
        assert result["isError"] is True and _code(result) == "audit_unavailable", name
    assert server.call("read_text_file", {"path": "hello.txt"})["isError"] is False
    assert server.close() == 0
    _untouched(ws)


def test_a_full_disk_refuses_the_change(
    server_env: dict[str, str], tmp_path: Path, ws: Path
) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    # /dev/full is refused at start-up already (not a regular file) ...
    done = subprocess.run(
        SERVER,
        env={**server_env, "MSD_AUDIT_LOG": "/dev/full"},
        input="",
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert done.returncode == 2 and "MSD_AUDIT_LOG" in done.stderr
    # ... and a log that turns into it later (a symlink swapped in) refuses the change.
    log = tmp_path / "audit.jsonl"
    server = _server(server_env, tmp_path, str(log))
    assert server.call("write_file", {"path": "first.txt", "content": "x"})["isError"] is False
    log.unlink()
    log.symlink_to("/dev/full")
    for name, args in MUTATIONS:
        result = server.call(name, args)
        assert _code(result) == "audit_unavailable", name
    assert server.close() == 0
    assert sorted(p.name for p in ws.iterdir()) == ["first.txt", "hello.txt", "sub"]


def test_an_unwritable_log_refuses_the_change(
    server_env: dict[str, str], tmp_path: Path, ws: Path
) -> None:
    if os.geteuid() == 0:
        pytest.skip("root writes read-only files; covered by the /dev/full case")
    log = tmp_path / "audit.jsonl"
    log.write_text("")
    log.chmod(0o400)
    server = _server(server_env, tmp_path, str(log))
    for name, args in MUTATIONS:
        assert _code(server.call(name, args)) == "audit_unavailable", name
    assert server.close() == 0
    _untouched(ws)


def test_a_log_replaced_by_a_symlink_or_a_directory_refuses_the_change(
    server_env: dict[str, str], tmp_path: Path, ws: Path
) -> None:
    log = tmp_path / "audit.jsonl"
    server = _server(server_env, tmp_path, str(log))
    assert server.call("write_file", {"path": "a.txt", "content": "x"})["isError"] is False
    elsewhere = tmp_path / "elsewhere.jsonl"
    log.rename(elsewhere)
    log.symlink_to(elsewhere)  # even a link to a good log: the path must be the log itself
    assert (
        _code(server.call("write_file", {"path": "b.txt", "content": "x"})) == "audit_unavailable"
    )
    log.unlink()
    log.mkdir()
    assert (
        _code(server.call("write_file", {"path": "c.txt", "content": "x"})) == "audit_unavailable"
    )
    assert server.close() == 0
    assert not (ws / "b.txt").exists() and not (ws / "c.txt").exists()


def test_client_info_is_summarised_and_deep_nesting_changes_nothing(
    server_env: dict[str, str], tmp_path: Path, ws: Path
) -> None:
    log = tmp_path / "audit.jsonl"
    server = RawServer(SERVER, {**server_env, "MSD_AUDIT_LOG": str(log)}, tmp_path / "e.log")
    deep = "[" * 900 + "]" * 900  # parses, but nests too deep to be copied into records
    name = "n\u001b[31m\n" + "x" * 5000
    info = '{"name":' + json.dumps(name) + ',"version":"1","extra":' + deep + "}"
    hello = (
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
        '"capabilities":{},"clientInfo":' + info + "}}\n"
    )
    server.send_bytes(hello.encode())
    assert "result" in server.recv()
    for n in range(3):  # every later write is audited, not just the first
        assert server.call("write_file", {"path": f"w{n}.txt", "content": "x"})["isError"] is False
    assert server.close() == 0
    lines = log.read_bytes().splitlines()
    assert len(lines) == 6
    for line in lines:
        assert len(line) < 2048 and b"\x1b" not in line
        record = json.loads(line)
        assert record["client"] == {"name": name[:64], "version": "1"}


def test_control_characters_in_paths_cannot_forge_lines(
    server_env: dict[str, str], tmp_path: Path, ws: Path
) -> None:
    log = tmp_path / "audit.jsonl"
    server = _server(server_env, tmp_path, str(log))
    forged = 'x\n{"v":1,"seq":99}\n\u001b[2J\u2028.txt'
    assert server.call("write_file", {"path": forged, "content": "x"})["isError"] is False
    refused = server.call("read_text_file", {"path": "../\nmsd-mcp FORGED ERROR\n"})
    assert refused["isError"] is True
    assert server.close() == 0
    assert len(log.read_bytes().splitlines()) == 2  # one intent, one outcome
    assert all(json.loads(line)["v"] == 1 for line in log.read_bytes().splitlines())
    stderr = server.stderr()
    assert "\x1b" not in stderr
    assert not any(line.startswith("msd-mcp FORGED") for line in stderr.splitlines())


def test_records_are_strict_json_and_bounded(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "a.jsonl")
    with pytest.raises(AuditError):
        log.append({"tool": "x", "value": float("nan")})
    with pytest.raises(AuditError):
        log.append({"tool": "x", "blob": "y" * MAX_RECORD_BYTES})
    assert not (tmp_path / "a.jsonl").read_bytes()  # nothing half written
    log.append({"tool": "ok"})
    assert json.loads((tmp_path / "a.jsonl").read_bytes())["seq"] == 1


CHECKER = """
import sys
from pathlib import Path
from msd_install.msdcore.audit import AuditLog
log = AuditLog(Path(sys.argv[1]))
for i in range(int(sys.argv[2])):
    log.check()
    log.append({"tool": "write_file", "writer": sys.argv[3], "i": i, "pad": "p" * 20000})
"""


def test_two_servers_on_one_log_never_refuse_each_other(tmp_path: Path) -> None:
    # Big records span several pages: a check that read the last line without the lock saw
    # a half-written one and refused the change.
    path = tmp_path / "shared.jsonl"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", CHECKER, str(path), "60", str(n)], stderr=subprocess.PIPE
        )
        for n in range(4)
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0, 0], [
        p.stderr.read() for p in procs if p.stderr
    ]
    verify = subprocess.run(
        [*SERVER, "verify-audit", str(path)], capture_output=True, text=True, timeout=60
    )
    assert verify.stdout == "ok: 240 records, chain intact\n"
