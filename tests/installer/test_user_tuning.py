"""The user's tuning of our config entries (issue 10.3): kept on reinstall and upgrade, reported
once, not drift, still removed by uninstall, every other byte given back.

Real files in temp homes through the CLI (Claude settings.json and ~/.claude.json, Codex
config.toml, Hermes config.yaml); an upgrade is a plan whose entry values differ, built
in-process like the other upgrade tests.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from helpers import build, run_cli
from msd_install.installer import engine
from msd_install.installer.context import GLOBAL, Context
from msd_install.installer.plan import Plan
from msd_install.installer.yamledit import YamlDocument
from msd_install.payload import load
from msd_install.runtimes import ADAPTERS

SETTINGS = '{\n  "model": "opus",\n  "permissions": {"allow": ["Bash(ls)"]}\n}\n'
CLAUDE_JSON = '{\n  "numStartups": 2\n}\n'
CODEX = '# my codex\nmodel = "o3"\n\n[profiles.fast]\nmodel = "o4-mini"\n'
HERMES = "# my hermes\nmodel: opus\nhooks:\n  on_start:\n    - command: echo hi\n"
GUARD = "msd-secret-read-guard"


def flags(runtime: str, *extra: str) -> list[str]:
    return [f"--{runtime}", "--global", "--yes", *extra]


@pytest.fixture()
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    build(
        h,
        {
            ".claude/settings.json": SETTINGS,
            ".claude.json": CLAUDE_JSON,
            ".codex/config.toml": CODEX,
            ".hermes/config.yaml": HERMES,
        },
    )
    return h


def edit(path: Path, fn: Callable[[str], str]) -> None:
    """What a user does in an editor: change a few characters, keep the rest of the file."""
    before = path.read_text()
    after = fn(before)
    assert after != before
    path.write_text(after)


def after_script(text: str, script: str, old: str, new: str) -> str:
    """Replace the first ``old`` after the line naming ``script`` (our hook's own fields)."""
    at = text.index(f"{script}.py")
    return text[:at] + text[at:].replace(old, new, 1)


def matcher_before(text: str, script: str, new: str) -> str:
    """Change the matcher of the group that holds ``script`` (it comes before the command)."""
    at = text.index(f"{script}.py")
    start = text.rindex('"matcher": "', 0, at)
    end = text.index('"', start + len('"matcher": "'))
    return text[:start] + f'"matcher": "{new}' + text[end:]


def install_json(home: Path, runtime: str) -> dict[str, Any]:
    proc = run_cli(flags(runtime, "--json"), home)
    assert proc.returncode == 0, proc.stderr
    doc: dict[str, Any] = json.loads(proc.stdout)
    return doc


def kept(doc: dict[str, Any]) -> list[str]:
    return [a["detail"] for r in doc["results"] for a in r["actions"] if a["verb"] == "kept"]


def check(home: Path, runtime: str) -> dict[str, Any]:
    proc = run_cli(flags(runtime, "--check", "--json"), home)
    assert proc.returncode == 0, proc.stdout + proc.stderr  # the user's tuning is not drift
    doc: dict[str, Any] = json.loads(proc.stdout)
    return doc


def doctor_healthy(home: Path, runtime: str) -> None:
    proc = run_cli(["doctor", "--json"], home)
    doc = json.loads(proc.stdout)
    (report,) = [r for r in doc["installs"] if r["runtime"] == runtime and r["installed"]]
    assert report["healthy"], report["findings"]


def round_trip(
    home: Path, runtime: str, file: Path, tune: Callable[[str], str], notes: list[str]
) -> None:
    """install, tune, --check, reinstall twice, doctor, uninstall: the whole journey."""
    pre = file.read_bytes() if file.exists() else None
    assert run_cli(flags(runtime), home).returncode == 0
    edit(file, tune)
    tuned = file.read_bytes()
    assert sorted(kept(check(home, runtime))) == sorted(notes)  # seen, not drift
    doctor = run_cli(["doctor"], home)
    assert doctor.returncode == 0 and "your tuning is kept" in doctor.stdout, doctor.stdout
    first = install_json(home, runtime)
    assert sorted(kept(first)) == sorted(notes)
    assert file.read_bytes() == tuned  # nothing of ours changed: not one byte written
    second = install_json(home, runtime)
    assert kept(second) == []  # reported once
    assert not check(home, runtime)["results"][0]["drift"] and kept(check(home, runtime)) == []
    doctor_healthy(home, runtime)
    assert file.read_bytes() == tuned
    proc = run_cli(flags(runtime, "--uninstall"), home)
    assert proc.returncode == 0, proc.stderr
    assert (file.read_bytes() if file.exists() else None) == pre


def test_claude_hook_timeout_and_matcher_tuned(home: Path) -> None:
    def tune(text: str) -> str:
        text = after_script(text, GUARD, '"timeout": 10', '"timeout": 99')
        return matcher_before(text, "msd-validate-commit", "Bash|Task")

    notes = [
        f"hook {GUARD}: your timeout 99 kept",
        'hook msd-validate-commit: your matcher "Bash|Task" kept',
    ]
    round_trip(home, "claude", home / ".claude/settings.json", tune, notes)


def test_claude_mcp_server_env_var_added_and_changed(home: Path) -> None:
    def tune(text: str) -> str:
        text = re.sub(r'"MSD_AUDIT_LOG": "[^"]*"', '"MSD_AUDIT_LOG": "/var/log/mine.jsonl"', text)
        return text.replace('"env": {', '"env": {\n        "EXTRA": "1",', 1)

    notes = ['MCP server msd: your EXTRA "1", MSD_AUDIT_LOG "/var/log/mine.jsonl" kept']
    round_trip(home, "claude", home / ".claude.json", tune, notes)


def test_codex_mcp_server_timeout_and_env_tuned(home: Path) -> None:
    def tune(text: str) -> str:
        text = text.replace("env = {", 'tool_timeout_sec = 120\nenv = {MY_VAR = "x", ', 1)
        return text

    notes = ['MCP server msd: your tool_timeout_sec 120, MY_VAR "x" kept']
    round_trip(home, "codex", home / ".codex/config.toml", tune, notes)


def test_hermes_hook_timeout_and_server_env_tuned(home: Path) -> None:
    def tune(text: str) -> str:
        text = after_script(text, GUARD, "timeout: 10", "timeout: 99")
        return re.sub(r"(\n +)MSD_AUDIT_LOG:", r'\1HERMES_X: "1"\1MSD_AUDIT_LOG:', text, count=1)

    notes = [f"hook {GUARD}: your timeout 99 kept", 'MCP server msd: your HERMES_X "1" kept']
    round_trip(home, "hermes", home / ".hermes/config.yaml", tune, notes)


def test_text_output_names_the_kept_tuning(home: Path) -> None:
    assert run_cli(flags("claude"), home).returncode == 0
    edit(home / ".claude/settings.json", lambda t: after_script(t, GUARD, ": 10", ": 99"))
    proc = run_cli(flags("claude"), home)
    line = f"  kept      ~/.claude/settings.json  (hook {GUARD}: your timeout 99 kept)"
    assert line in proc.stdout.splitlines() and "takes away" not in proc.stdout
    proc = run_cli(flags("claude", "--check"), home)
    assert proc.returncode == 0 and "check: ok" in proc.stdout


def test_a_hook_pointed_at_the_users_own_script_is_theirs(home: Path) -> None:
    """Identity lost (the marker changed): it is the user's, as before; ours comes back."""
    pre = (home / ".claude/settings.json").read_bytes()
    assert run_cli(flags("claude"), home).returncode == 0
    path = home / ".claude/settings.json"
    edit(
        path,
        lambda t: re.sub(
            r'"command": "[^\n]*msd-secret-read-guard\.py\\""', '"command": "mine.sh"', t
        ),
    )
    proc = run_cli(flags("claude"), home)
    assert proc.returncode == 0 and "kept " not in proc.stdout
    doc = json.loads(path.read_text())
    commands = [h["command"] for g in doc["hooks"]["PreToolUse"] for h in g["hooks"]]
    assert "mine.sh" in commands and any(f"{GUARD}.py" in c for c in commands)
    assert run_cli(flags("claude", "--uninstall"), home).returncode == 0
    left = json.loads(path.read_text())
    assert [h["command"] for g in left["hooks"]["PreToolUse"] for h in g["hooks"]] == ["mine.sh"]
    assert pre != path.read_bytes()


def test_reinstall_after_the_user_built_into_our_group_does_not_say_takes_away(
    home: Path,
) -> None:
    """A hook of the user's inside our group is not a tuning: ours is registered anew, theirs
    stays, and the report no longer claims this run takes msd's files away."""
    assert run_cli(flags("claude"), home).returncode == 0
    path = home / ".claude/settings.json"
    doc = json.loads(path.read_text())
    group = next(g for g in doc["hooks"]["PreToolUse"] if GUARD in json.dumps(g))
    group["hooks"].append({"type": "command", "command": "echo mine"})
    path.write_text(json.dumps(doc, indent=2) + "\n")
    proc = run_cli(flags("claude"), home)
    assert proc.returncode == 0 and "takes away" not in proc.stdout
    assert "msd's part is registered anew" in proc.stdout
    after = json.loads(path.read_text())
    commands = [h["command"] for g in after["hooks"]["PreToolUse"] for h in g["hooks"]]
    assert "echo mine" in commands and sum(f"{GUARD}.py" in c for c in commands) == 1
    assert run_cli(flags("claude", "--check"), home).returncode == 0


# --- upgrades: a plan whose entry values differ from the recorded ones ---------------------


def ctx_for(home: Path) -> Context:
    return Context(
        home=home, cwd=home, env={}, scope=GLOBAL, interpreter=Path(sys.executable),
        state_dir=home / ".local/state/msd",
    )  # fmt: skip


def plan_of(runtime: str, ctx: Context) -> Plan:
    return ADAPTERS[runtime].plan(ctx, load())


def upgraded(plan: Plan, label: str, change: Callable[[Any], Any]) -> Plan:
    """The same plan with one entry's value changed, as a new version would ship it."""
    entries = tuple(
        replace(e, value=change(json.loads(json.dumps(e.value)))) if e.label == label else e
        for e in plan.entries
    )
    assert entries != plan.entries
    return replace(plan, entries=entries)


def uninstall(runtime: str, ctx: Context) -> None:
    adapter = ADAPTERS[runtime]
    engine.uninstall(runtime, ctx, adapter.root(ctx), lambda: plan_of(runtime, ctx).bounds())


def kept_details(result: Any) -> list[str]:
    return [a.detail for a in result.actions if a.verb == "kept"]


def test_upgrade_applies_ours_to_untouched_fields_and_keeps_theirs_claude(home: Path) -> None:
    ctx = ctx_for(home)
    path = home / ".claude/settings.json"
    pre = path.read_bytes()
    engine.install(plan_of("claude", ctx), ctx)
    edit(path, lambda t: after_script(t, GUARD, '"timeout": 10', '"timeout": 99'))

    def change(value: Any) -> Any:
        value["matcher"] = value["matcher"] + "|NotebookRead"  # ours: a field they left alone
        value["hooks"][0]["timeout"] = 30  # ours too, but they changed it: theirs wins
        return value

    result = engine.install(upgraded(plan_of("claude", ctx), f"hook {GUARD}", change), ctx)
    assert kept_details(result) == [f"hook {GUARD}: your timeout 99 (this version's: 30) kept"]
    group = next(
        g for g in json.loads(path.read_text())["hooks"]["PreToolUse"] if GUARD in json.dumps(g)
    )
    assert group["matcher"].endswith("|NotebookRead") and group["hooks"][0]["timeout"] == 99
    again = engine.install(upgraded(plan_of("claude", ctx), f"hook {GUARD}", change), ctx)
    assert kept_details(again) == [] and not again.drift
    uninstall("claude", ctx)
    assert path.read_bytes() == pre


def test_upgrade_codex_env_ours_changed_theirs_added(home: Path) -> None:
    ctx = ctx_for(home)
    path = home / ".codex/config.toml"
    pre = path.read_bytes()
    engine.install(plan_of("codex", ctx), ctx)
    edit(path, lambda t: t.replace("env = {", 'tool_timeout_sec = 120\nenv = {MY_VAR = "x", ', 1))

    def change(value: Any) -> Any:
        value["env"]["MSD_AUDIT_LOG"] = "/new/audit.jsonl"
        value["startup_timeout_sec"] = 20
        return value

    result = engine.install(upgraded(plan_of("codex", ctx), "MCP server msd", change), ctx)
    assert kept_details(result) == ['MCP server msd: your tool_timeout_sec 120, MY_VAR "x" kept']
    import tomllib

    server = tomllib.loads(path.read_text())["mcp_servers"]["msd"]
    assert server["env"] == {"MY_VAR": "x", "MSD_AUDIT_LOG": "/new/audit.jsonl"}
    assert server["tool_timeout_sec"] == 120 and server["startup_timeout_sec"] == 20
    assert path.read_text().startswith(CODEX)  # the user's own text untouched
    uninstall("codex", ctx)
    assert path.read_bytes() == pre


def test_upgrade_hermes_yaml_timeout_theirs_matcher_ours(home: Path) -> None:
    ctx = ctx_for(home)
    path = home / ".hermes/config.yaml"
    pre = path.read_bytes()
    engine.install(plan_of("hermes", ctx), ctx)
    edit(path, lambda t: after_script(t, GUARD, "timeout: 10", "timeout: 99"))

    def change(value: Any) -> Any:
        value["matcher"] = value["matcher"] + "|patch"
        return value

    result = engine.install(upgraded(plan_of("hermes", ctx), f"hook {GUARD}", change), ctx)
    assert kept_details(result) == [f"hook {GUARD}: your timeout 99 kept"]
    hooks = YamlDocument(path.read_text()).node(("hooks", "pre_tool_call")).value
    ours = next(h for h in hooks if GUARD in h["command"])
    assert ours["timeout"] == 99 and ours["matcher"].endswith("|patch")
    uninstall("hermes", ctx)
    assert path.read_bytes() == pre
