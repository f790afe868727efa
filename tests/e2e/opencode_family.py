"""Running ``opencode`` and ``kilo`` (an OpenCode fork) offline against throw-away homes, and
reading what their loaders took in: MCP status, agents, skills, the resolved config, and the
slash-command list a client of ``serve`` gets (what the TUI offers after ``/``)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

from e2e_clis import clean_env, require

from helpers import run_cli
from msd_install.installer.jsonparse import parse

ANSI = re.compile(r"\x1b\[[0-9;]*m")
MSD_AGENTS = 10
MSD_SKILLS = 28  # 22 commands + 6 routers
FOLDER = {"opencode": ".config/opencode", "kilo": ".config/kilo"}
LOCAL = {"opencode": ".opencode", "kilo": ".kilo"}
CONFIG_FILES = ("opencode.json", "opencode.jsonc", "kilo.json", "kilo.jsonc")


def run(rt: str, home: Path, cwd: Path, *args: str) -> tuple[int, str, str]:
    """``<rt> args`` offline in ``home``; stdout goes through a file, because both CLIs exit
    before a pipe has taken more than 64 KiB (``debug config`` is larger than that)."""
    with tempfile.TemporaryFile() as out:
        proc = subprocess.run(
            [str(require(rt)), *args],
            cwd=cwd,
            env=clean_env(home),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.PIPE,
            timeout=150,
        )
        out.seek(0)
        return proc.returncode, out.read().decode(), proc.stderr.decode()


def cli(rt: str, home: Path, cwd: Path, *args: str, ok: bool = True) -> str:
    """Stdout + stderr of ``<rt> args``; with ``ok``, it must succeed and report no error."""
    code, stdout, stderr = run(rt, home, cwd, *args)
    out = ANSI.sub("", stdout + stderr)
    if ok:
        assert code == 0, out[-3000:]
        assert not re.search(r"\bError\b|is invalid", out), out[-3000:]
    return out


def debug_json(rt: str, home: Path, cwd: Path, *args: str) -> Any:
    code, stdout, stderr = run(rt, home, cwd, "debug", *args)
    assert code == 0, stdout[-2000:] + stderr[-2000:]
    return json.loads(stdout)


def mcp_status(rt: str, home: Path, cwd: Path) -> dict[str, list[str]]:
    """Every server ``<rt> mcp list`` shows, with each status it was shown with."""
    out = cli(rt, home, cwd, "mcp", "list")
    found: dict[str, list[str]] = {}
    for name, status in re.findall(r"^●\s+\S+\s+(\S+)\s+(\w+)", out, re.M):
        found.setdefault(name, []).append(status)
    return found


def agent_modes(rt: str, home: Path, cwd: Path) -> Counter[tuple[str, str]]:
    out = cli(rt, home, cwd, "agent", "list")
    return Counter(re.findall(r"^(\S+) \((primary|subagent|all)\)$", out, re.M))


def msd_skills(rt: str, home: Path, cwd: Path) -> list[dict[str, Any]]:
    skills: list[dict[str, Any]] = debug_json(rt, home, cwd, "skill")
    return [s for s in skills if s["name"].startswith("msd-")]


def install(rt: str, scope: str, home: Path, cwd: Path, *more: str) -> str:
    proc = run_cli([f"--{rt}", f"--{scope}", "--yes", *more], home, cwd=cwd)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    return proc.stdout


def initialize(server: dict[str, Any], home: Path, cwd: Path) -> dict[str, Any]:
    """Start an ``mcp.<name>`` entry exactly as the runtime resolved it (its ``command`` array
    and ``environment``), in the project like the runtime does, and send ``initialize``."""
    assert server["type"] == "local" and server.get("enabled", True) is True
    env = {**clean_env(home), **server.get("environment", {})}
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "msd-e2e", "version": "1"},
        },
    }
    proc = subprocess.run(
        server["command"],
        input=json.dumps(request) + "\n",
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=60,
    )
    answer: dict[str, Any] = json.loads(proc.stdout.splitlines()[0])
    return answer


def only_runtime_leftovers(before: dict[str, Any], after: dict[str, Any]) -> None:
    """After an uninstall every file the user had is back byte for byte, and what is new is
    the runtime's own, never ours: its data, cache and state folders, the ``.gitignore`` it
    writes into each config folder, Kilo's migration marker, and a config file reduced to what
    the runtime put there itself (``$schema``, Kilo's ``permission.bash``)."""
    for path, content in before.items():
        assert after.get(path) == content, path
    for path in (p for p in after if p not in before):
        assert "msd" not in path, path
        if path.endswith("/") or path.startswith((".local/", ".cache/")):
            continue
        name = path.rsplit("/", 1)[-1]
        if name in (".gitignore", ".bash-permission-migrated"):
            continue
        assert name in CONFIG_FILES, path
        keys = set(parse(after[path][0].decode(), jsonc=True).value)
        assert keys <= {"$schema", "permission"}, (path, keys)


def project(tmp_path: Path) -> Path:
    """A git repository: both CLIs search project config up to the worktree root."""
    path = tmp_path / "proj"
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], check=True, timeout=60)
    return path


def served_commands(rt: str, home: Path, cwd: Path) -> list[dict[str, Any]]:
    """``GET /command`` from ``<rt> serve``: the command list the TUI and IDE clients show,
    skills included (``source: "skill"``)."""
    commands: list[dict[str, Any]] = served(rt, home, cwd, "command")[0]
    return commands


def served(rt: str, home: Path, cwd: Path, *routes: str) -> list[Any]:
    """What ``<rt> serve`` answers to ``GET /<route>`` for each route, from one server started
    in ``cwd`` (one start instead of one CLI run per listing: Kilo takes seconds to start):
    ``command``, ``agent``, ``skill``, ``mcp`` (each server's status). The server is ours:
    stopped by its process group.

    The free port is found by binding port 0 and closing it, so another process (a model stub
    of a listing running beside this one) may take it before the CLI binds it: the CLI then
    exits, and it is started again on another port."""
    for attempt in range(3):
        answers = _serve_once(rt, home, cwd, routes, last=attempt == 2)
        if answers is not None:
            return answers
    raise AssertionError("unreachable")


def _serve_once(
    rt: str, home: Path, cwd: Path, routes: tuple[str, ...], *, last: bool
) -> list[Any] | None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    argv = [str(require(rt)), "serve", "--port", str(port), "--hostname", "127.0.0.1"]
    server = subprocess.Popen(
        argv,
        cwd=cwd,
        env=clean_env(home),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )

    def get(route: str, timeout: float = 60) -> Any:
        url = f"http://127.0.0.1:{port}/{route}?directory={cwd}"
        with urllib.request.urlopen(url, timeout=timeout) as answer:
            return json.loads(answer.read())

    try:
        deadline = time.monotonic() + 150
        while True:
            try:  # a request that comes in while OpenCode starts can hang: ask again
                first = get(routes[0], timeout=15)
                break
            except OSError:
                if server.poll() is not None and not last:
                    return None  # it could not bind the port: another one
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(1)
        return [first, *(get(route) for route in routes[1:])]
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGKILL)
        server.wait(timeout=30)
