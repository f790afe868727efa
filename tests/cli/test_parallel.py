"""``--all`` runs groups of runtimes side by side in forked workers (``msd_install.parallel``).

What a user sees must not change: the same trees, bytes and report as one process
(``MSD_INSTALL_JOBS=1``), every finished run reported after an error, nothing half done after
an error, a signal or a killed worker, and no worker left behind.
"""

from __future__ import annotations

import gc
import json
import pickle
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest

from helpers import REPO, cli_env, run_cli, snapshot
from msd_install import errors, parallel
from msd_install.installer.context import GLOBAL, LOCAL
from msd_install.jobs import jobs as workers
from msd_install.runtimes import RUNTIMES

ALL = ["--all", "--global", "--yes"]


def _installed(home: Path) -> set[str]:
    """The runtimes whose manifest is in place (``doctor --json``: every install it finds)."""
    proc = run_cli(["doctor", "--json"], home)
    doc = json.loads(proc.stdout)
    return {i["runtime"] for i in doc["installs"] if i.get("installed")}


def test_side_by_side_writes_what_one_process_writes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    empty = snapshot(home)
    trees, outputs = {}, {}
    for jobs in ("1", "2"):
        proc = run_cli(ALL, home, MSD_INSTALL_JOBS=jobs)
        assert proc.returncode == 0, proc.stderr
        trees[jobs], outputs[jobs] = snapshot(home), proc.stdout
        proc = run_cli([*ALL, "--uninstall"], home, MSD_INSTALL_JOBS=jobs)
        assert proc.returncode == 0, proc.stderr
        outputs[jobs + "u"] = proc.stdout
        assert snapshot(home) == empty
    assert trees["1"] == trees["2"]
    assert outputs["1"] == outputs["2"] and outputs["1u"] == outputs["2u"]
    # the report keeps the command line's order of runtimes
    order = [line.split()[1] for line in outputs["2"].splitlines() if line.startswith("install ")]
    assert order == [name for name in RUNTIMES if name in order] and len(order) == len(RUNTIMES)


def test_groups_keep_runtimes_that_share_a_folder_together(tmp_path: Path) -> None:
    names = list(RUNTIMES)
    touched = {n: [tmp_path / f".{n}"] for n in names}
    touched["opencode"] = [tmp_path / ".config/opencode"]
    touched["kilo"] = [tmp_path / ".config/kilo"]
    touched["trae"] = [tmp_path / ".trae", tmp_path / ".config/Trae/User/mcp.json"]
    touched["antigravity"] = [tmp_path / ".gemini/config"]
    touched["claude"] = [tmp_path / ".claude", tmp_path / ".claude.json"]
    touched["codex"] = [Path("/elsewhere/codex")]  # an override outside the home
    touched["kimi"] = [tmp_path]  # the home itself: goes with what is outside
    plan = parallel.groups(names, touched.__getitem__, tmp_path)
    by_first = {g[0]: g for g in plan}
    assert by_first["opencode"] == ["opencode", "kilo", "trae"]
    assert by_first["gemini"] == ["gemini", "antigravity"]
    assert by_first["codex"] == ["codex", "kimi"]
    assert sorted(n for g in plan for n in g) == sorted(names)
    for group in plan:  # each in the command line's order
        assert group == sorted(group, key=names.index)


def test_groups_of_the_real_adapters() -> None:
    """The real roots and config files, global and local: the runtimes that share a folder
    run one after the other, the rest side by side."""
    from msd_install.cli import _touched
    from msd_install.runtimes import ADAPTERS
    from runtimes.golden import HOME, PROJECT, context

    for scope, base in ((GLOBAL, HOME), (LOCAL, PROJECT)):
        ctx = context(scope)
        names = [n for n in RUNTIMES if scope in ADAPTERS[n].scopes]
        plan = parallel.groups(names, lambda n, c=ctx: _touched(n, c), base)
        together = [g for g in plan if len(g) > 1]
        if scope == GLOBAL:
            assert ["opencode", "kilo", "trae"] in together
            assert ["gemini", "antigravity"] in together
        assert len(plan) >= len(names) // 2, plan  # most runtimes still run side by side


def test_an_error_stops_new_groups_and_reports_every_finished_run(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    broken = b"[mcp_servers\nthis is not toml"
    (home / ".codex/config.toml").write_bytes(broken)
    proc = run_cli([*ALL, "--json"], home, MSD_INSTALL_JOBS="2")
    assert proc.returncode == 4, proc.stderr
    doc = json.loads(proc.stdout)
    assert "config.toml" in doc["error"]["message"] or "config.toml" in (doc["error"]["path"] or "")
    assert (home / ".codex/config.toml").read_bytes() == broken
    assert not (home / ".codex/msd-file-manifest.json").exists()
    reported = {r["runtime"] for r in doc["results"]}
    assert "codex" not in reported
    # every run reported finished whole; every other one left nothing of msd's behind
    assert _installed(home) == reported
    assert not list(home.rglob(".msd-journal")) and not list(home.rglob("*.msd-tmp.*"))
    order = [r["runtime"] for r in doc["results"]]
    assert order == sorted(order, key=list(RUNTIMES).index)


def test_a_killed_worker_is_reported_and_the_next_run_recovers(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    assert run_cli(["--kimi", "--global", "--yes"], home).returncode == 0  # all side by side
    # every worker kills itself right before the 5th change of its first run
    proc = run_cli([*ALL, "--json"], home, MSD_INSTALL_JOBS="2", MSD_INSTALL_TEST_SIGNAL="5:KILL")
    assert proc.returncode == 4, proc.stderr
    assert "stopped before it finished (killed by signal 9)" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    doc = json.loads(proc.stdout)
    assert doc["error"]["kind"] == "WorkerLostError"
    schema = json.loads((REPO / "docs/reference/json-output.schema.json").read_text())
    jsonschema.validate(doc, schema)
    proc = run_cli(ALL, home, MSD_INSTALL_JOBS="2")
    assert proc.returncode == 0, proc.stderr
    assert "recovered:" in proc.stdout + proc.stderr
    assert _installed(home) == set(RUNTIMES)
    assert run_cli([*ALL, "--check"], home).returncode == 0


@pytest.mark.parametrize("delay", [0.0, 0.03, 0.1])
def test_sigterm_rolls_back_the_running_workers_and_leaves_none(
    tmp_path: Path, delay: float
) -> None:
    """SIGTERM to msd-install at some point of its first runs: each worker rolls back the
    run it is on (a signal lands between two changes, never inside one: a folder made but
    not yet remembered, a journal half made or half removed), and nothing stays."""
    home = tmp_path / "home"
    home.mkdir()
    empty = snapshot(home)
    # the record of manifests exists already: every run goes side by side from the start
    assert run_cli(["--kimi", "--global", "--yes"], home).returncode == 0
    proc = subprocess.Popen(
        [sys.executable, "-m", "msd_install", *ALL],
        cwd=home,
        env=cli_env(home, MSD_INSTALL_JOBS="2"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not list(home.glob(".c*/msd-core")) and time.monotonic() < deadline:
        time.sleep(0.002)  # until the first workers are writing (Claude Code, Codex)
    time.sleep(delay)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "interrupted" in err
    assert not list(home.rglob(".msd-journal")) and not list(home.rglob("*.msd-tmp.*"))
    assert _installed(home) != set(RUNTIMES)  # stopped before the end
    doctor = json.loads(run_cli(["doctor", "--json"], home).stdout)
    assert all(i["healthy"] for i in doctor["installs"] if i["installed"])  # each one whole
    proc2 = run_cli([*ALL, "--uninstall"], home)
    assert proc2.returncode == 0, proc2.stderr
    assert snapshot(home) == empty
    children = subprocess.run(
        ["pgrep", "-P", str(proc.pid)], capture_output=True, text=True, check=False
    )
    assert children.stdout == ""


@pytest.mark.parametrize(
    "bad", ["many", "0", "65", "0640", "00065", "-1", "\u00b2", "\u0663", "9" * 5000]
)
def test_jobs_setting_is_checked_on_every_run(tmp_path: Path, bad: str) -> None:
    for args in (ALL, ["--claude", "--global", "--yes"]):
        proc = run_cli(args, tmp_path, MSD_INSTALL_JOBS=bad)
        assert proc.returncode == 2, proc.stderr
        assert "is not a number of workers from 1 to 64" in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / ".claude").exists()
    assert workers({"MSD_INSTALL_JOBS": " 3 "}) == 3
    assert workers({"MSD_INSTALL_JOBS": "002"}) == 2


def _slow_or_failing(marks: Path) -> Callable[[str], str]:
    def run_one(name: str) -> str:
        (marks / name).write_text("started")
        if name == "bad":
            raise errors.ConfigFileError("broken", path=Path("/x/config.toml"))
        if name == "crash":
            raise KeyError("nope")
        time.sleep(0.5 if name == "slow" else 0)
        return f"done {name}"

    return run_one


def test_after_an_error_no_run_starts_in_any_worker(tmp_path: Path) -> None:
    plan = [["bad"], ["slow", "after"], ["never"]]
    rank = {n: i for i, n in enumerate(["bad", "slow", "after", "never"])}
    outcomes = parallel.run_groups(plan, _slow_or_failing(tmp_path), rank=rank, workers=2)
    assert [o.name for o in outcomes] == ["bad", "slow"]
    assert isinstance(outcomes[0].error, errors.ConfigFileError)
    assert outcomes[1].result == "done slow"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad", "slow"]  # no other started


def test_a_crash_in_a_worker_is_reported_as_itself(tmp_path: Path) -> None:
    outcomes = parallel.run_groups(
        [["crash"], ["slow"]], _slow_or_failing(tmp_path), rank={"crash": 0, "slow": 1}, workers=2
    )
    crash = outcomes[0].error
    assert isinstance(crash, parallel.WorkerCrashError)
    assert crash.kind == "KeyError" and str(crash) == "'nope'"
    assert "raise KeyError" in crash.trace  # the worker's own traceback, for the crash log


def test_runtimes_whose_folders_are_one_through_a_link_share_a_group(tmp_path: Path) -> None:
    (tmp_path / "oc").mkdir()
    (tmp_path / "kc").symlink_to("oc")
    touched = {
        "opencode": [tmp_path / "oc"],
        "kilo": [tmp_path / "kc"],
        "claude": [tmp_path / ".c"],
    }
    plan = parallel.groups(list(touched), touched.__getitem__, tmp_path)
    assert plan == [["opencode", "kilo"], ["claude"]]


def test_a_runtime_that_cannot_be_planned_does_not_stop_the_others(tmp_path: Path) -> None:
    """A bad override of one runtime fails that runtime's own run, in its turn, as in one
    process: the uninstall of the others still happens."""
    home = tmp_path / "home"
    home.mkdir()
    assert run_cli(["--claude", "--global", "--yes"], home).returncode == 0
    for jobs in ("1", "2"):
        proc = run_cli(
            [*ALL, "--uninstall", "--dry-run"],
            home,
            MSD_INSTALL_JOBS=jobs,
            CODEX_HOME=str(home / "nonexist"),
        )
        assert proc.returncode == 0, proc.stderr
        assert "uninstall claude" in proc.stdout


ERRORS = [
    c for c in vars(errors).values() if isinstance(c, type) and issubclass(c, errors.MsdError)
]


@pytest.mark.parametrize("cls", ERRORS, ids=lambda c: c.__name__)
def test_every_error_crosses_from_a_worker_intact(cls: type[errors.MsdError]) -> None:
    exc = (
        errors.PackError(Path("/x/pack"), ["a.md: no name", "b.md: bad"])
        if cls is errors.PackError
        else cls("it broke", path=Path("/x/y"), hint="do this")
    )
    exc.done = [{"runtime": "claude"}]
    back = pickle.loads(pickle.dumps(exc))
    assert type(back) is cls and back.one_line() == exc.one_line()
    assert back.exit_code == exc.exit_code and back.done == exc.done
    assert getattr(back, "problems", None) == getattr(exc, "problems", None)


class _OddError(Exception):  # not an MsdError: test_cli_json_schema lists MsdError's subclasses
    def __init__(self, a: int, b: int) -> None:
        super().__init__(f"odd {a} {b}")


def test_an_error_that_does_not_pickle_still_arrives_as_its_line() -> None:
    frame = parallel._error_frame(parallel.Outcome("claude", error=_OddError(1, 2)))
    back = pickle.loads(frame)
    assert type(back.error) is errors.WorkerLostError and back.error.one_line() == "odd 1 2"

    class Odd(errors.ConfigFileError):  # gone again below: other tests list MsdError's kinds
        def __init__(self, a: int) -> None:
            super().__init__(f"odd {a}", path=Path("/x/settings.json"))

    frame = parallel._error_frame(parallel.Outcome("claude", error=Odd(3)))
    back = pickle.loads(frame)
    assert type(back.error) is errors.ConfigFileError  # the nearest class that pickles
    assert back.error.one_line() == "/x/settings.json: odd 3" and back.error.exit_code == 4
    del Odd
    gc.collect()
