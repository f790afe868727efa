"""Review: the user edits their config between install and uninstall (or reinstall).

Uninstall must keep every addition of the user's and never delete what is not ours; a
reinstall must not write when nothing of ours is missing; an upgrade (a plan that differs from
the manifest's) keeps the user's data. Real CLI with HOME in a temp dir, except where a
different plan (an upgrade) must be built in-process.
"""

from __future__ import annotations

import json
import shlex
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from helpers import build, run_cli, snapshot, uninstall_claude
from msd_install.installer import engine
from msd_install.installer.context import GLOBAL, Context
from msd_install.installer.fs import InjectedFaultError
from msd_install.payload import load
from msd_install.runtimes import ADAPTERS

INSTALL = ["--claude", "--global", "--yes"]
UNINSTALL = [*INSTALL, "--uninstall"]
ORIGINAL = '{\n  "permissions": {"allow": ["Bash(ls)"]}\n}\n'
MINE = {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo mine"}]}


@pytest.fixture()
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    build(h, {".claude/settings.json": ORIGINAL, ".claude.json": '{"numStartups": 2}\n'})
    return h


def settings_path(home: Path) -> Path:
    return home / ".claude/settings.json"


def load_settings(home: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(settings_path(home).read_text())
    return doc


def save_settings(home: Path, doc: dict[str, Any]) -> None:
    """What an editor (or Claude Code's /hooks UI) does: rewrite the whole file."""
    settings_path(home).write_text(json.dumps(doc, indent=2) + "\n")


def commands(doc: dict[str, Any]) -> list[str]:
    return [
        h["command"] for groups in doc.get("hooks", {}).values() for g in groups for h in g["hooks"]
    ]


def script_of(command: str) -> Path:
    return Path(shlex.split(command)[-1])


def install_ok(home: Path, *extra: str) -> None:
    proc = run_cli([*INSTALL, *extra], home)
    assert proc.returncode == 0, proc.stderr


def uninstall_ok(home: Path) -> None:
    proc = run_cli(UNINSTALL, home)
    assert proc.returncode == 0, proc.stderr


def test_user_adds_keys_after_ours_then_uninstall_keeps_exactly_theirs(home: Path) -> None:
    install_ok(home)
    text = settings_path(home).read_text()
    assert text.endswith("\n}\n")
    settings_path(home).write_text(text[: -len("\n}\n")] + ',\n  "model": "opus"\n}\n')
    uninstall_ok(home)
    assert settings_path(home).read_text() == (
        '{\n  "permissions": {"allow": ["Bash(ls)"]},\n  "model": "opus"\n}\n'
    )


def test_user_adds_hooks_to_containers_we_created_and_keeps_them(home: Path) -> None:
    install_ok(home)
    doc = load_settings(home)
    doc["hooks"]["PreToolUse"].append(MINE)  # an array we created
    doc["hooks"]["Stop"] = [MINE]  # a new event inside the "hooks" object we created
    save_settings(home, doc)
    uninstall_ok(home)
    assert load_settings(home) == {
        "permissions": {"allow": ["Bash(ls)"]},
        "hooks": {"PreToolUse": [MINE], "Stop": [MINE]},
    }


def test_user_reorders_our_groups_and_theirs_then_uninstall_removes_only_ours(home: Path) -> None:
    install_ok(home)
    doc = load_settings(home)
    doc["hooks"]["PreToolUse"] = [MINE, *reversed(doc["hooks"]["PreToolUse"])]
    doc = {"hooks": doc["hooks"], **{k: v for k, v in doc.items() if k != "hooks"}}
    save_settings(home, doc)
    uninstall_ok(home)
    assert load_settings(home) == {
        "hooks": {"PreToolUse": [MINE]},
        "permissions": {"allow": ["Bash(ls)"]},
    }


def test_user_deletes_our_entries_then_uninstall_changes_nothing_else(home: Path) -> None:
    install_ok(home)
    doc = load_settings(home)
    del doc["hooks"]
    del doc["statusLine"]
    save_settings(home, doc)
    edited = settings_path(home).read_bytes()
    claude_json = json.loads((home / ".claude.json").read_text())
    del claude_json["mcpServers"]["msd"]
    (home / ".claude.json").write_text(json.dumps(claude_json))
    uninstall_ok(home)
    assert settings_path(home).read_bytes() == edited
    assert json.loads((home / ".claude.json").read_text()) == {"numStartups": 2}
    assert not (home / ".claude/hooks").exists()


def test_user_changes_our_mcp_server_and_uninstall_still_takes_it_away(home: Path) -> None:
    """Lead's decision: an entry that still runs our launcher is useless once uninstall removed
    the launcher (a server that fails on every start), so it goes, and the report says so."""
    install_ok(home)
    claude_json = json.loads((home / ".claude.json").read_text())
    claude_json["mcpServers"]["msd"]["env"]["EXTRA"] = "1"
    (home / ".claude.json").write_text(json.dumps(claude_json, indent=2))
    proc = run_cli([*UNINSTALL, "--json"], home)
    assert proc.returncode == 0
    assert "msd" not in json.loads((home / ".claude.json").read_text()).get("mcpServers", {})
    assert "changed by you, but it runs msd's files" in proc.stdout


def test_claude_code_reformatting_our_files_does_not_hide_our_entries(home: Path) -> None:
    """Claude Code rewrites ~/.claude.json (and /hooks rewrites settings.json) in its own style."""
    install_ok(home)
    for path in (settings_path(home), home / ".claude.json"):
        doc = json.loads(path.read_text())
        path.write_text(json.dumps(doc, indent=4, ensure_ascii=True))
    uninstall_ok(home)
    assert load_settings(home) == {"permissions": {"allow": ["Bash(ls)"]}}
    assert json.loads((home / ".claude.json").read_text()) == {"numStartups": 2}


def test_reinstall_after_user_appends_their_own_group_writes_nothing(home: Path) -> None:
    install_ok(home)
    doc = load_settings(home)
    doc["hooks"]["PreToolUse"].append(MINE)
    save_settings(home, doc)
    before = snapshot(home, stat=True)
    install_ok(home)
    assert snapshot(home, stat=True) == before


def test_dry_run_and_check_write_nothing_after_user_edits(home: Path) -> None:
    install_ok(home)
    doc = load_settings(home)
    doc["hooks"]["PreToolUse"].pop(0)  # drift: one of ours is gone
    save_settings(home, doc)
    before = snapshot(home, stat=True)
    assert run_cli([*INSTALL, "--dry-run"], home).returncode == 0
    assert run_cli([*INSTALL, "--check"], home).returncode == 1
    assert run_cli([*UNINSTALL, "--dry-run"], home).returncode == 0
    assert snapshot(home, stat=True) == before


# --- in-process: an upgrade is a plan that differs from the manifest ---------------------------


def ctx_for(home: Path, interpreter: str = sys.executable, **kw: Any) -> Context:
    return Context(
        home=home,
        cwd=home,
        env={},
        scope=GLOBAL,
        interpreter=Path(interpreter),
        state_dir=home / ".state",
        **kw,
    )


def test_upgrade_with_new_interpreter_keeps_user_additions_and_round_trips(home: Path) -> None:
    ctx = ctx_for(home)
    engine.install(ADAPTERS["claude"].plan(ctx, load()), ctx)
    doc = load_settings(home)
    doc["hooks"]["PreToolUse"].append(MINE)
    doc["model"] = "opus"
    save_settings(home, doc)
    new = ctx_for(home, "/opt/python3/bin/python3")  # e.g. the user moved to a new Python
    engine.install(ADAPTERS["claude"].plan(new, load()), new)
    after = load_settings(home)
    assert all("/opt/python3/bin/python3" in c for c in commands(after) if "msd-" in c)
    assert MINE in after["hooks"]["PreToolUse"] and after["model"] == "opus"
    uninstall_claude(new)
    assert load_settings(home) == {
        "permissions": {"allow": ["Bash(ls)"]},
        "hooks": {"PreToolUse": [MINE]},
        "model": "opus",
    }


def test_an_interrupted_upgrade_leaves_the_exact_prior_tree(tmp_path: Path) -> None:
    def setup(home: Path) -> None:
        build(
            home,
            {
                ".claude/settings.json": '{"statusLine": {"type": "command", "command": "x"}}',
                ".claude/agents/msd-planner.md": "mine\n",
                ".claude.json": '{"mcpServers": {"msd": {"command": "mine"}}}',
            },
        )
        forced = ctx_for(home, force=True, force_statusline=True)
        engine.install(ADAPTERS["claude"].plan(forced, load()), forced)
        (home / ".claude/skills/msd-help/SKILL.md").write_text("edited\n")

    def upgrade(home: Path, fault: Any) -> None:
        ctx = ctx_for(home, "/usr/bin/python3")
        plan = ADAPTERS["claude"].plan(ctx, load())
        plan = replace(plan, files=tuple(f for f in plan.files if f.path.name != "msd-debugger.md"))
        engine.install(plan, ctx, fault=fault)

    probe = tmp_path / "probe"
    setup(probe)
    counted: list[int] = []
    upgrade(probe, counted.append)
    assert len(counted) >= 5
    for k in range(1, len(counted) + 1):
        home = tmp_path / f"h{k}"
        setup(home)
        before = snapshot(home)

        def fault(n: int, k: int = k) -> None:
            if n == k:
                raise InjectedFaultError(f"fault at {n}")

        with pytest.raises(InjectedFaultError):
            upgrade(home, fault)
        assert snapshot(home) == before, f"tree differs after a fault at mutation {k}"


# --- bugs ------------------------------------------------------------------------------------


def test_user_adds_a_hook_inside_our_group_uninstall_removes_only_our_command(
    home: Path,
) -> None:
    install_ok(home)
    doc = load_settings(home)
    doc["hooks"]["PreToolUse"][0]["hooks"].append({"type": "command", "command": "echo mine"})
    save_settings(home, doc)
    uninstall_ok(home)
    after = load_settings(home)
    assert "echo mine" in commands(after)  # theirs is kept
    dangling = [c for c in commands(after) if "msd-" in c and not script_of(c).exists()]
    assert dangling == []  # and no hook is left registered whose script uninstall deleted


def test_reinstall_after_user_tweaks_our_hook_does_not_register_it_twice(home: Path) -> None:
    install_ok(home)
    doc = load_settings(home)
    group = doc["hooks"]["PreToolUse"][0]
    script = script_of(group["hooks"][0]["command"])
    group["hooks"][0]["timeout"] = 30
    save_settings(home, doc)
    install_ok(home)
    registered = [c for c in commands(load_settings(home)) if script_of(c) == script]
    assert len(registered) == 1, registered


def test_reinstall_writes_nothing_when_a_user_group_equals_ours(tmp_path: Path) -> None:
    probe = tmp_path / "probe"
    probe.mkdir()
    install_ok(probe)
    ours = load_settings(probe)["hooks"]["PreToolUse"][0]
    home = tmp_path / "home"
    text = json.dumps(ours).replace(str(probe), str(home))
    build(home, {".claude/settings.json": '{"hooks": {"PreToolUse": [' + text + "]}}\n"})
    install_ok(home)
    doc = load_settings(home)
    doc["hooks"]["PreToolUse"].append(MINE)
    save_settings(home, doc)
    before = snapshot(home, stat=True)
    install_ok(home)
    assert snapshot(home, stat=True) == before


def test_forced_statusline_outcome_of_a_reinstall_does_not_depend_on_unrelated_drift(
    tmp_path: Path,
) -> None:
    outcome = {}
    for case in ("no-drift", "drift"):
        home = tmp_path / case
        build(
            home, {".claude/settings.json": '{"statusLine": {"type": "command", "command": "x"}}'}
        )
        install_ok(home, "--force-statusline")
        if case == "drift":
            doc = load_settings(home)
            doc["hooks"]["SessionStart"].pop()  # the user removes one of our hooks
            save_settings(home, doc)
        install_ok(home)  # reinstall, without the flag
        outcome[case] = "msd-statusline" in load_settings(home)["statusLine"]["command"]
    assert outcome["drift"] == outcome["no-drift"] is True, outcome
