"""The real Kimi Code CLI as an ACP server (``kimi acp``): what its loader took in, offline.

Kimi 2.1.0 has no listing subcommands; over ACP (newline-delimited JSON-RPC on stdio) a
client sends ``initialize`` and ``session/new {cwd, mcpServers: []}``, then gets an
``available_commands_update`` with every skill as ``skill:<name>``, and the prompt ``/mcp``
answers locally with each server's state (``- msd (stdio): connected, 47 tools``). The model
is the loopback ``openai_stub`` given through Kimi's own ``KIMI_MODEL_*`` variables, so no
provider block is ever written into the ``config.toml`` under test; any other prompt goes to
the stub, whose saved requests show the skills, the ``Agent`` tool's agent types and the tool
results (a hook's block reason). Kimi needs Node >= 22.19: the e2e cache has one in
``node22/``, used for Kimi alone.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from e2e_clis import bin_dir, clean_env, require
from openai_stub import OpenAIStub

ANSWER_TIMEOUT = 90.0


def node22() -> Path:
    path = bin_dir().parent.parent.parent / "node22/node_modules/.bin/node"
    if not path.exists():
        message = f"node 22 is not installed in {path.parent} (run scripts/install-clis)"
        if os.environ.get("MSD_E2E_REQUIRED") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return path


def kimi_argv(*args: str) -> list[str]:
    return [str(node22()), str(require("kimi")), *args]


def run_kimi(home: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A one-shot ``kimi`` command (``doctor config``) against ``home``, stdin closed."""
    return subprocess.run(
        kimi_argv(*args),
        cwd=cwd,
        env=clean_env(home),
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )


class AcpSession:
    """One ``kimi acp`` process with one session in ``cwd``; permission requests are allowed
    once (Kimi runs PreToolUse hooks before it asks)."""

    def __init__(self, home: Path, cwd: Path, stub: OpenAIStub) -> None:
        env = clean_env(
            home,
            KIMI_MODEL_NAME="stub-model",
            KIMI_MODEL_API_KEY="sk-stub",
            KIMI_MODEL_PROVIDER_TYPE="openai",
            KIMI_MODEL_BASE_URL=stub.url,
        )
        self.proc = subprocess.Popen(
            kimi_argv("acp"),
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self.commands: list[str] = []
        self.next_id = 0
        self.call("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        self.session = self.call("session/new", {"cwd": str(cwd), "mcpServers": []})["sessionId"]

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def call(self, method: str, params: dict[str, Any], texts: list[str] | None = None) -> Any:
        """Send a request; handle notifications and requests until its answer arrives."""
        self.next_id += 1
        ident = self.next_id
        self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        deadline = time.monotonic() + ANSWER_TIMEOUT
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"kimi acp gave no answer to {method} in {ANSWER_TIMEOUT:.0f} s"
            try:
                message = json.loads(self.lines.get(timeout=left))
            except queue.Empty:
                continue
            if message.get("id") == ident and "method" not in message:
                assert "error" not in message, message
                return message["result"]
            self._handle(message, texts)

    def _handle(self, message: dict[str, Any], texts: list[str] | None) -> None:
        if "id" in message and "method" in message:  # a request to us: allow once
            options = message.get("params", {}).get("options", [])
            allow = [o["optionId"] for o in options if o.get("kind") == "allow_once"]
            outcome = {"outcome": "selected", "optionId": allow[0]} if allow else {}
            self._send({"jsonrpc": "2.0", "id": message["id"], "result": {"outcome": outcome}})
            return
        update = message.get("params", {}).get("update", {})
        kind = update.get("sessionUpdate")
        if kind == "available_commands_update":
            self.commands = [c["name"] for c in update.get("availableCommands", [])]
        elif kind == "agent_message_chunk" and texts is not None:
            content = update.get("content", {})
            texts.append(content.get("text", "") if isinstance(content, dict) else "")

    def prompt(self, text: str) -> str:
        """The agent's answer to ``text`` (``/mcp`` is answered by Kimi itself)."""
        texts: list[str] = []
        params = {"sessionId": self.session, "prompt": [{"type": "text", "text": text}]}
        self.call("session/prompt", params, texts)
        return "".join(texts)

    def skills(self) -> Counter[str]:
        """``skill:<name>`` commands of the last ``available_commands_update``."""
        deadline = time.monotonic() + 10
        while not self.commands and time.monotonic() < deadline:
            self.prompt("/help")  # the update comes right after session/new; wait for it
        return Counter(c.removeprefix("skill:") for c in self.commands if c.startswith("skill:"))

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)

    def __enter__(self) -> AcpSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def mcp_status(answer: str) -> dict[str, str]:
    """``/mcp``'s lines ``- <name> (stdio): <state>`` as {name: state}."""
    out: dict[str, str] = {}
    for line in answer.splitlines():
        if line.startswith("- ") and " (" in line and "): " in line:
            name, _, rest = line[2:].partition(" (")
            out[name] = rest.partition("): ")[2]
    return out


def running(launcher: str) -> list[tuple[list[str], dict[str, str]]]:
    """argv and environment of every live process whose argv names ``launcher`` (Linux)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")[:-1]
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        args = [a.decode("utf-8", "replace") for a in argv]
        if launcher in args:
            pairs = (e.decode("utf-8", "replace").partition("=") for e in environ if b"=" in e)
            found.append((args, {k: v for k, _, v in pairs}))
    return found
