"""A loopback stand-in for Augment's API, so the real ``auggie`` CLI runs a session offline.

Auggie is pointed at it with ``AUGMENT_SESSION_AUTH='{"accessToken": "dummy", "tenantURL":
"http://127.0.0.1:<port>/"}'``. The stub answers ``get-models`` with the account flags that
switch on custom subagents and settings hooks (``beachhead_enable_sub_agent_tool``,
``enable_hooks``), answers each ``chat-stream`` with the next scripted tool call (Auggie's
newline-delimited chunk: a ``tool_use`` node, stop reason 3) and then with a short text (stop
reason 1), and answers every other endpoint 400, which Auggie survives. Every request body is
kept: the first ``chat-stream`` shows what the session loaded (skills, tools, rules), the next
ones carry the tool results (for example a hook's block reason). Traffic stays on 127.0.0.1.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FLAGS = {"beachhead_enable_sub_agent_tool": True, "enable_hooks": True}
TOOL_USE, TEXT = 5, 0  # Auggie's response node types
END_TURN, TOOL_USE_REQUESTED = 1, 3


class AugmentStub:
    def __init__(self, script: Sequence[tuple[str, dict[str, Any]]] = ()) -> None:
        self.script = list(script)
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                try:
                    request = json.loads(body)
                except ValueError:
                    request = {}
                status, data = stub.answer(self.path, request)
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def auth(self) -> str:
        port = self.server.server_address[1]
        url = f"http://127.0.0.1:{port}/"
        return json.dumps({"accessToken": "dummy", "tenantURL": url, "scopes": ["email"]})

    def answer(self, path: str, request: dict[str, Any]) -> tuple[int, bytes]:
        with self._lock:
            self.requests.append((path, request))
            turn = sum(1 for p, _ in self.requests if p == "/chat-stream")
        if path == "/get-models":
            models = {"default_model": "", "models": [], "languages": [], "feature_flags": FLAGS}
            return 200, json.dumps(models).encode()
        if path != "/chat-stream":
            return 400, b'{"error": "offline stub"}'
        if turn <= len(self.script):
            tool, tool_input = self.script[turn - 1]
            use = {
                "tool_use_id": f"tu{turn}",
                "tool_name": tool,
                "input_json": json.dumps(tool_input),
            }
            chunk: dict[str, Any] = {
                "text": "",
                "nodes": [{"id": 1, "type": TOOL_USE, "tool_use": use}],
                "stop_reason": TOOL_USE_REQUESTED,
            }
        else:
            chunk = {"text": "done", "nodes": [], "stop_reason": END_TURN}
        return 200, (json.dumps(chunk) + "\n").encode()

    def chats(self) -> list[dict[str, Any]]:
        """Every ``chat-stream`` request body, in order."""
        return [body for path, body in self.requests if path == "/chat-stream"]

    def tool_results(self) -> list[str]:
        """The tool results Auggie sent back, in order."""
        return [
            node["tool_result_node"]["content"]
            for body in self.chats()
            for node in body.get("nodes", [])
            if node.get("tool_result_node")
        ]

    def __enter__(self) -> AugmentStub:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
