"""Loopback stand-ins for the Gemini API and the OpenAI chat API, so ``gemini`` and ``qwen``
run offline and show what their own loaders took in.

``gemini`` is pointed at ``GeminiStub`` with ``GOOGLE_GEMINI_BASE_URL`` and a dummy
``GEMINI_API_KEY``; ``qwen`` at ``OpenAIStub`` with ``--auth-type openai``, ``OPENAI_BASE_URL``
and a dummy key. Every request body is kept: the system instruction, the tool list and the
first user message carry the subagents, skills and the expanded command prompt. When the
conversation contains ``trigger`` (and no tool result yet), the stub answers with one call of
``tool`` with ``tool_input``; any later request gets a short text, so a test can read what the
CLI sent back (a hook's block reason in the tool result). Traffic stays on 127.0.0.1.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _Stub:
    """The shared server: records ``(path, body)`` and answers with ``self.answer``."""

    def __init__(self, trigger: str = "", tool: str = "", tool_input: Any = None) -> None:
        self.trigger, self.tool, self.tool_input = trigger, tool, tool_input or {}
        self.requests: list[tuple[str, dict[str, Any]]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                try:
                    request = json.loads(body)
                except ValueError:
                    request = {}
                stub.requests.append((self.path, request))
                status, kind, payload = stub.answer(self.path, request)
                self.send_response(status)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def answer(self, path: str, request: dict[str, Any]) -> tuple[int, str, bytes]:
        raise NotImplementedError

    def wants_tool(self, conversation: str, has_result: bool) -> bool:
        return bool(self.trigger) and self.trigger in conversation and not has_result

    def __enter__(self) -> _Stub:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def _sse(chunks: list[dict[str, Any]], done: bool = False) -> bytes:
    out = b"".join(f"data: {json.dumps(c)}\n\n".encode() for c in chunks)
    return out + (b"data: [DONE]\n\n" if done else b"")


class GeminiStub(_Stub):
    """``models/<m>:streamGenerateContent?alt=sse`` and ``:generateContent``."""

    def answer(self, path: str, request: dict[str, Any]) -> tuple[int, str, bytes]:
        contents = json.dumps(request.get("contents", []))
        if self.wants_tool(contents, "functionResponse" in contents):
            part: dict[str, Any] = {"functionCall": {"name": self.tool, "args": self.tool_input}}
        else:
            part = {"text": "stub: done" if "functionResponse" in contents else "stub: ok"}
        reply = {
            "candidates": [
                {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": 1,
                "candidatesTokenCount": 1,
                "totalTokenCount": 2,
            },
        }
        if "streamGenerateContent" in path:
            return 200, "text/event-stream", _sse([reply])
        return 200, "application/json", json.dumps(reply).encode()

    def main_requests(self) -> list[dict[str, Any]]:
        """The agent's own turns (the ones that carry tools), not the model-router's calls."""
        return [r for p, r in self.requests if "streamGenerateContent" in p and r.get("tools")]

    def function_responses(self) -> list[dict[str, Any]]:
        found = []
        for request in self.main_requests():
            for content in request.get("contents", []):
                found += [
                    p["functionResponse"]
                    for p in content.get("parts", [])
                    if "functionResponse" in p
                ]
        return found


class OpenAIStub(_Stub):
    """``/v1/chat/completions``, streamed."""

    def answer(self, path: str, request: dict[str, Any]) -> tuple[int, str, bytes]:
        messages = request.get("messages", [])
        text = json.dumps(messages)
        has_result = any(m.get("role") == "tool" for m in messages)
        base = {"id": "chatcmpl-stub", "object": "chat.completion.chunk", "model": "stub-model"}
        if self.wants_tool(text, has_result):
            call = {
                "index": 0,
                "id": "call_stub_1",
                "type": "function",
                "function": {"name": self.tool, "arguments": json.dumps(self.tool_input)},
            }
            delta: dict[str, Any] = {"role": "assistant", "tool_calls": [call]}
            finish = "tool_calls"
        else:
            delta = {"role": "assistant", "content": "stub: done" if has_result else "stub: ok"}
            finish = "stop"
        usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        chunks = [
            {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
            {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
            {**base, "choices": [], "usage": usage},
        ]
        if request.get("stream"):
            return 200, "text/event-stream", _sse(chunks, done=True)
        message = {"role": "assistant", **{k: v for k, v in delta.items() if k != "role"}}
        reply = {
            **base,
            "object": "chat.completion",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": usage,
        }
        return 200, "application/json", json.dumps(reply).encode()

    def main_requests(self) -> list[dict[str, Any]]:
        return [r for _p, r in self.requests if r.get("tools")]

    def tool_results(self) -> list[str]:
        found = []
        for request in self.main_requests():
            for message in request.get("messages", []):
                if message.get("role") == "tool":
                    content = message.get("content")
                    found.append(content if isinstance(content, str) else json.dumps(content))
        return found
