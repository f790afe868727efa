"""A rollback that itself fails is reported as exit 4 with the failure that started it and
what could not be put back, never as an internal error (issue 10, point 10)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from helpers import build, uninstall_claude
from msd_install.errors import FileAccessError
from msd_install.installer import engine
from msd_install.installer.context import GLOBAL, Context
from msd_install.installer.fs import InjectedFaultError
from msd_install.payload import load
from msd_install.runtimes import ADAPTERS


def ctx_for(home: Path) -> Context:
    return Context(
        home=home,
        cwd=home,
        scope=GLOBAL,
        interpreter=Path(sys.executable),
        state_dir=home / ".local/state/msd",
    )


def sabotage_then_fail(config: Path) -> Callable[[int], None]:
    """At the second change: put a non-empty directory where the first change (the config
    edit) must be undone, then fail. The rollback cannot put that file back."""

    def fault(n: int) -> None:
        if n == 2:
            config.unlink()
            (config / "in-the-way").mkdir(parents=True)
            raise InjectedFaultError("disk on fire at change 2")

    return fault


def test_a_failed_uninstall_rollback_is_exit_4_with_the_real_cause(tmp_path: Path) -> None:
    home = tmp_path / "home"
    build(home, {".claude/settings.json": '{"theme": "dark"}\n'})
    ctx = ctx_for(home)
    engine.install(ADAPTERS["claude"].plan(ctx, load()), ctx)
    config = home / ".claude/settings.json"
    with pytest.raises(FileAccessError) as err:
        uninstall_claude(ctx, fault=sabotage_then_fail(config))
    assert err.value.exit_code == 4
    line = err.value.one_line()
    assert line.startswith("disk on fire at change 2; rolling back failed too (")
    assert "settings.json" in line and "some changes of this run may remain" in line
    assert "\n" not in line
    assert isinstance(err.value.__cause__, InjectedFaultError)


def test_a_failed_install_rollback_is_exit_4_too(tmp_path: Path) -> None:
    home = tmp_path / "home"
    build(home, {".claude/settings.json": '{"theme": "dark"}\n'})
    ctx = ctx_for(home)
    config = home / ".claude/settings.json"

    def fault(n: int) -> None:
        if config.is_file() and config.read_bytes() != b'{"theme": "dark"}\n':  # edited
            sabotage_then_fail(config)(2)

    with pytest.raises(FileAccessError) as err:
        engine.install(ADAPTERS["claude"].plan(ctx, load()), ctx, fault=fault)
    assert err.value.exit_code == 4
    assert err.value.one_line().startswith("disk on fire at change 2; rolling back failed too")
