"""Adversarial review of the user's tuning of our entries (issue 10.3): what a user does to our
entries in their files (their own hook built into our group, a hook pointed elsewhere, edits
before and after an upgrade) and what a manifest written by the previous version holds (no
``value`` base), through the real engine and CLI in temp homes."""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from helpers import build, run_cli
from msd_install.installer import engine
from msd_install.installer.context import GLOBAL, Context
from msd_install.installer.manifestcheck import MANIFEST_NAME
from msd_install.installer.plan import Plan
from msd_install.payload import load
from msd_install.runtimes import ADAPTERS

SETTINGS = '{\n  "model": "opus",\n  "permissions": {"allow": ["Bash(ls)"]}\n}\n'
GUARD = "msd-secret-read-guard"


@pytest.fixture()
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    build(h, {".claude/settings.json": SETTINGS, ".claude.json": '{\n  "numStartups": 2\n}\n'})
    return h


def ctx_for(home: Path) -> Context:
    return Context(
        home=home, cwd=home, env={}, scope=GLOBAL, interpreter=Path(sys.executable),
        state_dir=home / ".local/state/msd",
    )  # fmt: skip


def plan_of(runtime: str, ctx: Context) -> Plan:
    return ADAPTERS[runtime].plan(ctx, load())


def upgraded(plan: Plan, label: str, change: Any) -> Plan:
    entries = tuple(
        replace(e, value=change(json.loads(json.dumps(e.value)))) if e.label == label else e
        for e in plan.entries
    )
    assert entries != plan.entries
    return replace(plan, entries=entries)


def uninstall(runtime: str, ctx: Context) -> None:
    adapter = ADAPTERS[runtime]
    engine.uninstall(runtime, ctx, adapter.root(ctx), lambda: plan_of(runtime, ctx).bounds())


def as_previous_version(ctx: Context, root: Path) -> None:
    """The manifest as the version before the tuning wrote it (no ``value``/``ours``), still
    the user's own: the registry records its digest."""
    path = root / MANIFEST_NAME
    doc = json.loads(path.read_text())
    for rec in doc["config"]:
        rec["ops"] = [
            {k: v for k, v in op.items() if k not in ("value", "ours")} for op in rec["ops"]
        ]
    raw = (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode()
    path.write_bytes(raw)
    registry = ctx.state_dir / "manifests.json"
    reg = json.loads(registry.read_text())
    reg["roots"][str(root.resolve())] = hashlib.sha256(raw).hexdigest()
    registry.write_text(json.dumps(reg, indent=2, sort_keys=True) + "\n")


def our_group(path: Path) -> dict[str, Any]:
    groups = json.loads(path.read_text())["hooks"]["PreToolUse"]
    group: dict[str, Any] = next(g for g in groups if GUARD in json.dumps(g))
    return group


def test_upgrade_from_a_manifest_without_base_keeps_the_users_hook_in_our_group(
    home: Path,
) -> None:
    """The user added a hook of their own to our group under the previous version; an upgrade
    that changes our hook must not take the user's hook as part of a "tuning" of ours, which
    uninstall then removes with our entry."""
    ctx = ctx_for(home)
    path = home / ".claude/settings.json"
    engine.install(plan_of("claude", ctx), ctx)
    as_previous_version(ctx, home / ".claude")
    doc = json.loads(path.read_text())
    group = next(g for g in doc["hooks"]["PreToolUse"] if GUARD in json.dumps(g))
    group["hooks"].append({"type": "command", "command": "echo MINE"})
    path.write_text(json.dumps(doc, indent=2) + "\n")

    def change(value: Any) -> Any:
        value["hooks"][0]["timeout"] = 30
        return value

    engine.install(upgraded(plan_of("claude", ctx), f"hook {GUARD}", change), ctx)
    uninstall("claude", ctx)
    left = json.loads(path.read_text())
    commands = [h["command"] for g in left["hooks"]["PreToolUse"] for h in g["hooks"]]
    assert commands == ["echo MINE"]


def kept_details(result: Any) -> list[str]:
    return [a.detail for a in result.actions if a.verb == "kept"]


def test_a_later_upgrade_that_changes_a_leaf_the_user_tuned_says_so(home: Path) -> None:
    """Reported once is once per news: the tuning was recorded on a plain reinstall; a later
    version changing the same leaf is new, and the user hears that theirs still wins."""
    ctx = ctx_for(home)
    path = home / ".claude/settings.json"
    engine.install(plan_of("claude", ctx), ctx)
    path.write_text(path.read_text().replace('"timeout": 10', '"timeout": 99', 1))
    first = engine.install(plan_of("claude", ctx), ctx)
    assert len(kept_details(first)) == 1
    assert kept_details(engine.install(plan_of("claude", ctx), ctx)) == []
    tuned = next(
        g for e in json.loads(path.read_text())["hooks"].values() for g in e
        if g["hooks"][0]["timeout"] == 99
    )  # fmt: skip
    label = next(e.label for e in plan_of("claude", ctx).entries if e.marker and
                 e.marker == tuned["hooks"][0]["command"])  # fmt: skip

    def change(value: Any) -> Any:
        value["hooks"][0]["timeout"] = 30
        return value

    result = engine.install(upgraded(plan_of("claude", ctx), label, change), ctx)
    assert kept_details(result) == [f"{label}: your timeout 99 (this version's: 30) kept"]
    again = engine.install(upgraded(plan_of("claude", ctx), label, change), ctx)
    assert kept_details(again) == [] and not again.drift
    assert "99" in json.dumps(our_group_of(path, tuned["hooks"][0]["command"]))


def our_group_of(path: Path, command: str) -> dict[str, Any]:
    doc = json.loads(path.read_text())
    group: dict[str, Any] = next(
        g for e in doc["hooks"].values() for g in e if g["hooks"][0]["command"] == command
    )
    return group


def test_a_tuned_hook_later_pointed_at_the_users_script_stays_theirs(home: Path) -> None:
    ctx = ctx_for(home)
    path = home / ".claude/settings.json"
    pre = path.read_bytes()
    engine.install(plan_of("claude", ctx), ctx)
    path.write_text(path.read_text().replace('"timeout": 10', '"timeout": 99', 1))
    engine.install(plan_of("claude", ctx), ctx)  # the tuning recorded
    doc = json.loads(path.read_text())
    tuned = next(g for e in doc["hooks"].values() for g in e if g["hooks"][0]["timeout"] == 99)
    command = tuned["hooks"][0]["command"]
    path.write_text(path.read_text().replace(json.dumps(command), '"bash ~/mine.sh"', 1))
    engine.install(plan_of("claude", ctx), ctx)
    uninstall("claude", ctx)
    left = json.loads(path.read_text())
    assert [g["hooks"][0]["command"] for e in left["hooks"].values() for g in e] == [
        "bash ~/mine.sh"
    ]
    assert json.loads(pre)["model"] == left["model"]


def test_the_kept_note_never_prints_a_control_character_of_the_users_file(home: Path) -> None:
    """The note quotes the user's key and value: an ESC or a C1 CSI in them would drive the
    terminal (a project's config arrives with a pull)."""
    assert run_cli(["--claude", "--global", "--yes"], home).returncode == 0
    path = home / ".claude.json"
    text = path.read_text()
    path.write_text(
        text.replace('"env": {', '"env": {\n"\\u001b]0;x\\u0007\\u009b2J": "\\u009b31m",', 1)
    )
    proc = run_cli(["--claude", "--global", "--yes"], home)
    assert proc.returncode == 0, proc.stderr
    (line,) = [ln for ln in proc.stdout.splitlines() if ln.startswith("  kept")]
    assert not any(c in line for c in "\x1b\x07\x9b"), line
    assert "\\u001b]0;x\\u0007\\u009b2J" in line


def test_doctor_does_not_call_a_hook_built_into_our_group_a_kept_tuning(home: Path) -> None:
    """doctor says what the next run does: msd's part registered anew, not "your tuning is
    kept" (which --check and the reinstall then contradict)."""
    assert run_cli(["--claude", "--global", "--yes"], home).returncode == 0
    path = home / ".claude/settings.json"
    doc = json.loads(path.read_text())
    group = next(g for g in doc["hooks"]["PreToolUse"] if GUARD in json.dumps(g))
    group["hooks"].append({"type": "command", "command": "echo mine"})
    path.write_text(json.dumps(doc, indent=2) + "\n")
    proc = run_cli(["doctor"], home)
    assert proc.returncode == 0, proc.stdout
    assert "your tuning is kept" not in proc.stdout
    assert f"hook {GUARD}: changed by you: what you added stays yours" in proc.stdout
    install = run_cli(["--claude", "--global", "--yes"], home)
    assert "msd's part is registered anew" in install.stdout
