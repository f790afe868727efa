"""Hook start-up benchmark: spawn a hook with its stdin JSON and wait for it to exit.

Prints p50/p95 over RUNS runs for msd-statusline, msd-context-monitor and
msd-secret-read-guard, run as `<realpath of the base python> -I -S <hook>`, next to baselines
measured in the same run: bare `python -I -S -c pass`, `node -e 0`, and the incumbent's node
hooks from the npm package get-shit-done-cc (installed into ~/.cache/msd-install-e2e/gsd;
skipped with a message when npm or the network is unavailable). No assertions: figures only.
Targets from the design brief: p50 <= 20 ms and <= 0.75x the matching node hook.

Usage: python bench/hooks_bench.py [--runs N]
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


def assembled_hooks() -> Path:
    """The hooks as installed (shared blocks inlined by msd_install.payload)."""
    from msd_install.payload import load

    folder = Path(tempfile.mkdtemp(prefix="msd-hooks-bench-"))
    for hook in load().hooks:
        (folder / hook.script).write_bytes(hook.content)
    return folder


HOOKS = assembled_hooks()
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "msd-install-e2e" / "gsd"
SESSION = "bench-3f2a9c1e-7b4d-4e8a"


def base_python() -> str:
    """The real interpreter behind this (possibly venv / shim) python."""
    base = getattr(sys, "_base_executable", sys.executable)
    return os.path.realpath(base)


def time_runs(argv: list[str], stdin: bytes, runs: int, env: dict[str, str]) -> list[float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(
            argv, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
        )
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def gsd_hooks() -> Path | None:
    package = CACHE / "node_modules" / "get-shit-done-cc"

    def found() -> Path | None:  # hooks/ in older releases, hooks/dist/ in newer ones
        for hooks in (package / "hooks" / "dist", package / "hooks"):
            if (hooks / "gsd-statusline.js").exists():
                return hooks
        return None

    if found():
        return found()
    npm = shutil.which("npm")
    if npm is None:
        print("skip gsd baseline: npm not found")
        return None
    CACHE.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [
            npm,
            "install",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            "--prefix",
            str(CACHE),
            "get-shit-done-cc",
        ],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0 or not found():
        print(f"skip gsd baseline: npm install failed or no hooks ({proc.stderr.strip()[:200]})")
        return None
    return found()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    runs = parser.parse_args().runs
    py = base_python()
    node = shutil.which("node")
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "proj"
        project.mkdir()
        env = {"PATH": os.environ.get("PATH", ""), "TMPDIR": tmp, "NO_COLOR": "1"}
        status = {
            "session_id": SESSION,
            "cwd": str(project),
            "model": {"display_name": "Opus"},
            "workspace": {"current_dir": str(project)},
            "context_window": {"used_percentage": 70, "remaining_percentage": 30},
        }
        tool = {
            "session_id": SESSION,
            "cwd": str(project),
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "cat README.md | grep install"},
        }
        guard = dict(tool, hook_event_name="PreToolUse")
        bridge = {"session_id": SESSION, "remaining_percentage": 30, "used_pct": 70, "timestamp": 0}
        # node's os.tmpdir() honours TMPDIR too, so both implementations see the same bridge dir
        rows: list[tuple[str, list[float], str | None]] = []
        rows.append(
            (
                "python -I -S -c pass",
                time_runs([py, "-I", "-S", "-c", "pass"], b"", runs, env),
                None,
            )
        )
        if node:
            rows.append(("node -e 0", time_runs([node, "-e", "0"], b"", runs, env), None))
        gsd = gsd_hooks() if node else None
        cases = [
            ("msd-statusline", "msd-statusline.py", status, "gsd-statusline"),
            ("msd-context-monitor", "msd-context-monitor.py", tool, "gsd-context-monitor"),
            ("msd-secret-read-guard", "msd-secret-read-guard.py", guard, None),
        ]
        for label, script, payload, node_label in cases:
            stdin = json.dumps(payload).encode()
            bridge["timestamp"] = int(time.time()) + 3600  # stays fresh for the whole run
            for name in (f"msd-ctx-{SESSION}.json", f"claude-ctx-{SESSION}.json"):
                (Path(tmp) / name).write_text(json.dumps(bridge))
            rows.append(
                (
                    label,
                    time_runs([py, "-I", "-S", str(HOOKS / script)], stdin, runs, env),
                    node_label,
                )
            )
            if gsd and node_label:
                argv = [node, str(gsd / f"{node_label}.js")]
                rows.append((node_label + " (node)", time_runs(argv, stdin, runs, env), None))
    p50 = {label: statistics.median(s) for label, s, _ in rows}
    print(f"python: {py}\nnode:   {node or 'not found'}\nruns:   {runs}\n")
    print(f"{'command':<28}{'p50 ms':>9}{'p95 ms':>9}{'vs node hook':>14}")
    for label, samples, node_label in rows:
        p95 = statistics.quantiles(samples, n=20)[18]
        ratio = ""
        node_key = f"{node_label} (node)" if node_label else None
        if node_key in p50:
            ratio = f"{p50[label] / p50[node_key]:.2f}x"
        print(f"{label:<28}{p50[label]:>9.1f}{p95:>9.1f}{ratio:>14}")
    print("\ntargets: hook p50 <= 20 ms and <= 0.75x the matching node hook")


if __name__ == "__main__":
    main()
