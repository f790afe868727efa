"""What the real ``codex`` CLI took in, through its own offline views (no login, no network).

* ``codex mcp list --json``: the MCP servers its config loader accepted.
* ``codex debug prompt-input hi``: the model-visible input: the skills list (name, description)
  and, in the ``spawn_agent`` tool, the agent roles.
* ``codex app-server`` (JSON-RPC over stdio, one object a line): ``skills/list`` with per-file
  ``errors``, ``hooks/list`` with trust status, ``warnings`` and ``errors``, and
  ``mcpServerStatus/list`` (for a thread started in the project: ``thread/start`` works offline),
  for which Codex itself starts every MCP server and lists its tools.
"""

from __future__ import annotations

import json
import queue
import re
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from e2e_clis import clean_env, require, run_tool


def codex(home: Path, cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return run_tool([str(require("codex")), *args], home, cwd, **env)


def mcp_servers(home: Path, cwd: Path, **env: str) -> dict[str, dict[str, Any]]:
    proc = codex(home, cwd, "mcp", "list", "--json", **env)
    assert proc.returncode == 0, proc.stderr
    return {s["name"]: s for s in json.loads(proc.stdout)}


@dataclass(frozen=True)
class PromptView:
    skills: list[str]  # names, as often as listed
    roles: list[str]  # spawn_agent agent_type roles, as often as listed


def prompt_view(home: Path, cwd: Path, **env: str) -> PromptView:
    proc = codex(home, cwd, "debug", "prompt-input", "hi", **env)
    assert proc.returncode == 0, proc.stderr
    items = json.loads(proc.stdout)
    skills: list[str] = []
    roles: list[str] = []
    for item in items:
        for part in item.get("content") or []:
            text = part.get("text", "")
            if text.startswith("<skills_instructions>"):
                skills += re.findall(r"^- ([\w:.-]+): ", text, re.M)
        for tool in _tools(item.get("tools") or []):
            if tool.get("name") == "spawn_agent":  # agent_type exists only with custom roles
                role = tool["parameters"]["properties"].get("agent_type", {})
                roles += re.findall(r"^([\w.-]+): \{$", role.get("description", ""), re.M)
    return PromptView(skills, roles)


def _tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for tool in tools:
        out.append(tool)
        out += _tools(tool.get("tools") or [])
    return out


class AppServer:
    """``codex app-server`` as a JSON-RPC client would drive it (``with`` closes it)."""

    def __init__(self, home: Path, cwd: Path, **env: str) -> None:
        self.proc = subprocess.Popen(
            [str(require("codex")), "app-server"],
            cwd=cwd,
            env=clean_env(home, **env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self.next_id = 0
        init = self.call("initialize", {"clientInfo": {"name": "msd-e2e", "version": "0"}})
        assert "userAgent" in init, init
        self._send({"jsonrpc": "2.0", "method": "initialized"})

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def call(self, method: str, params: dict[str, Any], timeout: float = 60) -> Any:
        self.next_id += 1
        self._send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            message = json.loads(self.lines.get(timeout=timeout))
            if message.get("id") == self.next_id:
                assert "error" not in message, message
                return message["result"]

    def __enter__(self) -> AppServer:
        return self

    def __exit__(self, *_: object) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=20)
