"""A loopback stand-in for the OpenAI Responses API, so the real ``codex exec`` runs offline.

Codex is pointed at it through a model provider in ``config.toml`` (``base_url``, a dummy key
from ``env_key``). The first request is answered with one output item (a tool call chosen by
the test); any request that carries that call's output gets a short message. Every request
body is kept, so a test reads what Codex sent to the model: the context our hooks added, and
what a blocked tool call returned. Traffic stays on 127.0.0.1.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

OUTPUTS = ("function_call_output", "custom_tool_call_output")


def _sse(item: dict[str, Any]) -> bytes:
    response = {"id": "resp_stub", "object": "response", "status": "completed", "output": [item]}
    usage = {
        "input_tokens": 1,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 1,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 2,
    }
    events = [
        {"type": "response.created", "response": {**response, "status": "in_progress"}},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed", "response": {**response, "usage": usage}},
    ]
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def shell_call(cmd: str) -> dict[str, Any]:
    arguments = json.dumps({"cmd": cmd})
    return {"type": "function_call", "name": "exec_command", "arguments": arguments,
            "call_id": "call_stub", "id": "fc_stub", "status": "completed"}  # fmt: skip


def patch_call(patch: str) -> dict[str, Any]:
    return {"type": "custom_tool_call", "name": "apply_patch", "input": patch,
            "call_id": "call_stub", "id": "ctc_stub", "status": "completed"}  # fmt: skip


DONE = {
    "type": "message",
    "id": "msg_stub",
    "role": "assistant",
    "status": "completed",
    "content": [{"type": "output_text", "text": "stub: done", "annotations": []}],
}


class ResponsesStub:
    def __init__(self, first: dict[str, Any]) -> None:
        self.first = first
        self.requests: list[dict[str, Any]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                try:
                    request = json.loads(body)
                except ValueError:
                    request = {}
                stub.requests.append(request)
                answered = any(i.get("type") in OUTPUTS for i in request.get("input", []))
                data = _sse(DONE if answered else stub.first)
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def provider(self) -> str:
        """The ``config.toml`` lines that send codex here (top-level keys, then the table)."""
        return (
            'model_provider = "stub"\nmodel = "gpt-6.2-sol"\n\n[model_providers.stub]\n'
            f'name = "stub"\nbase_url = "{self.url}"\nwire_api = "responses"\n'
            'env_key = "STUB_KEY"\n'
        )

    def sent(self) -> list[dict[str, Any]]:
        """Every input item codex sent, over all requests, in order."""
        return [item for request in self.requests for item in request.get("input", [])]

    def __enter__(self) -> ResponsesStub:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
