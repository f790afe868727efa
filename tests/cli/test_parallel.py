"""``--all`` runs groups of runtimes side by side in forked workers (``msd_install.parallel``).

What a user sees must not change: the same trees, bytes and report as one process
(``MSD_INSTALL_JOBS=1``), every finished run reported after an error, nothing half done after
an error, a signal or a killed worker, and no worker left behind.
"""

from __future__ import annotations

import json
import pickle
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import cli_env, run_cli, snapshot
from msd_install import errors, parallel
from msd_install.installer.context import GLOBAL, LOCAL
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
    # every worker kills itself right before the 5th change of its first run
    proc = run_cli(ALL, home, MSD_INSTALL_JOBS="2", MSD_INSTALL_TEST_SIGNAL="5:KILL")
    assert proc.returncode == 4, proc.stderr
    assert "stopped before it finished (killed by signal 9)" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    proc = run_cli(ALL, home, MSD_INSTALL_JOBS="2")
    assert proc.returncode == 0, proc.stderr
    assert "recovered:" in proc.stdout + proc.stderr
    assert _installed(home) == set(RUNTIMES)
    assert run_cli([*ALL, "--check"], home).returncode == 0


def test_sigterm_rolls_back_the_running_workers_and_leaves_none(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    empty = snapshot(home)
    proc = subprocess.Popen(
        [sys.executable, "-m", "msd_install", *ALL],
        cwd=home,
        env=cli_env(home, MSD_INSTALL_JOBS="2"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not list(home.glob(".*/msd-core")) and time.monotonic() < deadline:
        time.sleep(0.01)  # until the first workers are writing
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "interrupted" in err
    assert not list(home.rglob(".msd-journal")) and not list(home.rglob("*.msd-tmp.*"))
    done = _installed(home)
    assert done != set(RUNTIMES)  # stopped before the end
    assert run_cli([*ALL, "--uninstall"], home).returncode == 0
    assert snapshot(home) == empty
    children = subprocess.run(
        ["pgrep", "-P", str(proc.pid)], capture_output=True, text=True, check=False
    )
    assert children.stdout == ""


def test_jobs_setting_is_checked(tmp_path: Path) -> None:
    proc = run_cli(ALL, tmp_path, MSD_INSTALL_JOBS="many")
    assert proc.returncode == 2
    assert "MSD_INSTALL_JOBS='many' is not a number of workers" in proc.stderr
    assert not (tmp_path / ".claude").exists()


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
    assert type(back.error) is errors.MsdError and back.error.one_line() == "odd 1 2"
