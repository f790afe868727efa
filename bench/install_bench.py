"""Install / reinstall / uninstall wall times per runtime, against the incumbent installer.

Prints medians of N runs (default 5) in fresh temp homes, the number of files each leaves,
and ratios against the incumbent (npm ``get-shit-done-cc``'s ``bin/install.js``) measured in
the same run. The incumbent is installed into ~/.cache/msd-install-e2e/gsd on first use;
without npm the baseline rows are skipped with a message.

    python bench/install_bench.py [--runs 5] [--runtime claude|codex]
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
from collections.abc import Callable
from pathlib import Path

CACHE = Path(os.environ.get("MSD_E2E_CACHE", Path.home() / ".cache/msd-install-e2e"))
GSD = CACHE / "gsd/node_modules/get-shit-done-cc/bin/install.js"


def env_for(home: Path) -> dict[str, str]:
    # a pip-installed package has its bytecode cached: don't let a CI-style
    # PYTHONDONTWRITEBYTECODE make every run recompile msd-install's modules
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("CLAUDE", "XDG_")) and k != "PYTHONDONTWRITEBYTECODE"
    }
    env.update(HOME=str(home), XDG_STATE_HOME=str(home / ".local/state"))
    return env


def timed(argv: list[str], home: Path) -> float:
    start = time.perf_counter()
    proc = subprocess.run(
        argv,
        env=env_for(home),
        cwd=home,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{argv} failed: {proc.stderr.strip()}")
    return elapsed


def count_files(home: Path) -> int:
    return sum(1 for p in home.rglob("*") if p.is_file())


def ensure_gsd() -> bool:
    if GSD.exists():
        return True
    if not shutil.which("npm"):
        return False
    (CACHE / "gsd").mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [
            "npm",
            "install",
            "--prefix",
            str(CACHE / "gsd"),
            "--no-audit",
            "--no-fund",
            "get-shit-done-cc",
        ],
        capture_output=True,
        text=True,
    )
    return proc.returncode == 0 and GSD.exists()


def big_claude_json(megabytes: float) -> str:
    """A ~/.claude.json the size heavy Claude Code users have (per-project history)."""
    projects = {}
    i = 0
    while len(json.dumps(projects)) < megabytes * 1e6:
        projects[f"/home/u/work/project-{i}"] = {
            "allowedTools": [],
            "mcpServers": {},
            "hasTrustDialogAccepted": True,
            "history": [{"display": f"prompt {j} " * 20, "pastedContents": {}} for j in range(30)],
        }
        i += 1
    return json.dumps({"numStartups": 300, "projects": projects}, indent=2)


def big_codex_config(projects: int) -> str:
    """A ~/.codex/config.toml of someone who trusted many projects over time."""
    lines = ['model = "gpt-6.2-sol"', ""]
    for i in range(projects):
        lines += [f'[projects."/home/u/work/project-{i}"]', 'trust_level = "trusted"', ""]
    return "\n".join(lines)


# runtime -> (label, seed): the big user file each runtime's install must edit
HEAVY: dict[str, tuple[str, Callable[[], dict[str, str]]]] = {
    "claude": ("4 MB .claude.json", lambda: {".claude.json": big_claude_json(4)}),
    "codex": ("2000-project config.toml", lambda: {".codex/config.toml": big_codex_config(2000)}),
}


def measure(
    install: list[str], uninstall: list[str], runs: int, seed: dict[str, str] | None = None
) -> dict[str, float]:
    times: dict[str, list[float]] = {"install": [], "reinstall": [], "uninstall": []}
    files: list[int] = []
    left: list[int] = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            home = Path(tmp)
            for rel, text in (seed or {}).items():
                (home / rel).parent.mkdir(parents=True, exist_ok=True)
                (home / rel).write_text(text)
            times["install"].append(timed(install, home))
            files.append(count_files(home))
            times["reinstall"].append(timed(install, home))
            times["uninstall"].append(timed(uninstall, home))
            left.append(count_files(home))
    out = {k: statistics.median(v) * 1000 for k, v in times.items()}
    out["files"] = statistics.median(files)
    out["left"] = statistics.median(left)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--runtime", choices=sorted(HEAVY), default="claude")
    args = parser.parse_args()
    flag = f"--{args.runtime}"
    msd = [sys.executable, "-m", "msd_install", flag, "--global", "--yes"]
    ours = measure(msd, [*msd, "--uninstall"], args.runs)
    rows = [("msd-install", ours)]
    label, seed = HEAVY[args.runtime]
    heavy = measure(msd, [*msd, "--uninstall"], args.runs, seed())
    if ensure_gsd():
        gsd = ["node", str(GSD), flag, "--global"]
        rows.append(
            ("get-shit-done-cc (incumbent)", measure(gsd, [*gsd, "--uninstall"], args.runs))
        )
    else:
        print("baseline skipped: npm could not install get-shit-done-cc")
    print(f"{args.runtime}: median of {args.runs} runs, fresh temp HOME each")
    print(
        f"{'installer':<30}{'install ms':>12}{'reinstall ms':>14}{'uninstall ms':>14}"
        f"{'files':>8}{'left after uninstall':>22}"
    )
    for name, r in rows:
        print(
            f"{name:<30}{r['install']:>12.0f}{r['reinstall']:>14.0f}{r['uninstall']:>14.0f}"
            f"{r['files']:>8.0f}{r['left']:>22.0f}"
        )
    print(
        f"{'msd-install, ' + label:<30}{heavy['install']:>12.0f}"
        f"{heavy['reinstall']:>14.0f}{heavy['uninstall']:>14.0f}"
    )
    if len(rows) == 2:
        base = rows[1][1]
        print(
            "ratio msd/incumbent: "
            + ", ".join(
                f"{k} {ours[k] / base[k]:.2f}x" for k in ("install", "reinstall", "uninstall")
            )
        )


if __name__ == "__main__":
    main()
