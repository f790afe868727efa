"""A hook is registered only when its script AND every helper it needs are ours on disk."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import build, run_cli
from msd_install.payload import load


def test_hooks_json_names_the_helpers_each_hook_needs() -> None:
    hooks = {h.name: h for h in load().hooks}
    guard, update = hooks["msd-secret-read-guard"], hooks["msd-check-update"]
    # a registered hook is a launcher needing its code first (payload/hookcode.py), then helpers
    assert guard.requires == ("msd-secret-read-guard-code.py", "msd-secret-read-guard-shell.py")
    assert update.requires == ("msd-check-update-code.py", "msd-check-update-worker.py")
    assert all(h.requires[:1] == (h.name + "-code.py",) for h in hooks.values() if h.event)
    scripts = {h.script for h in hooks.values()}
    assert all(set(h.requires) <= scripts for h in hooks.values())


def test_a_users_file_in_place_of_a_helper_keeps_its_hook_unregistered(tmp_path: Path) -> None:
    home = tmp_path / "home"
    build(home, {".claude/hooks/msd-secret-read-guard-shell.py": "# mine\n"})
    proc = run_cli(["--claude", "--global", "--yes"], home)
    assert proc.returncode == 1  # a conflict left something of ours out
    assert "msd-secret-read-guard: not added, msd-secret-read-guard-shell.py is not installed" in (
        proc.stdout
    )
    settings = json.loads((home / ".claude/settings.json").read_text())
    commands = [h["command"] for g in settings["hooks"]["PreToolUse"] for h in g["hooks"]]
    assert not any("msd-secret-read-guard.py" in c for c in commands)
    assert any("msd-validate-commit.py" in c for c in commands)
    assert (home / ".claude/hooks/msd-secret-read-guard-shell.py").read_text() == "# mine\n"
