"""A raw newline-delimited JSON-RPC client over a real server process (test helper)."""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import time
from pathlib import Path
from typing import Any

TIMEOUT = 10.0


class RawServer:
    def __init__(
        self, cmd: list[str], env: dict[str, str], stderr_path: Path, cwd: Path | None = None
    ) -> None:
        self.stderr_path = stderr_path
        self._err = open(stderr_path, "wb")  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err, env=env, cwd=cwd
        )
        assert self.proc.stdout is not None
        self._fd = self.proc.stdout.fileno()
        self._buf = b""
        self._next_id = 100

    def send_bytes(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, msg: Any) -> None:
        self.send_bytes(json.dumps(msg).encode() + b"\n")

    def read_line(self, timeout: float = TIMEOUT) -> bytes | None:
        """The next raw line from stdout, or None at EOF; fails on timeout."""
        deadline = time.monotonic() + timeout
        sel = selectors.DefaultSelector()
        sel.register(self._fd, selectors.EVENT_READ)
        chunks = [self._buf]
        try:
            while b"\n" not in chunks[-1]:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    have = b"".join(chunks)[:200]
                    self._buf = b"".join(chunks)
                    raise TimeoutError(f"no line within {timeout}s; have {have!r}")
                chunk = os.read(self._fd, 1 << 20)
                if not chunk:
                    rest, self._buf = b"".join(chunks), b""
                    return rest or None
                chunks.append(chunk)
        finally:
            sel.close()
        line, _, self._buf = b"".join(chunks).partition(b"\n")
        return line

    def recv(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        line = self.read_line(timeout)
        assert line is not None, "server closed stdout"
        msg = json.loads(line)
        assert isinstance(msg, dict)
        return msg

    def request(self, method: str, params: Any = None, **extra: Any) -> dict[str, Any]:
        self._next_id += 1
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if params is not None:
            msg["params"] = params
        msg.update(extra)
        self.send(msg)
        reply = self.recv()
        assert reply.get("id") == self._next_id, reply
        return reply

    def initialize(self, version: str = "2025-11-25") -> dict[str, Any]:
        reply = self.request(
            "initialize",
            {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return reply

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        reply = self.request("tools/call", {"name": name, "arguments": arguments})
        assert "result" in reply, reply
        result: dict[str, Any] = reply["result"]
        return result

    def stderr(self) -> str:
        if not self._err.closed:
            self._err.flush()
        return self.stderr_path.read_text(errors="replace")

    def close(self) -> int:
        """Close stdin (end of input) and return the exit code; safe to call twice."""
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            rc = self.proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        if self.proc.stdout:
            self.proc.stdout.close()
        self._err.close()
        return rc
