"""A loopback stand-in for an OpenAI-compatible chat endpoint, so a real CLI runs offline.

The Copilot CLI is pointed at it with ``COPILOT_OFFLINE=true``, ``COPILOT_PROVIDER_BASE_URL``,
``COPILOT_PROVIDER_TYPE=openai`` and ``COPILOT_MODEL``. The stub answers streaming
``/chat/completions`` requests: when a user message of the conversation contains
``trigger`` and no tool result has come back yet, the answer is one call of ``tool`` with
``arguments``; everything else gets a short text answer. Every request body is kept, so a test
reads what the CLI sent: its system prompt, the tools (and so the subagents and skills it
loaded), and the tool results (for example a hook's deny reason). Traffic stays on 127.0.0.1.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def _chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "stub-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _sse(chunks: list[dict[str, Any]]) -> bytes:
    usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    tail = {**_chunk({}, None), "choices": [], "usage": usage}
    lines = [f"data: {json.dumps(c)}\n\n" for c in [*chunks, tail]]
    return ("".join(lines) + "data: [DONE]\n\n").encode()


def text_answer(text: str) -> bytes:
    return _sse([_chunk({"role": "assistant", "content": text}, None), _chunk({}, "stop")])


def tool_answer(tool: str, arguments: dict[str, Any]) -> bytes:
    call = {
        "index": 0,
        "id": "call_stub_1",
        "type": "function",
        "function": {"name": tool, "arguments": json.dumps(arguments)},
    }
    return _sse(
        [
            _chunk({"role": "assistant", "content": None, "tool_calls": [call]}, None),
            _chunk({}, "tool_calls"),
        ]
    )


def tool_names(request: dict[str, Any]) -> list[str]:
    """The function tools a request offered the model."""
    names = []
    for tool in request.get("tools") or []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            names.append(function["name"])
    return names


def tool_spec(request: dict[str, Any], name: str) -> dict[str, Any]:
    """The function definition (description, parameters) of tool ``name`` in a request."""
    for tool in request.get("tools") or []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and function.get("name") == name:
            return function
    raise KeyError(name)


def system_prompt(request: dict[str, Any]) -> str:
    parts = [m.get("content") for m in request.get("messages", []) if m.get("role") == "system"]
    return "\n".join(p if isinstance(p, str) else json.dumps(p) for p in parts)


class OpenAIStub:
    def __init__(
        self, trigger: str = "", tool: str = "", arguments: dict[str, Any] | None = None
    ) -> None:
        self.trigger, self.tool, self.arguments = trigger, tool, arguments or {}
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

            def do_GET(self) -> None:  # model catalogues: none here
                self.send_response(404)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def env(self, model: str = "gpt-4.1") -> dict[str, str]:
        """The variables that point the Copilot CLI at this stub, offline."""
        return {
            "COPILOT_OFFLINE": "true",
            "COPILOT_PROVIDER_BASE_URL": self.url,
            "COPILOT_PROVIDER_TYPE": "openai",
            "COPILOT_PROVIDER_API_KEY": "stub-key",
            "COPILOT_MODEL": model,
        }

    def answer(self, request: dict[str, Any]) -> bytes:
        messages = request.get("messages", [])
        said = json.dumps([m.get("content") for m in messages if m.get("role") == "user"])
        answered = any(m.get("role") == "tool" for m in messages)
        if self.trigger and self.trigger in said and not answered and request.get("tools"):
            return tool_answer(self.tool, self.arguments)
        return text_answer("stub: ok")

    def tool_results(self) -> list[str]:
        """The text of every tool result the CLI sent back."""
        found = []
        for request in self.requests:
            for message in request.get("messages", []):
                if message.get("role") == "tool":
                    content = message.get("content")
                    found.append(content if isinstance(content, str) else json.dumps(content))
        return found

    def __enter__(self) -> OpenAIStub:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
