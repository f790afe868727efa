"""The cheap bounds (the adapter's plan over the payload's skeleton) equal the real ones.

An uninstall, ``doctor`` and a pack's plan check a manifest against ``core_bounds`` (runtimes/
bounds.py), which plans the payload's skeleton (payload/skeleton.py) instead of the whole
payload. Here, for every runtime and every scope it has, in contexts that move its roots and
config files (each config-dir variable alone and all together, ``--config-dir``, another
platform) and on disks where the files an adapter looks for are absent or present, the
skeleton's bounds equal ``runtime.plan(ctx, payload.load()).bounds()``; where the real plan
refuses a context, the cheap one refuses it with the same error.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

import pytest

from msd_install.installer.context import GLOBAL, Context
from msd_install.installer.plan import Bounds
from msd_install.payload import load
from msd_install.payload.skeleton import skeleton
from msd_install.runtimes import ADAPTERS
from msd_install.runtimes.bounds import core_bounds

# every variable an adapter reads a directory or file from (the runtime modules' env_path calls)
ENV = (
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "COPILOT_HOME",
    "OPENCODE_CONFIG_DIR",
    "KILO_CONFIG_DIR",
    "GEMINI_CLI_HOME",
    "HERMES_HOME",
    "QWEN_HOME",
    "CODEBUDDY_CONFIG_DIR",
    "KIMI_CODE_HOME",
    "CLINE_DIR",
    "CLINE_MCP_SETTINGS_PATH",
    "CLINE_DATA_DIR",
    "XDG_CONFIG_HOME",
    "APPDATA",
)


def _contexts(base: Path) -> list[tuple[str, Context]]:
    home, cwd = base / "home", base / "project"
    plain = Context(home=home, cwd=cwd, env={}, platform="linux", state_dir=base / "state")
    out = [("plain", plain)]
    for name in ENV:
        value = str(base / "env" / name.lower())
        if name == "CLINE_MCP_SETTINGS_PATH":
            value += "/mcp.json"
        out.append((name, Context(home=home, cwd=cwd, env={name: value}, state_dir=base)))
    every = {n: str(base / "all" / n.lower()) for n in ENV}
    out.append(("every variable", Context(home=home, cwd=cwd, env=every, state_dir=base)))
    out.append(("tilde", Context(home=home, cwd=cwd, env={n: "~/x" for n in ENV})))
    out.append(("--config-dir", Context(home=home, cwd=cwd, config_dir=base / "dir")))
    out.append(("darwin", Context(home=home, cwd=cwd, platform="darwin")))
    out.append(("win32", Context(home=home, cwd=cwd, platform="win32")))
    out.append(("forced", Context(home=home, cwd=cwd, force=True, force_statusline=True)))
    return out


def _answer(plan: Callable[[], Bounds]) -> object:
    """The bounds, or the refusal (type and text) where planning refuses the context."""
    try:
        return plan()
    except Exception as exc:  # a refusal must be the same refusal
        return (type(exc).__name__, str(exc))


def _populate(base: Path, ctx: Context, name: str) -> None:
    """Make every file and folder the real bounds name, and every overridden directory:
    adapters choose between candidates that exist (CodeBuddy's MCP files, OpenCode's
    ``opencode.json``/``.jsonc``, a ``CODEX_HOME`` folder)."""
    adapter = ADAPTERS[name]
    real = adapter.plan(ctx, load()).bounds()
    for path in (*real.config_files, *real.state_files):
        if path.is_relative_to(base):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("{}\n")
    for value in ctx.env.values():
        path = Path(value)
        if path.is_absolute() and path.is_relative_to(base) and path.suffix != ".json":
            path.mkdir(parents=True, exist_ok=True)
    root = adapter.root(ctx)
    if root.is_relative_to(base):
        root.mkdir(parents=True, exist_ok=True)
        for other in ("opencode.json", "opencode.jsonc", "kilo.json", "kilo.jsonc", "mcp.json"):
            (root / other).write_text("{}\n")


@pytest.mark.parametrize("name", list(ADAPTERS))
@pytest.mark.parametrize("disk", ["empty", "populated"])
def test_skeleton_bounds_equal_the_whole_plans(name: str, disk: str, tmp_path: Path) -> None:
    adapter = ADAPTERS[name]
    compared = 0
    for label, ctx in _contexts(tmp_path):
        for scope in adapter.scopes:
            here = ctx.with_scope(scope)
            if scope != GLOBAL and here.config_dir is not None:
                continue  # --config-dir is refused with --local before any plan
            if disk == "populated":
                # where planning refuses this context, the refusals are compared below
                with contextlib.suppress(Exception):
                    _populate(tmp_path, here, name)
            real = _answer(lambda c=here: adapter.plan(c, load()).bounds())
            cheap = _answer(lambda c=here: core_bounds(adapter, c))
            assert cheap == real, f"{name} {scope} ({label}, {disk} disk)"
            compared += 1
            if not isinstance(real, tuple):  # the bounds name real files, not nothing
                assert real.state_files or real.config_files, f"{name} {scope} ({label})"
    assert compared >= len(_contexts(tmp_path))


def test_the_skeleton_has_every_hook_and_one_of_each_other_kind() -> None:
    """Its hooks are the payload's (names, events, matchers, helpers), without bytes; one
    command, agent and skill, the first of each; the engine's file names, no bytes."""
    full, bare = load(), skeleton()

    def shape(h: object) -> tuple[object, ...]:
        return tuple(getattr(h, f) for f in ("name", "script", "event", "matcher", "timeout"))

    assert [shape(h) for h in bare.hooks] == [shape(h) for h in full.hooks]
    assert [h.requires for h in bare.hooks] == [h.requires for h in full.hooks]
    assert all(h.content == b"" or h.event for h in bare.hooks)
    assert bare.commands == full.commands[:1]
    assert bare.agents == full.agents[:1]
    assert bare.skills == full.skills[:1]
    assert [f.relpath for f in bare.core] == [f.relpath for f in full.core]
    assert all(f.content == b"" for f in bare.core)
