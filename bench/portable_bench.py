"""What a portable project install costs per hook call: ``python3`` from the PATH vs the
absolute interpreter, and the walk-up launcher of runtimes without a project variable.

Installs Claude Code and Codex ``--local`` into a throw-away git project, reads the
registered hook commands back and times them started the way a runtime starts them
(``sh -c <line>``, stdin JSON, cwd = project), p50/p95 over RUNS runs, for:

- absolute: the registered line with ``python3`` replaced by the absolute interpreter
  (what a global install registers, and what a local one registered before issue 10.8)
- PATH: the line as registered; the PATH is the caller's with SHIMS extra directories in
  front (a realistic developer PATH: version managers, tool bins), none holding python3
- PATH + shim: ``python3`` resolves to a pyenv-style shell shim first (the PATH of a user of
  pyenv/asdf; only measured when ``pyenv`` is on the PATH)
- walk-up (Codex): the registered ``-c`` launcher, from the project root and from a folder
  four levels below it

and the MCP server's ``initialize`` round trip both ways. No assertions: figures only.

Usage: python bench/portable_bench.py [--runs N] [--shims N]
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

Row = tuple[str, str, Path, dict[str, str]]
READ = {
    "session_id": "bench-1",
    "hook_event_name": "PostToolUse",
    "tool_name": "Read",
    "tool_input": {"file_path": "README.md"},
    "tool_response": {},
}


def base_python() -> str:
    return os.path.realpath(getattr(sys, "_base_executable", sys.executable))


def install(project: Path, home: Path, runtime: str) -> None:
    env = {**os.environ, "HOME": str(home), "XDG_STATE_HOME": str(home / "state")}
    done = subprocess.run(
        [sys.executable, "-m", "msd_install", f"--{runtime}", "--local", "--yes"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"install --{runtime} failed: {done.stderr.strip()}")


def command_of(settings: Path, script: str) -> str:
    for groups in json.loads(settings.read_text())["hooks"].values():
        for group in groups:
            for hook in group["hooks"]:
                if script in hook["command"]:
                    line: str = hook["command"]
                    return line
    raise SystemExit(f"{script} not registered in {settings}")


def time_lines(rows: list[Row], runs: int) -> list[tuple[float, float]]:
    """p50/p95 of each row, the rows interleaved run by run so that a load burst on the
    machine hits all of them alike."""
    samples: list[list[float]] = [[] for _ in rows]
    for _ in range(runs):
        for i, (_label, line, cwd, env) in enumerate(rows):
            stdin = json.dumps({**READ, "cwd": str(cwd)}).encode()
            start = time.perf_counter()
            subprocess.run(["sh", "-c", line], input=stdin, cwd=cwd, env=env, capture_output=True)
            samples[i].append((time.perf_counter() - start) * 1000)
    out = []
    for row in samples:
        row.sort()
        out.append((statistics.median(row), row[max(0, int(len(row) * 0.95) - 1)]))
    return out


def time_server(argv: list[str], cwd: Path, env: dict[str, str], runs: int) -> tuple[float, float]:
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {}},
    }
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, input=(json.dumps(request) + "\n").encode(), cwd=cwd, env=env,
                       capture_output=True)  # fmt: skip
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.95) - 1]


def shim_dir(base: Path) -> Path | None:
    """A directory whose python3 is a pyenv shim, when pyenv is installed."""
    pyenv = shutil.which("pyenv")
    if pyenv is None:
        return None
    root = subprocess.run([pyenv, "root"], capture_output=True, text=True, check=False)
    shims = Path(root.stdout.strip()) / "shims"
    return shims if (shims / "python3").exists() else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--shims", type=int, default=8, help="extra PATH entries before python3")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="msd-portable-bench-"))
    home, project = work / "home", work / "project"
    home.mkdir()
    (project / "a/b/c/d").mkdir(parents=True)
    (project / "README.md").write_text("# bench\n")
    (project / ".git").mkdir()
    for runtime in ("claude", "codex"):
        install(project, home, runtime)
    python = base_python()
    python_dir = work / "python-bin"
    python_dir.mkdir()
    (python_dir / "python3").symlink_to(python)
    extra = []
    for i in range(args.shims):
        extra.append(str(work / f"tools{i}"))
        (work / f"tools{i}").mkdir()
    path = os.pathsep.join([*extra, str(python_dir), "/usr/bin", "/bin"])
    env = {"PATH": path, "HOME": str(home), "CLAUDE_PROJECT_DIR": str(project),
           "MSD_UPDATE_URL": "http://127.0.0.1:9/none"}  # fmt: skip
    claude = command_of(project / ".claude/settings.json", "msd-context-monitor")
    codex = command_of(project / ".codex/hooks.json", "msd-context-monitor")
    absolute = claude.replace("python3 ", f'"{python}" ', 1)
    rows: list[Row] = [
        ("hook, absolute interpreter", absolute, project, env),
        ("hook, python3 from the PATH", claude, project, env),
        ("hook, walk-up launcher (root)", codex, project, env),
        ("hook, walk-up launcher (4 below)", codex, project / "a/b/c/d", env),
    ]
    shims = shim_dir(work)
    if shims is not None:
        shim_env = {**env, "PATH": os.pathsep.join([*extra, str(shims), "/usr/bin", "/bin"])}
        rows.append(("hook, python3 = pyenv shim", claude, project, shim_env))
    print(f"{args.runs} runs each, {args.shims} PATH entries before python3 ({python})")
    print(f"{'':36} {'p50 ms':>8} {'p95 ms':>8}")
    for (label, *_), (p50, p95) in zip(rows, time_lines(rows, args.runs), strict=True):
        print(f"{label:36} {p50:8.1f} {p95:8.1f}")
    server = json.loads((project / ".mcp.json").read_text())["mcpServers"]["msd"]
    for label, argv in (
        ("MCP initialize, absolute", [python, *server["args"]]),
        ("MCP initialize, python3 from PATH", [server["command"], *server["args"]]),
    ):
        p50, p95 = time_server(argv, project, env, max(5, args.runs // 4))
        print(f"{label:36} {p50:8.1f} {p95:8.1f}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
