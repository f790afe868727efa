"""A loopback stand-in for the model endpoint, so the real ``claude`` CLI runs offline.

Claude Code is pointed at it with ``ANTHROPIC_BASE_URL`` and a dummy key. The stub answers the
streaming Messages API: when the conversation's first user message contains ``trigger``, the
first answer is a ``tool_use`` of ``tool`` with ``tool_input``; any request that carries a
``tool_result`` gets a short text answer, and so does everything else. Every request body is
kept, so a test can read what the CLI sent back (for example a hook's block reason).
Traffic stays on 127.0.0.1.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def _sse(events: list[dict[str, Any]]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def _message(blocks: list[tuple[dict[str, Any], list[dict[str, Any]]]], stop: str) -> bytes:
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_stub",
                "type": "message",
                "role": "assistant",
                "model": "stub-model",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1},
            },
        }
    ]
    for index, (start, deltas) in enumerate(blocks):
        events.append({"type": "content_block_start", "index": index, "content_block": start})
        events += [{"type": "content_block_delta", "index": index, "delta": d} for d in deltas]
        events.append({"type": "content_block_stop", "index": index})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": 1},
        }
    )
    events.append({"type": "message_stop"})
    return _sse(events)


def text_answer(text: str) -> bytes:
    return _message(
        [({"type": "text", "text": ""}, [{"type": "text_delta", "text": text}])], "end_turn"
    )


def tool_answer(tool: str, tool_input: dict[str, Any]) -> bytes:
    start = {"type": "tool_use", "id": "toolu_stub_1", "name": tool, "input": {}}
    delta = {"type": "input_json_delta", "partial_json": json.dumps(tool_input)}
    return _message([(start, [delta])], "tool_use")


class ModelStub:
    def __init__(self, trigger: str, tool: str, tool_input: dict[str, Any]) -> None:
        self.trigger, self.tool, self.tool_input = trigger, tool, tool_input
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
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()
                self.wfile.write(stub.answer(request))

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def answer(self, request: dict[str, Any]) -> bytes:
        text = json.dumps(request.get("messages", []))
        if "tool_result" in text:
            return text_answer("stub: done")
        if self.trigger in text and request.get("tools"):
            return tool_answer(self.tool, self.tool_input)
        return text_answer("stub: ok")

    def tool_results(self) -> list[dict[str, Any]]:
        """Every tool_result block the CLI sent back."""
        found = []
        for request in self.requests:
            for message in request.get("messages", []):
                content = message.get("content")
                if isinstance(content, list):
                    found += [
                        b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"
                    ]
        return found

    def __enter__(self) -> ModelStub:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
