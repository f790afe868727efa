"""Benchmark: the bundled stdlib MCP server against the official SDK's minimal server.

Prints a table; asserts nothing. Measured in one run, same harness for both servers:
  * cold start: process spawn -> first response to ``initialize`` (median of N_START runs);
  * ``tools/call`` of a read tool on a 10 KB file: p50/p95 over N_CALLS calls;
  * peak RSS (VmHWM from /proc/<pid>/status) after the calls.
Ours runs as installed: ``<real python> -I -S <root>/msd-core/bin/msd-mcp`` in a copied tree.
Targets (issue 3): cold start <= 30 ms and <= 0.05x the SDK; tools/call p50 <= 2 ms; RSS <= 30 MB.

Usage: python bench/mcp_bench.py [--starts N] [--calls N]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "msd_install"

SDK_SERVER = '''
import os
from mcp.server.mcpserver import MCPServer

ROOT = os.environ["MSD_WORKSPACE"]
app = MCPServer("sdk-baseline")


@app.tool()
def read_text_file(path: str) -> str:
    """Read a text file in the workspace."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


app.run()
'''

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}


class Proc:
    def __init__(self, cmd: list[str], env: dict[str, str]) -> None:
        self.p = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
        )

    def ask(self, msg: dict) -> dict:
        assert self.p.stdin and self.p.stdout
        self.p.stdin.write(json.dumps(msg).encode() + b"\n")
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("server closed stdout")
            reply = json.loads(line)
            if reply.get("id") == msg.get("id"):
                return reply

    def tell(self, msg: dict) -> None:
        assert self.p.stdin
        self.p.stdin.write(json.dumps(msg).encode() + b"\n")
        self.p.stdin.flush()

    def hwm_kb(self) -> int:
        for line in Path(f"/proc/{self.p.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
        return -1

    def close(self) -> None:
        assert self.p.stdin
        self.p.stdin.close()
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def bare_python_ms() -> float:
    """The floor: spawn and exit of the same interpreter with -I -S."""
    t0 = time.perf_counter()
    subprocess.run([os.path.realpath(sys.executable), "-I", "-S", "-c", "pass"], check=True)
    return (time.perf_counter() - t0) * 1000


def cold_start_ms(cmd: list[str], env: dict[str, str], runs: int) -> dict[str, float]:
    """Spawn -> initialize reply and -> first tools/list reply (medians, and the best run).

    Each run is paired with a bare-interpreter run, so that load from other processes on the
    machine shows in the floor as much as in the figure."""
    first, listed, floor = [], [], []
    for _ in range(runs):
        floor.append(bare_python_ms())
        t0 = time.perf_counter()
        proc = Proc(cmd, env)
        proc.ask(INIT)
        first.append((time.perf_counter() - t0) * 1000)
        proc.tell({"jsonrpc": "2.0", "method": "notifications/initialized"})
        proc.ask(LIST)
        listed.append((time.perf_counter() - t0) * 1000)
        proc.close()
    med = statistics.median
    return {"start": med(first), "best": min(first), "list": med(listed), "floor": med(floor)}


def calls(cmd: list[str], env: dict[str, str], n: int) -> tuple[float, float, float]:
    proc = Proc(cmd, env)
    proc.ask(INIT)
    proc.tell({"jsonrpc": "2.0", "method": "notifications/initialized"})
    times = []
    for i in range(n):
        msg = {
            "jsonrpc": "2.0",
            "id": 10 + i,
            "method": "tools/call",
            "params": {"name": "read_text_file", "arguments": {"path": "ten_kb.txt"}},
        }
        t0 = time.perf_counter()
        reply = proc.ask(msg)
        times.append((time.perf_counter() - t0) * 1000)
        assert not reply["result"].get("isError"), reply
    rss_mb = proc.hwm_kb() / 1024
    proc.close()
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95) - 1], rss_mb


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--starts", type=int, default=20)
    ap.add_argument("--calls", type=int, default=200)
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        ws = base / "ws"
        ws.mkdir()
        (ws / "ten_kb.txt").write_text(("0123456789abcdef" * 4 + "\n") * 157)  # ~10 KB
        core = base / "runtime" / "msd-core"
        (core / "bin").mkdir(parents=True)
        shutil.copy2(SRC / "payload" / "data" / "core" / "bin" / "msd-mcp", core / "bin")
        shutil.copytree(
            SRC / "msdcore", core / "lib" / "msdcore", ignore=shutil.ignore_patterns("__pycache__")
        )
        # Warm the bytecode cache once, as an installed server would have it after its first run.
        sdk = base / "sdk_server.py"
        sdk.write_text(SDK_SERVER)
        env = {**os.environ, "MSD_WORKSPACE": str(ws), "MSD_AUDIT_LOG": str(base / "audit.jsonl")}
        real_python = os.path.realpath(sys.executable)
        servers = {
            "msd-mcp stdlib -I -S": [real_python, "-I", "-S", str(core / "bin" / "msd-mcp")],
            "SDK MCPServer, 1 tool": [sys.executable, str(sdk)],
        }
        rows = {}
        for name, cmd in servers.items():
            cold_start_ms(cmd, env, 1)  # warm-up: bytecode compilation, page cache
            st = cold_start_ms(cmd, env, opts.starts)
            p50, p95, rss = calls(cmd, env, opts.calls)
            rows[name] = (st["start"], st["best"], st["floor"], st["list"], p50, p95, rss)
    ours, sdk_row = rows["msd-mcp stdlib -I -S"], rows["SDK MCPServer, 1 tool"]
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; ",
        end="",
    )
    print(f"{opts.starts} cold starts, {opts.calls} calls")
    head = (
        "start ms p50",
        "start best",
        "bare python",
        "to tools/list",
        "call p50 ms",
        "call p95 ms",
        "RSS MB",
    )
    print(f"{'server':<24}" + "".join(f"{h:>14}" for h in head))
    for name, row in rows.items():
        print(f"{name:<24}" + "".join(f"{v:>14.2f}" for v in row))
    ratios = [a / b for a, b in zip(ours, sdk_row, strict=True)]
    print(f"{'ratio ours/SDK':<24}" + "".join(f"{r:>14.3f}" for r in ratios))
    print("(start = spawn -> initialize reply; bare python = `python -I -S -c pass`, paired runs)")
    print("targets: cold start <= 30 ms and <= 0.05x SDK; call p50 <= 2 ms; RSS <= 30 MB")


if __name__ == "__main__":
    main()
