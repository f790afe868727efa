"""Running ``gemini`` and ``qwen`` against throw-away homes, and reading what they report.

Both write into the home they are given (``projects.json``, ``tmp/``, Qwen's ``$version`` in
settings files), and their error reports into ``$TMPDIR``: every run gets a ``TMPDIR`` inside
its home and has usage statistics off (Qwen by env; Gemini by the scaffold settings the tests
write), so nothing lands outside the test's own folder and nothing tries to leave the machine.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

from e2e_clis import require, run_tool

from msd_install.installer.jsonparse import parse

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "e2e", "version": "1"},
    },
}
# what makes the Gemini CLI take the stub's dummy key, and keeps it from phoning home
GEMINI_SCAFFOLD = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
}
STUB_MODEL = "gemini-2.5-flash"  # an explicit model: no model-router calls to the stub
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _tmp(home: Path) -> str:
    tmp = home / ".tmp-e2e"
    tmp.mkdir(exist_ok=True)
    return str(tmp)


def gemini(home: Path, cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return run_tool(
        [str(require("gemini")), *args], home, cwd, timeout=120, TMPDIR=_tmp(home), **env
    )


def qwen(home: Path, cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return run_tool(
        [str(require("qwen")), *args],
        home,
        cwd,
        timeout=120,
        TMPDIR=_tmp(home),
        QWEN_USAGE_STATISTICS_ENABLED="false",
        **env,
    )


def output(proc: subprocess.CompletedProcess[str]) -> str:
    return ANSI.sub("", proc.stdout + proc.stderr)


def jsonc(path: Path) -> Any:
    """A settings file as the CLIs read it (comments allowed)."""
    return parse(path.read_text(encoding="utf-8"), jsonc=True).value


def server_lines(text: str, name: str = "msd") -> list[str]:
    """The ``mcp list`` lines of server ``name`` (``✓ msd: <command> (stdio) - Connected``)."""
    return [ln.strip() for ln in text.splitlines() if re.match(rf"^\W*{name}: ", ln.strip())]


def initialize(server: dict[str, Any], cwd: Path, home: Path) -> dict[str, Any]:
    """Start the MCP server exactly as a settings file registers it and send ``initialize``."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), **server.get("env", {})}
    proc = subprocess.run(
        [server["command"], *server["args"]],
        input=json.dumps(INITIALIZE) + "\n",
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=30,
    )
    first = proc.stdout.splitlines()[0] if proc.stdout else ""
    assert first, proc.stderr
    answer: dict[str, Any] = json.loads(first)
    return answer


def xml_names(text: str, block: str) -> list[str]:
    """``<name>`` entries inside ``<block>…</block>`` of a prompt (subagents, skills)."""
    found: list[str] = []
    for body in re.findall(rf"<{block}>(.*?)</{block}>", text, re.S):
        found += [n.strip() for n in re.findall(r"<name>(.*?)</name>", body, re.S)]
    return found


def gemini_subagents(system: str) -> list[str]:
    """The subagents a Gemini system instruction offers: ``<available_subagents>`` in the
    Gemini 3 prompt, ``- name -> description`` lines after "The following sub-agents are
    available:" in the one for older models (the stub runs use one of those)."""
    names = xml_names(system, "available_subagents")
    _head, found, rest = system.partition("The following sub-agents are available:")
    if found:
        names += re.findall(r"^- ([\w.-]+) -> ", rest.split("\n#", 1)[0], re.M)
    return names


def msd(names: list[str]) -> list[str]:
    return sorted(n for n in names if n.startswith("msd-"))
