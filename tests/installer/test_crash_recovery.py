"""Issue 10.1: a run killed at any point is rolled back by the next run, whatever its verb.

A real process runs the real CLI (``msd_install.cli.main``) and is sent SIGKILL right before
its k-th change on disk (the ``MSD_INSTALL_TEST_SIGNAL`` hook of cli.py). For the dense matrix
the process is a fork of the test process (no interpreter start-up: a kill point costs two
runs of the engine, not two Python starts); a sample is also run as ``python -m msd_install``,
with SIGKILL, SIGTERM and SIGINT. After the kill, the next run (install, uninstall, --check
or doctor) must say "recovered: ..." and put the tree back; an uninstall then leaves the
exact tree the user had before msd-install, and no byte of the user's is lost on the way.

Scenarios: ``install`` (fresh, into a root with the user's config and a skill of the user's
in the way), ``upgrade`` (the same root installed without --force, most of msd's skills then
taken away as an older version would lack them, then installed again with --force: the
skills come back, the user's skill is backed up and replaced) and ``uninstall``; for Claude (JSON),
Codex (TOML) and OpenCode (JSONC). ``MSD_CRASH_POINTS`` (default 4) is the number of kill
points sampled per scenario, evenly spread over all of its changes, plus the first two and
the last two; ``MSD_CRASH_POINTS=all`` runs every one (the figures in the issue's closing note).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import build, cli_env, run_cli, snapshot, snapshot_but_registry
from msd_install import cli
from msd_install.installer.manifestcheck import JOURNAL_DIR

USER_SKILL = "my own help skill\n"
SETUPS: dict[str, dict[str, str]] = {
    "claude": {
        ".claude/settings.json": '{\n  "model": "opus",\n  "hooks": {}\n}\n',
        ".claude.json": '{"numStartups": 3}\n',
        ".claude/skills/msd-help/SKILL.md": USER_SKILL,
    },
    "codex": {
        ".codex/config.toml": 'model = "o3"  # mine\n\n[mcp_servers.other]\ncommand = "x"\n',
        ".codex/skills/msd-help/SKILL.md": USER_SKILL,
    },
    "opencode": {
        ".config/opencode/opencode.json": '{\n  // mine\n  "theme": "dark",\n}\n',
        ".config/opencode/skills/msd-help/SKILL.md": USER_SKILL,
    },
}
SKILL = {
    "claude": ".claude/skills/msd-help/SKILL.md",
    "codex": ".codex/skills/msd-help/SKILL.md",
    "opencode": ".config/opencode/skills/msd-help/SKILL.md",
}
NEXT = ("uninstall", "install", "check", "doctor")


def args(runtime: str, verb: str) -> list[str]:
    base = [f"--{runtime}", "--global", "--yes"]
    return {
        "install": base,
        "force": [*base, "--force"],
        "uninstall": [*base, "--uninstall"],
        "check": [*base, "--check"],
        "doctor": ["doctor"],
    }[verb]


def forked(
    argv: list[str], home: Path, kill_at: int | None = None, *, count: bool = False
) -> tuple[int, str]:
    """The CLI in a forked process; returns (exit status or -signal, output). ``count``:
    the output ends with the number of changes the run made."""
    extra = {"MSD_INSTALL_TEST_SIGNAL": f"{kill_at}:KILL"} if kill_at else {}
    env = cli_env(home, **extra)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 3
        try:
            os.close(read)
            out = os.fdopen(write, "w")
            sys.stdout = sys.stderr = out
            os.environ.clear()
            os.environ.update(env)
            os.chdir(home)
            sys.stdin = open(os.devnull)  # noqa: SIM115
            seen = [0]
            if count:
                cli._signal_hook = lambda: lambda n: seen.__setitem__(0, n)  # type: ignore[attr-defined]
            try:
                cli.main(argv)
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 0
            out.write(f"\nchanges: {seen[0]}\n" if count else "")
            out.flush()
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read) as pipe:
        output = pipe.read()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status), output
    return os.WEXITSTATUS(status), output


class Scenario:
    """A home restored to the same path before each kill point (the user's registry names
    roots by path, so a copy elsewhere would make every manifest foreign)."""

    def __init__(self, tmp: Path, runtime: str, verb: str) -> None:
        self.runtime, self.verb = runtime, verb
        self.home = tmp / "home"
        self.saved = tmp / "saved"
        build(self.home, SETUPS[runtime])
        self.original = snapshot(self.home)
        if verb in ("upgrade", "uninstall"):
            code, out = forked(args(runtime, "install"), self.home)
            assert code in (0, 1), out
        if verb == "upgrade":  # an older install: most skills still to come, the user's in the way
            skills = (self.home / SKILL[runtime]).parent.parent
            for skill in sorted(skills.iterdir()):
                if skill.name != "msd-help":
                    shutil.rmtree(skill)
        shutil.copytree(self.home, self.saved, symlinks=True)
        self.argv = args(runtime, "force" if verb == "upgrade" else verb)
        self.root = Path(SKILL[runtime]).parent.parent.parent

    def restore(self) -> None:
        shutil.rmtree(self.home)
        shutil.copytree(self.saved, self.home, symlinks=True)

    def changes(self) -> int:
        """How many changes the run makes when nothing stops it."""
        self.restore()
        code, out = forked(self.argv, self.home, count=True)
        assert code in (0, 1), out
        return int(out.rsplit("changes: ", 1)[1])

    def check_point(self, k: int, next_verb: str) -> None:
        self.restore()
        code, out = forked(self.argv, self.home, k)
        assert code == -signal.SIGKILL, f"k={k}: not killed ({code}): {out}"
        assert _kept(self.home, USER_SKILL.encode()), f"k={k}: the user's skill is gone"
        journaled = (self.home / self.root / JOURNAL_DIR).exists()
        code, out = forked(args(self.runtime, next_verb), self.home)
        assert code in (0, 1), f"k={k} {next_verb}: {out}"
        what = "install" if self.verb == "upgrade" else self.verb
        if journaled:
            assert f"recovered: an interrupted {what} of " in out, f"k={k} {next_verb}: {out}"
            if next_verb in ("check", "doctor"):  # read-only verbs leave the tree as it was
                self.assert_as_before_run(k)
        else:  # only the last step of an uninstall comes after its journal (the record goes)
            assert self.verb == "uninstall", f"k={k}: killed with no journal left"
            assert "recovered" not in out
        if next_verb != "uninstall":
            code, out = forked(args(self.runtime, "uninstall"), self.home)
            assert code == 0, out
        assert not any(JOURNAL_DIR in key or ".msd-tmp." in key for key in snapshot(self.home))
        assert snapshot_but_registry(self.home) == self.original, f"k={k} then {next_verb}"

    def assert_as_before_run(self, k: int) -> None:
        now = snapshot(self.home)
        saved = snapshot(self.saved)
        assert now == saved, f"k={k}: the recovered tree is not the tree before the run"


def _kept(home: Path, data: bytes) -> bool:
    """Are the user's bytes still somewhere (in place, or a backup of the run's journal)?"""
    return any(v[0] == data for v in snapshot(home).values() if isinstance(v, tuple))


def sample(total: int) -> list[int]:
    wanted = os.environ.get("MSD_CRASH_POINTS", "4")
    if wanted == "all" or int(wanted) >= total:
        return list(range(1, total + 1))
    n = max(int(wanted), 2)
    # the ends first (the root and the journal made; the manifest and the registry written),
    # then evenly spread
    points = {1, 2, total - 1, total}
    points |= {1 + round(i * (total - 1) / (n - 1)) for i in range(n)}
    return sorted(points)


@pytest.mark.parametrize("verb", ["install", "upgrade", "uninstall"])
@pytest.mark.parametrize("runtime", ["claude", "codex", "opencode"])
def test_sigkill_at_any_change_is_rolled_back_by_the_next_run(
    tmp_path: Path, runtime: str, verb: str
) -> None:
    scenario = Scenario(tmp_path, runtime, verb)
    total = scenario.changes()
    assert total > 5
    for i, k in enumerate(sample(total)):
        scenario.check_point(k, NEXT[i % len(NEXT)])


@pytest.mark.parametrize("runtime", ["claude", "codex"])
def test_a_removal_killed_on_either_side_of_its_rename_is_put_back(
    tmp_path: Path, runtime: str
) -> None:
    """An uninstall moves each file of msd's into its journal: the line naming the backup
    first, then one rename. Killed between the two, the file is still in place and its
    backup absent; killed right after the rename (before the next line), the file is only in
    the journal. Either way the next run puts back the exact tree from before the run."""
    scenario = Scenario(tmp_path, runtime, "uninstall")
    journal = scenario.home / scenario.root / JOURNAL_DIR
    seen: set[str] = set()
    for k in range(1, min(scenario.changes(), 60) + 1):
        scenario.restore()
        code, out = forked(scenario.argv, scenario.home, k)
        assert code == -signal.SIGKILL, f"k={k}: not killed ({code}): {out}"
        last = json.loads((journal / "intent").read_text().splitlines()[-1])
        if not last.get("moved"):
            continue
        path = scenario.home / scenario.root / last["path"]
        backup = journal / last["backup"]
        if backup.exists():
            state = "after the rename"
            assert not path.exists(), f"k={k}: {path} moved but still there"
            assert hashlib.sha256(backup.read_bytes()).hexdigest() == last["sha256"]
        else:
            state = "before the rename"
            assert hashlib.sha256(path.read_bytes()).hexdigest() == last["sha256"]
        if state in seen:
            continue
        seen.add(state)
        scenario.check_point(k, "check")  # recovered to the tree before the run, then removed
    assert seen == {"before the rename", "after the rename"}


def run_module(argv: list[str], home: Path, spec: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "msd_install", *argv],
        cwd=home,
        env=cli_env(home, MSD_INSTALL_TEST_SIGNAL=spec),
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("runtime", "verb", "k", "sig"),
    [
        ("claude", "upgrade", 37, "KILL"),
        ("opencode", "uninstall", 150, "KILL"),
        ("codex", "install", 80, "KILL"),
        ("claude", "upgrade", 3, "TERM"),
        ("claude", "install", 150, "TERM"),
        ("opencode", "uninstall", 40, "TERM"),
        ("codex", "upgrade", 2, "INT"),
        ("claude", "uninstall", 90, "INT"),
        ("opencode", "install", 120, "INT"),
    ],
)
def test_python_m_killed_or_interrupted(
    tmp_path: Path, runtime: str, verb: str, k: int, sig: str
) -> None:
    """``python -m msd_install`` itself: SIGKILL leaves a journal the next run rolls back;
    SIGTERM and SIGINT roll back at once (exit 130) and leave no journal or temp file."""
    scenario = Scenario(tmp_path, runtime, verb)
    scenario.restore()
    proc = run_module(scenario.argv, scenario.home, f"{k}:{sig}")
    left = [key for key in snapshot(scenario.home) if JOURNAL_DIR in key or ".msd-tmp." in key]
    if sig == "KILL":
        assert proc.returncode == -signal.SIGKILL, proc.stderr
        assert left, "a killed run leaves its journal"
        after = run_cli(args(runtime, "uninstall"), scenario.home)
        assert "recovered: an interrupted" in after.stdout, after.stdout + after.stderr
    else:
        assert proc.returncode == 130, proc.stderr
        assert "rolled back" in proc.stderr or "nothing was changed" in proc.stderr
        assert left == []
        assert snapshot(scenario.home) == snapshot(scenario.saved)
        after = run_cli(args(runtime, "uninstall"), scenario.home)
        assert "recovered" not in after.stdout
    assert after.returncode == 0, after.stderr
    assert snapshot_but_registry(scenario.home) == scenario.original
