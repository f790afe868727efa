"""The audit log: what a mutating call records, the hash chain, and verify-audit."""

from __future__ import annotations

import hashlib
import json
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from mcp_raw import RawServer

from msd_install.msdcore.audit import AuditLog

VERIFY = [sys.executable, "-m", "msd_install.msdcore.mcp", "verify-audit"]


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def records(path: Path) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in path.read_text().splitlines()]


def verify(path: Path) -> tuple[int, str]:
    done = subprocess.run([*VERIFY, str(path)], capture_output=True, text=True, timeout=20)
    return done.returncode, done.stdout


@pytest.fixture
def audited(raw: RawServer, ws: Path, audit_path: Path) -> Path:
    """Six mutating calls (one refused, one dry run) and two reads through the server."""
    raw.initialize()
    raw.call("read_text_file", {"path": "hello.txt"})
    raw.call("write_file", {"path": "notes.txt", "content": "v1\n"})
    raw.call("edit_file", {"path": "notes.txt", "edits": [{"old_text": "v1", "new_text": "v2"}]})
    raw.call(
        "edit_file",
        {"path": "notes.txt", "edits": [{"old_text": "v2", "new_text": "v3"}], "dry_run": True},
    )
    raw.call("create_directory", {"path": "docs"})
    raw.call("move_file", {"source": "notes.txt", "destination": "docs/notes.txt"})
    assert raw.call("write_file", {"path": "../escape.txt", "content": "x"})["isError"] is True
    raw.call("list_directory", {})
    assert raw.close() == 0
    return audit_path


def outcomes(path: Path) -> list[dict]:  # type: ignore[type-arg]
    return [r for r in records(path) if r["stage"] == "outcome"]


def test_each_change_has_an_intent_first_and_each_call_an_outcome(audited: Path) -> None:
    recs = records(audited)
    assert [r["tool"] for r in outcomes(audited)] == [
        "write_file",
        "edit_file",
        "edit_file",
        "create_directory",
        "move_file",
        "write_file",
    ]
    # Every change was announced (and fsync-ed) before it happened, by the same call.
    assert [(r["stage"], r["tool"], r.get("op")) for r in recs] == [
        ("intent", "write_file", "create"),
        ("outcome", "write_file", None),
        ("intent", "edit_file", "write"),
        ("outcome", "edit_file", None),
        ("outcome", "edit_file", None),  # the dry run changes nothing
        ("intent", "create_directory", "mkdir"),
        ("outcome", "create_directory", None),
        ("intent", "move_file", "move"),
        ("outcome", "move_file", None),
        ("outcome", "write_file", None),  # refused before any change
    ]
    calls = [r["call"] for r in recs]
    assert calls[0] == calls[1] and calls[2] == calls[3] and calls[7] == calls[8]
    assert len(set(calls)) == 6
    assert [r["seq"] for r in recs] == list(range(1, 11))
    lines = audited.read_bytes().splitlines()
    assert recs[0]["prev_hash"] is None
    assert [r["prev_hash"] for r in recs[1:]] == [sha(line) for line in lines[:-1]]
    for r in recs:
        assert r["v"] == 1 and re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", r["ts"])
        assert (
            r["client"] == {"name": "t", "version": "1"} and r["protocol_version"] == "2025-11-25"
        )
    assert stat.S_IMODE(audited.stat().st_mode) == 0o600


def test_records_hold_relative_paths_hashes_and_outcomes(audited: Path) -> None:
    write, edit, dry, mkdir, move, refused = outcomes(audited)
    assert write["paths"] == [
        {"path": "notes.txt", "before_sha256": None, "after_sha256": sha(b"v1\n")}
    ]
    assert edit["paths"] == [
        {"path": "notes.txt", "before_sha256": sha(b"v1\n"), "after_sha256": sha(b"v2\n")}
    ]
    assert dry["dry_run"] is True and dry["paths"] == []
    assert mkdir["paths"] == [{"path": "docs", "before_sha256": None, "after_sha256": None}]
    assert move["paths"] == [
        {"path": "notes.txt", "before_sha256": sha(b"v2\n"), "after_sha256": None},
        {"path": "docs/notes.txt", "before_sha256": None, "after_sha256": sha(b"v2\n")},
    ]
    assert (refused["outcome"], refused["error_code"], refused["paths"]) == (
        "error",
        "outside_workspace",
        [],
    )
    intent = records(audited)[0]
    assert (intent["path"], intent["before_sha256"], intent["after_sha256"]) == (
        "notes.txt",
        None,
        sha(b"v1\n"),
    )
    args = {"path": "notes.txt", "content": "v1\n"}
    canonical = json.dumps(args, sort_keys=True, separators=(",", ":")).encode()
    assert write["outcome"] == "ok" and write["args_sha256"] == sha(canonical)


def test_verify_accepts_an_intact_log(audited: Path) -> None:
    assert verify(audited) == (0, "ok: 10 records, chain intact\n")


def test_verify_reports_an_edited_line(audited: Path) -> None:
    lines = audited.read_text().splitlines(keepends=True)
    assert '"outcome":"ok"' in lines[3]
    lines[3] = lines[3].replace('"outcome":"ok"', '"outcome":"error"')
    audited.write_text("".join(lines))
    code, out = verify(audited)
    assert code == 1 and out.startswith("broken: line 4: altered")


def test_verify_reports_a_deleted_line(audited: Path) -> None:
    lines = audited.read_text().splitlines(keepends=True)
    del lines[1]
    audited.write_text("".join(lines))
    assert verify(audited) == (
        1,
        "broken: line 2: seq 3 where 2 was expected: a line was deleted, inserted or reordered\n",
    )


def test_verify_reports_reordered_lines(audited: Path) -> None:
    lines = audited.read_text().splitlines(keepends=True)
    lines[3], lines[4] = lines[4], lines[3]
    audited.write_text("".join(lines))
    code, out = verify(audited)
    assert code == 1 and out.startswith("broken: line 4: seq 5 where 4 was expected")


def test_verify_reports_a_deleted_first_line_and_garbage(audited: Path) -> None:
    lines = audited.read_text().splitlines(keepends=True)
    audited.write_text("".join(lines[1:]))
    assert verify(audited)[0] == 1
    audited.write_text("".join(lines[:2]) + "not json\n" + "".join(lines[2:]))
    assert verify(audited) == (
        1,
        "broken: line 3: not a valid audit record (edited or corrupted)\n",
    )


def test_torn_last_line_is_reported_not_broken_and_blocks_further_mutations(
    audited: Path, server_env: dict[str, str], ws: Path, tmp_path: Path
) -> None:
    with audited.open("ab") as f:
        f.write(b'{"v":1,"seq":11,"ts":"2026-')
    assert verify(audited) == (
        0,
        "note: line 11 is incomplete (torn write); ignored\nok: 10 records, chain intact\n",
    )
    server = RawServer(
        [sys.executable, "-m", "msd_install.msdcore.mcp"], server_env, tmp_path / "e.log"
    )
    server.initialize()
    result = server.call("write_file", {"path": "after-crash.txt", "content": "x"})
    assert result["isError"] is True and "audit_unavailable" in result["content"][0]["text"]
    assert not (ws / "after-crash.txt").exists()
    assert server.call("read_text_file", {"path": "hello.txt"})["isError"] is False
    assert server.close() == 0


def test_verify_usage_and_missing_file(tmp_path: Path) -> None:
    assert verify(tmp_path / "nope.jsonl")[0] == 2
    done = subprocess.run(VERIFY, capture_output=True, text=True, timeout=20)
    assert done.returncode == 2 and "usage" in done.stdout


WRITER = """
import sys
from pathlib import Path
from msd_install.msdcore.audit import AuditLog
log = AuditLog(Path(sys.argv[1]))
for i in range(int(sys.argv[2])):
    log.append({"tool": "write_file", "writer": sys.argv[3], "i": i})
"""


def test_concurrent_writers_keep_one_linear_chain(tmp_path: Path) -> None:
    path = tmp_path / "shared" / "audit.jsonl"
    AuditLog(path).append({"tool": "start"})
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), "40", str(n)]) for n in range(4)
    ]
    assert [p.wait(timeout=60) for p in procs] == [0, 0, 0, 0]
    assert verify(path) == (0, "ok: 161 records, chain intact\n")


def test_a_log_moved_aside_starts_a_new_chain_in_a_new_file(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    log = AuditLog(path)
    log.append({"tool": "a"})
    path.rename(tmp_path / "audit.1.jsonl")
    log.append({"tool": "b"})  # the same AuditLog notices the rotation
    assert [r["tool"] for r in records(path)] == ["b"] and records(path)[0]["seq"] == 1
    assert [r["tool"] for r in records(tmp_path / "audit.1.jsonl")] == ["a"]
    assert verify(path)[0] == 0 and verify(tmp_path / "audit.1.jsonl")[0] == 0
