"""Workspaces the server refuses at start-up: system trees, the home directory and what
contains it, runtime configuration roots (and the tree the server runs from). Fail closed: one
line on stderr, exit 2, nothing on stdout."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SERVER

import msd_install.msdcore as msdcore_pkg
from msd_install.msdcore.mcp import roots

REAL_PYTHON = os.path.realpath(sys.executable)


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MSD_", "CLAUDE_", "CODEX_"))}
    env["HOME"] = str(tmp_path / "home")
    (tmp_path / "home").mkdir(exist_ok=True)
    env.update(extra)
    return env


def _refused(env: dict[str, str], cwd: Path, cmd: list[str] | None = None) -> str:
    done = subprocess.run(
        cmd or SERVER, env=env, cwd=cwd, input="", capture_output=True, text=True, timeout=20
    )
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("msd-mcp: refusing to start:")
    return done.stderr


@pytest.mark.parametrize(
    "workspace", ["/", "/etc", "/proc", "/proc/self", "/proc/self/cwd", "/sys", "/dev", "/usr/lib"]
)
def test_system_directories_are_refused(tmp_path: Path, workspace: str) -> None:
    if not os.path.isdir(workspace):
        pytest.skip(f"{workspace} does not exist here")
    _refused(_env(tmp_path, MSD_WORKSPACE=workspace), tmp_path)


@pytest.mark.parametrize(
    "where", [".", ".claude", ".codex", ".gemini", ".config/opencode", ".claude/projects/x"]
)
def test_home_and_runtime_config_roots_are_refused(tmp_path: Path, where: str) -> None:
    env = _env(tmp_path)
    target = tmp_path / "home" / where
    target.mkdir(parents=True, exist_ok=True)
    assert "refusing" in _refused({**env, "MSD_WORKSPACE": str(target)}, tmp_path)
    assert "refusing" in _refused(env, target)  # from the working directory too


def test_a_directory_containing_home_is_refused(tmp_path: Path) -> None:
    env = _env(tmp_path)
    env["HOME"] = str(tmp_path / "parent" / "me")
    Path(env["HOME"]).mkdir(parents=True)
    assert "home directory" in _refused(
        {**env, "MSD_WORKSPACE": str(tmp_path / "parent")}, tmp_path
    )


def test_config_dirs_named_by_the_environment_are_refused(tmp_path: Path) -> None:
    custom = tmp_path / "somewhere" / "claude-config"
    custom.mkdir(parents=True)
    env = _env(tmp_path, CLAUDE_CONFIG_DIR=str(custom), MSD_WORKSPACE=str(custom / "sub"))
    (custom / "sub").mkdir()
    assert "CLAUDE_CONFIG_DIR" in _refused(env, tmp_path)


def test_a_runtime_root_with_a_manifest_is_refused_but_a_project_holding_one_is_not(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "msd-file-manifest.json").write_text("{}")
    env = _env(tmp_path)
    assert "msd-file-manifest.json" in _refused(
        {**env, "MSD_WORKSPACE": str(project / ".claude")}, tmp_path
    )
    (project / ".claude" / "skills").mkdir()
    _refused({**env, "MSD_WORKSPACE": str(project / ".claude" / "skills")}, tmp_path)
    done = subprocess.run(
        SERVER,
        env={**env, "MSD_WORKSPACE": str(project)},
        input="",
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert done.returncode == 0, done.stderr  # a local install inside the project is fine


def test_the_tree_the_server_runs_from_is_refused(tmp_path: Path) -> None:
    core = tmp_path / "runtime" / "msd-core"
    (core / "bin").mkdir(parents=True)
    launcher = Path(msdcore_pkg.__file__).parent.parent / "payload/data/core/bin/msd-mcp"
    shutil.copy2(launcher, core / "bin" / "msd-mcp")
    shutil.copytree(
        Path(msdcore_pkg.__file__).parent,
        core / "lib" / "msdcore",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    cmd = [REAL_PYTHON, "-I", "-S", str(core / "bin" / "msd-mcp")]
    env = _env(tmp_path)
    for workspace in (tmp_path / "runtime", core, core / "lib"):
        assert "own code" in _refused({**env, "MSD_WORKSPACE": str(workspace)}, tmp_path, cmd)


def test_forged_lines_in_a_refusal_stay_one_line(tmp_path: Path) -> None:
    odd = tmp_path / "home" / ".claude" / "x\nmsd-mcp: FORGED\x1b[2J"
    odd.mkdir(parents=True)
    stderr = _refused(_env(tmp_path, MSD_WORKSPACE=str(odd)), tmp_path)
    assert "\x1b" not in stderr


def test_refusal_logic_directly() -> None:
    assert roots.refusal("/", {}, None) == "is the filesystem root"
    assert roots.refusal("/proc/12/root", {}, None) is not None
    assert roots.refusal("/home", {}, None) is not None
    assert roots.refusal("/srv/project", {}, None) is None
    assert roots.refusal("/w/.claudette", {}, "/w") is None  # a name that only starts alike
    assert roots.refusal("/w/.claude", {}, "/w") is not None


class _Overrides(dict[str, str]):
    """An environment in which every variable a runtime asks for names a directory of its own
    outside the home (made on the spot: some runtimes refuse a missing one)."""

    def __init__(self, base: Path) -> None:
        super().__init__()
        self.base = base

    def get(self, key: str, default: object = None) -> str:  # type: ignore[override]
        if key not in self:
            (self.base / key.lower()).mkdir(parents=True, exist_ok=True)
            self[key] = str(self.base / key.lower())
        return self[key]


@pytest.mark.parametrize("overrides", [False, True], ids=["defaults", "env-overrides"])
@pytest.mark.parametrize("platform", ["linux", "darwin", "win32"])
def test_nothing_a_global_install_writes_can_be_inside_a_workspace(
    tmp_path: Path, platform: str, overrides: bool
) -> None:
    """Every file and config file any runtime's global install plans, under its defaults
    and under every environment override it reads: no directory holding one may be the
    workspace (so no MCP tool can rewrite a runtime's config or the installed code)."""
    from msd_install.installer.context import GLOBAL, Context
    from msd_install.payload import load
    from msd_install.runtimes import ADAPTERS

    home = "/home/someone"
    payload = load()
    unguarded: set[str] = set()
    for adapter in ADAPTERS.values():
        if "global" not in adapter.scopes:
            continue
        env: dict[str, str] = _Overrides(tmp_path / "elsewhere") if overrides else {}
        ctx = Context(home=Path(home), cwd=Path("/srv/project"), env=env, platform=platform)
        plan = adapter.plan(ctx.with_scope(GLOBAL), payload)
        targets = {op.path for op in plan.files} | {e.file for e in plan.entries}
        for target in sorted(targets):
            where = str(target.parent)
            if roots.refusal(where, dict(env), home) is None:
                unguarded.add(f"{adapter.name}: {where}")
    assert sorted(unguarded) == []
