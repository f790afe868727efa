"""How often a second process gets a change of msd-install's out of the root.

Scene, per try: a Claude Code global install whose manifest was edited (foreign), and an
outside directory holding files with the names of msd's skills but contents of their own. A
second process waits for the run's lock file, sleeps a random time, then swaps the root's
``skills/`` for a symlink to the outside directory, once, the way an attacker would. The run
is either a plain uninstall or a ``--force`` install that rewrites every skill. An escape is
any outside file changed, created or removed (by the run or by its rollback).

    python bench/manifest_race_bench.py [--tries 40] [--mode uninstall|install] [--delay 0.6]

Prints tries, how many ended refused / completed, and the escapes.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

from msd_install.errors import MsdError
from msd_install.installer import engine
from msd_install.installer.context import GLOBAL, Context
from msd_install.payload import load
from msd_install.runtimes import ADAPTERS


def tree(root: Path) -> dict[str, object]:
    out: dict[str, object] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            rel = path.relative_to(root).as_posix()
            out[rel] = (
                ("link", os.readlink(path))
                if path.is_symlink()
                else (path.read_bytes() if path.is_file() else "dir")
            )
    return out


def context(home: Path, force: bool) -> Context:
    return Context(
        home=home,
        cwd=home,
        env={},
        scope=GLOBAL,
        interpreter=Path(sys.executable),
        state_dir=home / ".state",
        force=force,
    )


def attacker(root: Path, outside: Path, delay: float) -> None:
    lock = root / ".msd-install.lock"
    deadline = time.monotonic() + 30
    while not lock.exists() and time.monotonic() < deadline:
        time.sleep(0.0002)
    time.sleep(delay)
    try:
        (root / "skills").rename(root / "skills.moved")
        (root / "skills").symlink_to(outside / "skills")
    except OSError:
        pass


def one_try(base: Path, mode: str, delay: float) -> tuple[str, bool]:
    home, outside = base / "home", base / "outside"
    home.mkdir(parents=True)
    payload = load()
    ctx = context(home, force=False)
    engine.install(ADAPTERS["claude"].plan(ctx, payload), ctx)
    root = home / ".claude"
    manifest = root / "msd-file-manifest.json"
    doc = json.loads(manifest.read_text())
    doc["installer_version"] = "0.0.1"
    manifest.write_text(json.dumps(doc))
    shutil.copytree(root / "skills", outside / "skills")
    for path in (outside / "skills").rglob("*"):
        if path.is_file():
            path.write_text("the victim's own file\n")
    if mode == "install":
        for path in (root / "skills").rglob("SKILL.md"):
            path.write_text("changed by the user\n")
    before = tree(outside)
    proc = multiprocessing.Process(target=attacker, args=(root, outside, delay))
    proc.start()
    outcome = "completed"
    try:
        if mode == "uninstall":
            adapter = ADAPTERS["claude"]
            bounds = adapter.plan(ctx, payload).bounds
            engine.uninstall("claude", ctx, root, bounds)
        else:
            forced = context(home, force=True)
            engine.install(ADAPTERS["claude"].plan(forced, payload), forced)
    except MsdError:
        outcome = "refused"
    proc.join()
    return outcome, tree(outside) != before


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tries", type=int, default=40)
    parser.add_argument("--mode", choices=["uninstall", "install"], default="install")
    parser.add_argument("--delay", type=float, default=0.6, help="max random delay (s)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    outcomes: dict[str, int] = {}
    escapes = 0
    started = time.monotonic()
    for _ in range(args.tries):
        with tempfile.TemporaryDirectory() as tmp:
            outcome, escaped = one_try(Path(tmp), args.mode, rng.uniform(0, args.delay))
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        escapes += escaped
    took = time.monotonic() - started
    shown = ", ".join(f"{n} {k}" for k, n in sorted(outcomes.items()))
    print(f"{args.mode}: {args.tries} tries ({shown}), {escapes} with an escape, {took:.0f} s")


if __name__ == "__main__":
    main()
