"""Race harness: every tool that touches a path, called in a loop while a second process keeps
swapping the workspace's directories and files for symlinks to look-alikes outside it.

The outside tree mirrors the workspace (same names where tools look for them: ``01-...``
phase directories, ``NNN-...`` todos, ``STATE.md``...), but every file holds ``CANARY`` and
several names carry it too. So an escape shows either as ``CANARY`` in what a tool returned
(or in its error message), or as a change to the outside tree (snapshot with mode, mtime and
inode), or as a symlink left in the workspace that points outside.

The attacker runs in its own process (true parallelism, and it does not steal the GIL from the
tool loop). Its swap is: rename the real entry aside, put a symlink in its place, hold it a
random moment, then put the real entry back; "plants" put a symlink where nothing was (lock
files, new files). It pauses on request with everything restored, so a scenario can reset
state that its tool accumulates (new phases, todos) without racing itself.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from race_layout import (  # noqa: F401 - the scenarios import them from here
    CANARY,
    FILE_PLANTS,
    FILE_SWAPS,
    PLANNING_PLANTS,
    PLANNING_SWAPS,
    Layout,
    project_files,
    write_tree,
)

from helpers import snapshot
from msd_install.msdcore.mcp.registry import build
from msd_install.msdcore.toolspec import ToolContext, ToolError

try:  # the harness also measures the code before the one confinement model, without guards
    from msd_install.msdcore.callguard import CallGuard
except ImportError:  # pragma: no cover - only when pointed at an older tree
    CallGuard = None  # type: ignore[assignment,misc]

TRIES = int(os.environ.get("MSD_RACE_TRIES", "10000"))
TOOLS = {t.name: t for t in build()}

ATTACKER = r"""
import json, os, random, select, sys, time
swaps, plants = json.loads(sys.argv[1]), json.loads(sys.argv[2])
rng = random.Random(int(sys.argv[3]))
aside = lambda p: p + ".msd-race-aside"
done = 0

def put_back(inside):
    # The tool under test may create the entry meanwhile (mkdir -p, a new file): such an
    # intruder is kept, moved out of the way, and the real entry goes back in its place.
    for _ in range(1000):
        if not os.path.lexists(aside(inside)):
            return
        try:
            if os.path.islink(inside):
                os.unlink(inside)
            elif os.path.lexists(inside):
                os.rename(inside, inside + ".msd-race-intruder-%d" % rng.getrandbits(32))
            os.rename(aside(inside), inside)
        except OSError:
            continue
    raise SystemExit("could not put %s back" % inside)

def restore():
    for inside, _ in swaps:
        put_back(inside)
    for inside, target in plants:
        unplant(inside, target)

def unplant(inside, target):
    # the tool may replace the link between the two calls (readlink: EINVAL): then it is gone
    try:
        if os.readlink(inside) == target:
            os.unlink(inside)
    except OSError:
        pass

def command():
    if not select.select([sys.stdin], [], [], 0)[0]:
        return True
    line = sys.stdin.readline().strip()
    restore()
    if line == "pause":
        sys.stdout.write("paused %d\n" % done); sys.stdout.flush()
        return sys.stdin.readline().strip() == "go"
    sys.stdout.write("stopped %d\n" % done); sys.stdout.flush()
    return False

sys.stdout.write("ready\n"); sys.stdout.flush()
while command():
    if plants and rng.random() < 0.25:
        inside, target = rng.choice(plants)
        try:
            os.symlink(target, inside)
        except OSError:
            continue
        for _ in range(rng.randint(0, 300)):
            pass
        unplant(inside, target)
        done += 1
        continue
    inside, target = rng.choice(swaps)
    try:
        os.rename(inside, aside(inside))
    except OSError:
        continue
    try:
        os.symlink(target, inside)
        done += 1
        for _ in range(rng.randint(0, 300)):
            pass
    except OSError:
        pass
    put_back(inside)
    time.sleep(rng.random() * 0.0001)  # leave the tool loop a core on a busy machine
"""


class Attacker:
    """The second session: a process swapping entries for symlinks to the outside."""

    def __init__(
        self, layout: Layout, swaps: list[tuple[str, str]], plants: list[tuple[str, str]]
    ) -> None:
        def pairs(items: list[tuple[str, str]]) -> str:
            return json.dumps([[str(layout.ws / a), str(layout.outside / b)] for a, b in items])

        self.proc = subprocess.Popen(
            [sys.executable, "-c", ATTACKER, pairs(swaps), pairs(plants), "7"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.swaps = 0
        assert self.proc.stdout is not None
        assert self.proc.stdout.readline() == "ready\n"  # racing from the first try on

    def _say(self, word: str) -> str:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(word + "\n")
        self.proc.stdin.flush()
        return self.proc.stdout.readline()

    def pause(self) -> None:
        reply = self._say("pause")
        assert reply.startswith("paused"), reply
        self.swaps = int(reply.split()[1])

    def go(self) -> None:
        assert self.proc.stdin
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()

    def stop(self) -> int:
        reply = self._say("stop")
        self.proc.wait(timeout=30)
        assert reply.startswith("stopped"), reply
        self.swaps = int(reply.split()[1])
        return self.swaps


@dataclass
class Scenario:
    tool: str
    args: Callable[[int], dict[str, Any]]
    swaps: list[tuple[str, str]]
    plants: list[tuple[str, str]] = field(default_factory=list)
    reset: Callable[[Layout], None] | None = None
    reset_every: int = 250
    # runs first in each try (raced too); returns arguments to add, e.g. a new todo's id
    before: Callable[[ToolContext, int], dict[str, Any]] | None = None
    leaks: Callable[[Any], bool] | None = None  # extra check of a result
    # how many tries must still succeed (None: one in 200, at least 10); a move the attacker's
    # plants block until it swaps them away succeeds far less often
    min_ok: int | None = None

    def floor(self, tries: int) -> int:
        return self.min_ok if self.min_ok is not None else max(10, tries // 200)


@dataclass
class Report:
    tries: int = 0
    ok: int = 0
    refused: dict[str, int] = field(default_factory=dict)
    escapes: list[str] = field(default_factory=list)
    unexpected: list[str] = field(default_factory=list)
    swaps: int = 0


def outside_links(ws: Path, attacker_targets: set[str]) -> list[str]:
    """Symlinks in the workspace that point out of it and that a tool made or retargeted.

    The attacker's own links (absolute, to its known targets) may still sit where a tool
    moved one in the instant between the tool's check and its rename: the attacker is a
    local process that makes links, which no MCP session can. Those are not counted; a
    relative link pointing out (a retargeted one) or any other link to the outside is."""
    found = []
    for dirpath, dirnames, filenames in os.walk(ws):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            if not path.is_symlink():
                continue
            target = os.readlink(path)
            if os.path.isabs(target) and target in attacker_targets:
                continue
            real = os.path.realpath(path)
            if not real.startswith(str(ws.resolve()) + "/"):
                found.append(f"{path.relative_to(ws)} -> {target}")
    return found


def run(scenario: Scenario, base: Path, tries: int = TRIES) -> Report:
    try:
        return _run(scenario, base, tries)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _run(scenario: Scenario, base: Path, tries: int) -> Report:
    layout = Layout.make(base)
    outside_before = snapshot(layout.outside, stat=True)
    root = Path(os.path.realpath(layout.ws))
    spec = TOOLS[scenario.tool]
    report = Report()
    attacker = Attacker(layout, scenario.swaps, scenario.plants)
    try:
        for i in range(tries):
            if scenario.reset is not None and i and i % scenario.reset_every == 0:
                attacker.pause()
                scenario.reset(layout)
                attacker.go()
            guard = {"guard": CallGuard()} if CallGuard is not None else {}
            ctx = ToolContext(root=root, env={}, **guard)
            report.tries += 1
            try:
                extra = scenario.before(ctx, i) if scenario.before is not None else {}
                out = spec.run(ctx, {**scenario.args(i), **extra})
            except ToolError as exc:
                report.refused[exc.code] = report.refused.get(exc.code, 0) + 1
                if CANARY.lower() in exc.message.lower():
                    report.escapes.append(f"try {i}: error names the outside: {exc.message}")
                continue
            except Exception as exc:  # not an escape, but a bug the MCP layer would hide
                report.unexpected.append(f"try {i}: {type(exc).__name__}: {exc}")
                continue
            report.ok += 1
            text = json.dumps(out, ensure_ascii=False)
            if CANARY.lower() in text.lower():
                report.escapes.append(f"try {i}: result shows the outside: {text[:300]}")
            elif scenario.leaks is not None and scenario.leaks(out):
                report.escapes.append(f"try {i}: result describes the outside: {text[:300]}")
    finally:
        report.swaps = attacker.stop()
    if snapshot(layout.outside, stat=True) != outside_before:
        report.escapes.append("the outside tree changed")
    targets = {str(layout.outside / t) for _, t in scenario.swaps + scenario.plants}
    report.escapes += [f"link out of the workspace: {p}" for p in outside_links(layout.ws, targets)]
    return report


def race_dir(tmp_path: Path) -> Path:
    """A fresh directory, on tmpfs when there is one (fsync-ing writes are 10x faster)."""
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        import tempfile

        return Path(tempfile.mkdtemp(prefix="msd-race-", dir=shm))
    return tmp_path
