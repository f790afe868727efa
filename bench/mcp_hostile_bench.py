"""Benchmark: hostile calls against the real MCP server over stdio (issue 7's figures).

Prints, for each case, the seconds until the answer and what came back; asserts nothing.
  * search_files with a backtracking glob ('*a' x N + '*b') over names of 200-400 'a's;
  * edit_file with 1,000 edits on a 6.6 MB file (the diff used to take minutes);
  * edit_file / write_file on a 20 GiB sparse file (used to be hashed before too_large);
  * read_text_file of 8 MiB of control characters: the size of the response line;
  * ping while a slow call runs.

Usage: python bench/mcp_hostile_bench.py [--timeout SECONDS]   (MSD_MCP_CALL_TIMEOUT)
Point PYTHONPATH at another source tree to measure it instead.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


class Server:
    def __init__(self, ws: Path, audit: Path, timeout: str) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("MSD_")}
        env.update(MSD_WORKSPACE=str(ws), MSD_AUDIT_LOG=str(audit), MSD_MCP_CALL_TIMEOUT=timeout)
        self.p = subprocess.Popen(
            [sys.executable, "-m", "msd_install.msdcore.mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self.buf = b""
        self.send(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}})
        self.line(60)
        self.send(0, "tools/list", {})
        self.line(60)

    def send(self, msg_id: Any, method: str, params: dict[str, Any]) -> None:
        assert self.p.stdin
        msg = {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}
        self.p.stdin.write(json.dumps(msg).encode() + b"\n")
        self.p.stdin.flush()

    def line(self, limit: float) -> bytes | None:
        """The next line, or None when none came within ``limit`` seconds."""
        assert self.p.stdout
        fd = self.p.stdout.fileno()
        end = time.monotonic() + limit
        chunks = [self.buf]
        while b"\n" not in chunks[-1]:
            left = end - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                self.buf = b"".join(chunks)
                return None
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return None
            chunks.append(chunk)
        line, _, self.buf = b"".join(chunks).partition(b"\n")
        return line

    def close(self) -> None:
        self.p.kill()
        self.p.wait(timeout=60)


def summary(line: bytes | None, limit: float) -> str:
    if line is None:
        return f"no answer within {limit:g} s (killed)"
    msg = json.loads(line)
    if "error" in msg:
        return f"JSON-RPC error {msg['error']['code']}"
    result = msg["result"]
    if result.get("isError"):
        return "error " + json.loads(result["content"][0]["text"])["error"]["code"]
    return "ok"


def case(
    ws: Path, base: Path, opts: argparse.Namespace, name: str, args: dict[str, Any]
) -> tuple[float, str, int]:
    """One call on a fresh server: seconds, outcome, size of the answer line."""
    server = Server(ws, base / "audit.jsonl", opts.timeout)
    try:
        started = time.monotonic()
        server.send(1, "tools/call", {"name": name, "arguments": args})
        line = server.line(opts.limit)
        return time.monotonic() - started, summary(line, opts.limit), len(line or b"")
    finally:
        server.close()


def ping_during(ws: Path, base: Path, opts: argparse.Namespace, args: dict[str, Any]) -> str:
    server = Server(ws, base / "audit.jsonl", opts.timeout)
    try:
        server.send("slow", "tools/call", {"name": "edit_file", "arguments": args})
        time.sleep(0.2)
        started = time.monotonic()
        server.send("p", "ping", {})
        line = server.line(opts.limit)
        took = time.monotonic() - started
        first = json.loads(line)["id"] if line else None
        return f"{took:.3f} s, first answer: {first}"
    finally:
        server.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--timeout", default="600", help="the server's MSD_MCP_CALL_TIMEOUT")
    ap.add_argument("--limit", type=float, default=180, help="seconds to wait for an answer")
    opts = ap.parse_args()
    base = Path(tempfile.mkdtemp(prefix="msd-hostile-"))
    ws = base / "ws"
    (ws / "g").mkdir(parents=True)
    (ws / "g" / ("a" * 40)).write_text("x")
    (ws / "h").mkdir()
    for n in range(30):
        (ws / "h" / ("a" * (200 + n))).write_text("x")
    lines = [f"line {i:07d} some filler text to make it longer ......\n" for i in range(120_000)]
    (ws / "big.txt").write_text("".join(lines))
    with open(ws / "sparse.bin", "wb") as fh:
        fh.truncate(20 * 1024**3)
    (ws / "ctl.txt").write_bytes(b"\x01" * (8 * 1024 * 1024 - 1) + b"\n")
    edits = [
        {"old_text": f"line {i * 100:07d} ", "new_text": f"LINE {i * 100:07d} "}
        for i in range(1000)
    ]
    cases = [
        (
            "glob '*a'x10+'*b', one 40-char name",
            "search_files",
            {"path": "g", "pattern": "*a" * 10 + "*b"},
        ),
        (
            "glob '*a'x450+'*b', 30 long names",
            "search_files",
            {"path": "h", "pattern": "*a" * 450 + "*b"},
        ),
        ("edit_file, 1,000 edits, 6.6 MB", "edit_file", {"path": "big.txt", "edits": edits}),
        ("edit_file, 20 GiB sparse file", "edit_file", {"path": "sparse.bin", "edits": edits[:1]}),
        ("write_file, 20 GiB sparse file", "write_file", {"path": "sparse.bin", "content": "x"}),
        ("read_text_file, 8 MiB of \\x01", "read_text_file", {"path": "ctl.txt"}),
    ]
    for label, name, args in cases:
        took, what, size = case(ws, base, opts, name, args)
        print(f"{label:<40}{took:>9.3f} s  {what}; answer {size:,} bytes", flush=True)
    (ws / "big.txt").write_text("".join(lines))
    during = ping_during(ws, base, opts, {"path": "big.txt", "edits": edits})
    print(f"{'ping while that edit runs':<40}{during}")


if __name__ == "__main__":
    main()
