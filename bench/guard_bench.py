"""Secret-guard figures, before and after: the case table, hostile sizes, start-up time.

Assembles msd-secret-read-guard as installed from two versions, `--before` (a git ref,
default main) and the working tree, and runs each as the runtime does (`python -I -S
<hook>` with a Claude Code PreToolUse event, cwd = a project holding .env, .env.local,
.env.example, .secrets/, a symlink and a hard link to .env). Prints, per class of
tests/hooks/guard_cases.py, how many must-block cases each version blocks and how many
must-allow cases it lets through; then the answer and time for hostile inputs (the issue's
80 KB of `cat <<A` openers, 1 MB of each parser path's worst case, a 17 MiB command); then
p50 start-up over RUNS calls for an ordinary command. Figures only, no assertions.

Usage: python bench/guard_bench.py [--before REF] [--runs N] [--jobs N]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HOOKS = "src/msd_install/payload/data/hooks"
GUARD = "msd-secret-read-guard.py"
sys.path.insert(0, str(REPO / "tests" / "hooks"))
sys.path.insert(0, str(REPO / "src"))

from guard_cases import CASES, make_project  # noqa: E402

from msd_install.payload import assemble_hook, load  # noqa: E402

MB = 1_000_000


def python() -> str:
    return os.path.realpath(getattr(sys, "_base_executable", sys.executable))


def hooks_at(ref: str, folder: Path) -> Path:
    """The guard (and its helper, if that version has one) as installed from git `ref`."""
    source = folder / "src"
    listing = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", ref, HOOKS],
        cwd=REPO, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    for rel in listing:
        blob = subprocess.run(["git", "show", f"{ref}:{rel}"], cwd=REPO, capture_output=True)
        path = source / Path(rel).relative_to(HOOKS)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(blob.stdout)
    out = folder / "hooks"
    out.mkdir()
    for script in source.glob("msd-secret-read-guard*.py"):
        text = assemble_hook(script.read_text(encoding="utf-8"), source / "_blocks")
        (out / script.name).write_text(text, encoding="utf-8")
    return out


def hooks_now(folder: Path) -> Path:
    out = folder / "hooks"
    out.mkdir()
    for hook in load().hooks:
        if hook.script.startswith("msd-secret-read-guard"):
            (out / hook.script).write_bytes(hook.content)
    return out


def call(hooks: Path, project: Path, command: str, tmp: Path) -> tuple[int, float]:
    """(exit code, wall seconds); -9 when it ran past the runtime's 10 s timeout."""
    code, seconds, _ = timed_call(hooks, project, command, tmp)
    return code, seconds


def timed_call(hooks: Path, project: Path, command: str, tmp: Path) -> tuple[int, float, float]:
    """(exit code, wall seconds, CPU seconds of the hook process: user + system)."""
    event = {
        "session_id": "bench",
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    }
    env = {"PATH": os.environ.get("PATH", ""), "TMPDIR": str(tmp)}
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            [python(), "-I", "-S", str(hooks / GUARD)],
            input=json.dumps(event).encode(), capture_output=True, timeout=12, env=env,
        )  # fmt: skip
        code = proc.returncode
    except subprocess.TimeoutExpired:
        code = -9  # what the runtime does at its 10 s timeout: the call then runs (fail open)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = (after.ru_utime - cpu.ru_utime) + (after.ru_stime - cpu.ru_stime)
    return code, wall, used


def table(versions: dict[str, Path], projects: dict[str, Path], tmp: Path, jobs: int) -> None:
    jobs_list = []
    for kind, (block, allow) in CASES.items():
        jobs_list += [(kind, c, True) for c in block] + [(kind, c, False) for c in allow]

    def run(label: str, case: tuple[str, str, bool]) -> tuple[str, str, bool, bool]:
        kind, command, must = case
        project = projects["plain" if command.startswith("plain:") else "proj"]
        code, _ = call(versions[label], project, command.removeprefix("plain:"), tmp)
        return label, kind, must, code == 2

    with ThreadPoolExecutor(jobs) as pool:
        results = list(pool.map(lambda a: run(*a), [(v, c) for v in versions for c in jobs_list]))
    labels = list(versions)
    print(f"{'class':<38}" + "".join(f"{v + ' blocked':>18}{v + ' allowed':>18}" for v in labels))
    totals = {v: [0, 0, 0, 0] for v in labels}
    for kind in CASES:
        row = f"{kind:<38}"
        for v in labels:
            mine = [(m, b) for label, k, m, b in results if label == v and k == kind]
            blocked = sum(1 for m, b in mine if m and b)
            allowed = sum(1 for m, b in mine if not m and not b)
            n_block = sum(1 for m, _ in mine if m)
            n_allow = len(mine) - n_block
            t = totals[v]
            t[0], t[1], t[2], t[3] = t[0] + blocked, t[1] + n_block, t[2] + allowed, t[3] + n_allow
            row += f"{f'{blocked}/{n_block}':>18}{f'{allowed}/{n_allow}':>18}"
        print(row)
    row = f"{'total':<38}"
    for v in labels:
        t = totals[v]
        row += f"{f'{t[0]}/{t[1]}':>18}{f'{t[2]}/{t[3]}':>18}"
    print(row)


def hostile() -> dict[str, str]:
    def rep(piece: str, size: int = MB) -> str:
        return (piece * (size // len(piece) + 1))[:size]

    return {
        "80 KB of `cat <<A` openers": rep("cat <<A\n", 80_000),
        "2,000 `<<A` openers, closed, then cat .env": "cat "
        + "<<A " * 2_000
        + "\n"
        + "A\n" * 2_000
        + "cat .env\n",
        "1 MB of `cat <<A` openers": rep("cat <<A\n"),
        "1 MB heredoc body near the delimiter": "cat <<EOF\n" + rep("EOFx\n"),
        "1 MB of $( nesting": rep("$("),
        "1 MB of quotes": rep("'a'"),
        "1 MB of $'\\x41'": "cat " + rep("$'\\x41'"),
        "1 MB of backticks": rep("`a`"),
        "1 MB brace word": "echo " + rep("{a,b}"),
        "1 MB python -c": "python3 -c '" + rep("open(") + "'",
        "1 MB sed script": "sed '" + rep("r x\n") + "' README.md",
        "1 MB xargs names": "echo " + rep(".env ") + " | xargs cat",
        "1,600 blanks in a sed script, cat .env": "sed '" + " " * 1600 + "x' README.md; cat .env",
        "1 MB of unclosed glob brackets": "cat " + rep("[a"),
        'a="$a$a" 30 times, then cat .env': "a=x; " + 'a="$a$a"; ' * 30 + "cat .env",
        "17 MiB command": "cat README.md " + rep("a", 17 * 1024 * 1024),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="main")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--jobs", type=int, default=4)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as temp:
        base = Path(temp)
        (base / "before").mkdir()
        (base / "after").mkdir()
        (base / "tmp").mkdir()
        versions = {
            "before": hooks_at(opts.before, base / "before"),
            "after": hooks_now(base / "after"),
        }
        for folder in versions.values():
            compileall.compile_dir(str(folder), quiet=1)  # as after a first call
        projects = {
            "proj": make_project(base / "proj"),
            "plain": make_project(base / "plain", False),
        }
        print(f"before: {opts.before}   after: working tree   python: {python()}\n")
        table(versions, projects, base / "tmp", opts.jobs)
        print(f"\n{'hostile input':<40}{'before':>22}{'after':>22}")
        for label, command in hostile().items():
            row = f"{label:<40}"
            for hooks in versions.values():
                code, seconds = call(hooks, projects["proj"], command, base / "tmp")
                verdict = {0: "allowed", 2: "blocked", -9: "killed"}.get(code, f"exit {code}")
                row += f"{f'{verdict} {seconds:.2f}s':>22}"
            print(row)
        title = f"start-up, p50 of {opts.runs} (wall / CPU)"
        print(f"\n{title:<40}{'before':>22}{'after':>22}")
        for command in ("git status", "cat README.md | grep env", "cat .env.example"):
            wall: dict[str, list[float]] = {v: [] for v in versions}
            cpu: dict[str, list[float]] = {v: [] for v in versions}
            for _ in range(opts.runs):  # interleaved, so both see the same machine load
                for v, hooks in versions.items():
                    _, seconds, used = timed_call(hooks, projects["proj"], command, base / "tmp")
                    wall[v].append(seconds)
                    cpu[v].append(used)
            row = f"{command:<40}"
            for v in versions:
                p50_wall, p50_cpu = statistics.median(wall[v]), statistics.median(cpu[v])
                row += f"{f'{p50_wall * 1000:.1f} / {p50_cpu * 1000:.1f} ms':>22}"
            print(row)
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
