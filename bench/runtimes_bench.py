"""Install / reinstall / uninstall wall times for every runtime, one at a time and all at once.

Prints, per runtime and for ``--all``, the median of N runs (default 5) of the whole
``msd-install`` process in a fresh temp HOME each, the files the install leaves and how many
are left after the uninstall (always 0: a row with anything left is a bug, and says so).

    python bench/runtimes_bench.py [--runs 5] [--runtime codex ...] [--scope global|local]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from install_bench import measure

from msd_install.runtimes import ADAPTERS


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--runtime", action="append", choices=sorted(ADAPTERS))
    parser.add_argument("--scope", choices=("global", "local"), default="global")
    parser.add_argument("--no-all", action="store_true", help="skip the --all row")
    args = parser.parse_args()
    names = args.runtime or [n for n, a in ADAPTERS.items() if args.scope in a.scopes]
    flags = [[f"--{n}"] for n in names] + ([] if args.no_all else [["--all"]])
    print(f"median of {args.runs} runs, fresh temp HOME each, --{args.scope}")
    print(f"{'runtime':<14}{'install ms':>12}{'reinstall ms':>14}{'uninstall ms':>14}"
          f"{'files':>8}{'left':>6}")  # fmt: skip
    for flag in flags:
        msd = [sys.executable, "-m", "msd_install", *flag, f"--{args.scope}", "--yes"]
        row = measure(msd, [*msd, "--uninstall"], args.runs)
        print(
            f"{flag[0][2:]:<14}{row['install']:>12.0f}{row['reinstall']:>14.0f}"
            f"{row['uninstall']:>14.0f}{row['files']:>8.0f}{row['left']:>6.0f}"
            + ("   <- files left behind" if row["left"] else ""),
            flush=True,
        )


if __name__ == "__main__":
    main()
