"""Review: what is ours and what is the user's, across --force, upgrades, scopes and roots.

The promise under attack: uninstall takes away exactly what the manifest says is ours and puts
back every file of the user's (bytes *and* mode) where it was; runs never fail on benign races;
a broken manifest is a one-line error. Real CLI where flags are enough, the engine in-process
where a different plan (an upgrade) or a precisely timed race must be built.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from helpers import build, run_cli, snapshot, uninstall_claude
from msd_install.installer import engine
from msd_install.installer.context import GLOBAL, Context
from msd_install.payload import load
from msd_install.runtimes import ADAPTERS

INSTALL = ["--claude", "--global", "--yes"]
UNINSTALL = [*INSTALL, "--uninstall"]


snap = snapshot  # symlink-aware: links are recorded as links


def cli(args: list[str], home: Path, cwd: Path | None = None, **env: str) -> Any:
    tmp = home.parent / "tmp"
    tmp.mkdir(exist_ok=True)
    return run_cli(args, home, cwd, TMPDIR=str(tmp), **env)


def ctx_for(home: Path, **kw: Any) -> Context:
    return Context(
        home=home,
        cwd=kw.pop("cwd", home),
        env={},
        scope=kw.pop("scope", GLOBAL),
        interpreter=Path(sys.executable),
        state_dir=home / ".state",
        **kw,
    )


# --- behaviour that holds up -----------------------------------------------------------------


def test_force_round_trip_with_conflicting_files_entries_and_statusline(tmp_path: Path) -> None:
    home = tmp_path / "home"
    build(
        home,
        {
            ".claude/settings.json": '{\n\t"statusLine": {"type": "command", "command": "s"}\n}',
            ".claude/skills/msd-help/SKILL.md": "my help\n",
            ".claude/hooks/msd-read-guard.py": "# mine\n",
            ".claude.json": '{"mcpServers": {"msd": {"command": "mine"}}}',
        },
    )
    (home / ".claude/hooks/msd-read-guard.py").chmod(0o755)  # modes: see the xfail below
    before = snapshot(home)
    assert cli([*INSTALL, "--force", "--force-statusline"], home).returncode == 0
    assert cli(INSTALL, home).returncode == 0  # a plain reinstall in between
    assert cli(UNINSTALL, home).returncode == 0
    assert snapshot(home) == before


def test_claude_config_dir_nested_and_missing_leaves_nothing_behind(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    target = tmp_path / "a" / "b" / "claude"
    assert cli(INSTALL, home, CLAUDE_CONFIG_DIR=str(target)).returncode == 0
    assert (target / ".claude.json").is_file() and not (home / ".claude").exists()
    assert cli(UNINSTALL, home, CLAUDE_CONFIG_DIR=str(target)).returncode == 0
    assert not (tmp_path / "a").exists()
    assert snapshot(home) == {}


def test_local_and_global_installs_are_independent(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    build(home, {".claude.json": '{"numStartups": 1}\n'})
    build(project, {".mcp.json": '{"mcpServers": {}}\n'})
    home_before, project_before = snapshot(home), snapshot(project)
    assert cli(INSTALL, home).returncode == 0
    assert cli(["--claude", "--local", "--yes"], home, cwd=project).returncode == 0
    assert cli(["--claude", "--local", "--yes", "-u"], home, cwd=project).returncode == 0
    assert snapshot(project) == project_before
    assert cli(UNINSTALL, home).returncode == 0
    assert snapshot(home) == home_before


def test_uninstall_with_a_stale_lock_file_from_a_killed_run(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    assert cli(INSTALL, home).returncode == 0
    (home / ".claude/.msd-install.lock").write_text("99999\n")  # left by a SIGKILLed run
    assert cli(UNINSTALL, home).returncode == 0
    assert snapshot(home) == {}


# --- bugs ------------------------------------------------------------------------------------


def test_force_over_a_users_symlink_never_writes_through_it(tmp_path: Path) -> None:
    home, dots = tmp_path / "home", tmp_path / "dotfiles"
    build(dots, {"help.md": "my own help, kept in my dotfiles\n"})
    (home / ".claude/skills/msd-help").mkdir(parents=True)
    (home / ".claude/skills/msd-help/SKILL.md").symlink_to(dots / "help.md")
    before_home, before_dots = snap(home), snap(dots)
    proc = cli([*INSTALL, "--force"], home)
    assert snap(dots) == before_dots  # the user's target file is never overwritten
    assert proc.returncode == 0, proc.stdout  # --force: replaced (backed up), not a conflict
    assert cli(UNINSTALL, home).returncode == 0
    assert snap(home) == before_home
    assert snap(dots) == before_dots


def test_a_preexisting_file_identical_to_ours_survives_install_and_uninstall(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    plan = ADAPTERS["claude"].plan(ctx_for(home), load())
    version = next(op for op in plan.files if op.path.name == "VERSION")
    build(home, {".claude/msd-core/VERSION": version.content})
    before = snapshot(home)
    assert cli(INSTALL, home).returncode == 0
    assert cli(UNINSTALL, home).returncode == 0
    assert snapshot(home) == before


def test_force_then_uninstall_restores_the_users_file_mode(tmp_path: Path) -> None:
    home = tmp_path / "home"
    build(home, {".claude/agents/msd-planner.md": "mine\n"})
    (home / ".claude/agents/msd-planner.md").chmod(0o600)
    before = snapshot(home)
    assert cli([*INSTALL, "--force"], home).returncode == 0
    assert cli(UNINSTALL, home).returncode == 0
    assert snapshot(home) == before


def test_upgrade_that_drops_a_forced_file_gives_the_users_file_back(tmp_path: Path) -> None:
    home = tmp_path / "home"
    build(home, {".claude/agents/msd-planner.md": "mine\n"})
    before = snapshot(home)
    forced = ctx_for(home, force=True)
    engine.install(ADAPTERS["claude"].plan(forced, load()), forced)
    ctx = ctx_for(home)
    plan = ADAPTERS["claude"].plan(ctx, load())
    newer = replace(plan, files=tuple(f for f in plan.files if f.path.name != "msd-planner.md"))
    engine.install(newer, ctx)  # an upgrade that no longer ships agents/msd-planner.md
    assert (home / ".claude/agents/msd-planner.md").read_text() == "mine\n"
    uninstall_claude(ctx)
    assert snapshot(home) == before


def test_local_install_in_home_does_not_turn_the_global_install_into_a_local_one(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    build(home, {".claude.json": '{"numStartups": 1}\n'})
    assert cli(INSTALL, home).returncode == 0
    before = snapshot(home)
    proc = cli(["--claude", "--local", "--yes"], home, cwd=home)
    if proc.returncode == 0:
        assert "$CLAUDE_PROJECT_DIR" not in (home / ".claude/settings.json").read_text()
        assert "msd" in json.loads((home / ".claude.json").read_text())["mcpServers"]
    else:
        assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
        assert snapshot(home) == before


def test_config_dir_with_dotdot_leaves_no_directory_behind(tmp_path: Path) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    assert cli([*INSTALL, "--config-dir", "../alt"], home, cwd=work).returncode == 0
    assert (tmp_path / "alt/msd-file-manifest.json").is_file()
    assert cli([*UNINSTALL, "--config-dir", "../alt"], home, cwd=work).returncode == 0
    assert not (tmp_path / "alt").exists()


def test_a_root_created_concurrently_does_not_fail_the_install(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    ctx = ctx_for(home)

    def other_run_wins_the_mkdir(n: int) -> None:
        if n == 1:  # the first mutation is mkdir of ~/.claude
            (home / ".claude").mkdir()

    engine.install(ADAPTERS["claude"].plan(ctx, load()), ctx, fault=other_run_wins_the_mkdir)
    assert (home / ".claude/msd-file-manifest.json").is_file()


@pytest.mark.parametrize(
    "manifest",
    [
        {"format": 1, "runtime": "claude", "scope": "global", "files": ["a"]},
        {"format": -1, "runtime": "claude", "scope": "global"},
    ],
    ids=["files-list", "format-negative"],
)
def test_a_corrupt_manifest_is_a_one_line_error(tmp_path: Path, manifest: Any) -> None:
    home = tmp_path / "home"
    build(home, {".claude/msd-file-manifest.json": json.dumps(manifest)})
    before = snapshot(home)
    for args in (INSTALL, UNINSTALL):
        proc = cli(args, home)
        assert proc.returncode == 4, proc.stderr
        line = proc.stderr.strip()
        assert "\n" not in line and "internal error" not in line
        assert "msd-file-manifest.json" in line
    assert snapshot(home) == before
