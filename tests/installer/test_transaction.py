"""A run is a transaction: a failure after any write leaves the exact prior tree."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from helpers import build, snapshot, uninstall_claude
from msd_install.errors import ConcurrentChangeError, LockTimeoutError
from msd_install.installer import engine, lock
from msd_install.installer.context import GLOBAL, LOCAL, Context
from msd_install.installer.fs import InjectedFaultError, Transaction
from msd_install.payload import load
from msd_install.runtimes import ADAPTERS

SEED = {
    ".claude/settings.json": '{\n    "permissions": {"allow": ["Bash(ls)"]},\n'
    '    "statusLine": {"type": "command", "command": "mine"}\n}',
    ".claude/agents/mine.md": "---\nname: mine\ndescription: x\n---\nbody\n",
    ".claude.json": '{"numStartups": 1}\n',
}


def make_ctx(home: Path, scope: str = GLOBAL, cwd: Path | None = None) -> Context:
    return Context(
        home=home,
        cwd=cwd or home,
        env={},
        scope=scope,
        interpreter=Path(sys.executable),
        state_dir=home / ".state",
    )


def fault_at(k: int):
    def fault(n: int) -> None:
        if n == k:
            raise InjectedFaultError(f"fault at write {n}")

    return fault


def count_mutations(home: Path, ctx: Context, action: str) -> int:
    counted: list[int] = []
    if action == "install":
        engine.install(ADAPTERS["claude"].plan(ctx, load()), ctx, fault=counted.append)
    else:
        root = ADAPTERS["claude"].root(ctx)
        uninstall_claude(ctx, root, fault=counted.append)
    return len(counted)


@pytest.mark.parametrize("scope", [GLOBAL, LOCAL])
def test_install_failing_after_every_kth_write_leaves_the_tree(tmp_path: Path, scope: str) -> None:
    probe = tmp_path / "probe"
    build(probe, SEED)
    total = count_mutations(probe, make_ctx(probe, scope), "install")
    assert total > 50
    for k in _dense_sample(total):
        home = tmp_path / f"h{k}"
        build(home, SEED)
        before = snapshot(home)
        ctx = make_ctx(home, scope)
        with pytest.raises(InjectedFaultError):
            engine.install(ADAPTERS["claude"].plan(ctx, load()), ctx, fault=fault_at(k))
        assert snapshot(home) == before, f"tree differs after a fault at write {k} of {total}"


def test_uninstall_failing_after_every_kth_write_leaves_the_install(tmp_path: Path) -> None:
    probe = tmp_path / "probe"
    build(probe, SEED)
    ctx = make_ctx(probe)
    engine.install(ADAPTERS["claude"].plan(ctx, load()), ctx)
    total = count_mutations(probe, ctx, "uninstall")
    assert total > 50
    for k in _dense_sample(total):
        home = tmp_path / f"u{k}"
        build(home, SEED)
        hctx = make_ctx(home)
        engine.install(ADAPTERS["claude"].plan(hctx, load()), hctx)
        before = snapshot(home)
        with pytest.raises(InjectedFaultError):
            uninstall_claude(hctx, fault=fault_at(k))
        assert snapshot(home) == before, f"tree differs after a fault at write {k} of {total}"


# A user's config.toml (CRLF, comments, a server and tables of theirs after where ours goes)
# and config.yaml (anchors, an alias, a merge key, comments, a hook of theirs): the TOML and
# YAML editors under the same fault injection as Claude's JSON.
FORMAT_SEEDS = {
    "codex": {
        ".codex/config.toml": (
            '# my codex config\r\nmodel = "o3"  # pinned\r\n\r\n[mcp_servers.github]\r\n'
            'command = "gh-mcp"\r\nargs = ["--stdio"]\r\n\r\n[profiles.fast]\r\n'
            'model = "o4-mini"\r\n'
        ),
        ".codex/hooks.json": '{\n  "hooks": {\n    "PreToolUse": [\n      {"matcher": "Bash", '
        '"hooks": [{"type": "command", "command": "my-guard"}]}\n    ]\n  }\n}\n',
    },
    "hermes": {
        ".hermes/config.yaml": (
            '# Hermes config (hand-edited)\nmodel:\n  default: "anthropic/claude-x"  # quoted\n'
            "defaults: &defaults\n  timeout: 30\nmcp_servers:\n  github:\n    command: npx\n"
            "    <<: *defaults\n  # keep this comment\nhooks:\n  pre_tool_call:\n"
            "  - matcher: terminal\n    command: my-own-guard\nterminal: *defaults\n"
        ),
    },
}


def _install(runtime: str, ctx: Context, fault: Callable[[int], None] | None = None) -> None:
    engine.install(ADAPTERS[runtime].plan(ctx, load()), ctx, fault=fault)


def _uninstall(runtime: str, ctx: Context, fault: Callable[[int], None] | None = None) -> None:
    adapter = ADAPTERS[runtime]
    bounds = adapter.plan(ctx, load()).bounds
    engine.uninstall(runtime, ctx, adapter.root(ctx), bounds, fault=fault)


def _dense_sample(total: int) -> list[int]:
    """Fault points for the TOML/YAML runs: every one of the first 40 and last 20 operations
    (directories, the config edits and the manifest are there) and every third one between
    (the payload's file writes, alike): a third of the run time of every k."""
    return [k for k in range(1, total + 1) if k <= 40 or k > total - 20 or k % 3 == 0]


@pytest.mark.parametrize("runtime", list(FORMAT_SEEDS))
def test_toml_and_yaml_installs_failing_after_any_write_leave_the_tree(
    tmp_path: Path, runtime: str
) -> None:
    seed = FORMAT_SEEDS[runtime]
    probe = tmp_path / "probe"
    build(probe, seed)
    counted: list[int] = []
    _install(runtime, make_ctx(probe), counted.append)
    total = len(counted)
    assert total > 50
    for k in _dense_sample(total):
        home = tmp_path / f"h{k}"
        build(home, seed)
        before = snapshot(home)
        with pytest.raises(InjectedFaultError):
            _install(runtime, make_ctx(home), fault_at(k))
        assert snapshot(home) == before, f"{runtime}: tree differs after a fault at {k}/{total}"
        shutil.rmtree(home)


@pytest.mark.parametrize("runtime", list(FORMAT_SEEDS))
def test_toml_and_yaml_uninstalls_failing_after_any_write_leave_the_install(
    tmp_path: Path, runtime: str
) -> None:
    seed = FORMAT_SEEDS[runtime]
    probe = tmp_path / "probe"
    build(probe, seed)
    _install(runtime, make_ctx(probe))
    counted: list[int] = []
    _uninstall(runtime, make_ctx(probe), counted.append)
    total = len(counted)
    assert total > 50
    assert snapshot(probe) == {**snapshot_of(seed, tmp_path / "orig")}  # the round trip
    for k in _dense_sample(total):
        home = tmp_path / f"u{k}"
        build(home, seed)
        _install(runtime, make_ctx(home))
        before = snapshot(home)
        with pytest.raises(InjectedFaultError):
            _uninstall(runtime, make_ctx(home), fault_at(k))
        assert snapshot(home) == before, f"{runtime}: tree differs after a fault at {k}/{total}"
        shutil.rmtree(home)


def snapshot_of(seed: dict[str, str], where: Path) -> dict[str, object]:
    build(where, seed)
    return snapshot(where)


def test_keyboard_interrupt_rolls_back(tmp_path: Path) -> None:
    home = tmp_path / "h"
    build(home, SEED)
    before = snapshot(home)
    ctx = make_ctx(home)

    def interrupt(n: int) -> None:
        if n == 40:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        engine.install(ADAPTERS["claude"].plan(ctx, load()), ctx, fault=interrupt)
    assert snapshot(home) == before


def test_rollback_restores_mode_and_content_of_replaced_files(tmp_path: Path) -> None:
    target = tmp_path / "f.json"
    target.write_text("old")
    target.chmod(0o600)
    tx = Transaction()
    tx.write(target, b"new", None)
    assert target.read_text() == "new" and target.stat().st_mode & 0o777 == 0o600
    tx.rollback()
    assert target.read_text() == "old" and target.stat().st_mode & 0o777 == 0o600


def test_write_through_a_symlinked_config_keeps_the_link(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles/settings.json"
    real.parent.mkdir()
    real.write_text("{}")
    link = tmp_path / "settings.json"
    link.symlink_to(real)
    tx = Transaction()
    tx.write(link, b'{"a": 1}')
    tx.commit()
    assert link.is_symlink() and real.read_text() == '{"a": 1}'


def test_lock_held_by_another_run_times_out_cleanly(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    with lock.hold(root), pytest.raises(LockTimeoutError) as info, lock.hold(root, timeout=0.3):
        pass
    assert "another msd-install run" in info.value.one_line()
    assert list(root.iterdir()) == []  # the lock file leaves no trace


def test_a_config_file_changed_by_another_program_mid_run_is_not_overwritten(
    tmp_path: Path,
) -> None:
    """Claude Code rewrites ~/.claude.json at any time: our edit must never drop its write."""
    home = tmp_path / "h"
    build(home, SEED)
    state = home / ".claude.json"
    ctx = make_ctx(home)
    plan = ADAPTERS["claude"].plan(ctx, load())

    def other_program_writes(n: int) -> None:
        if n == 5:
            state.write_text('{"numStartups": 2}\n')

    before = snapshot(home)
    with pytest.raises(ConcurrentChangeError):
        engine.install(plan, ctx, fault=other_program_writes)
    after = snapshot(home)
    assert after.pop(".claude.json")[0] == b'{"numStartups": 2}\n'  # their write survives
    before.pop(".claude.json")
    assert after == before  # and everything else of this run was rolled back
