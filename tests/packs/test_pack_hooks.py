"""A pack's hooks in three languages, each needing a helper beside it, registered by the
runtimes' own hook machinery and run exactly as the runtime would run them: the command
text read back from its config file, through a shell, with the event on stdin.

The pack's ``hooks/`` tree lands as ``<root>/hooks/<pack>/`` with its relative paths kept, so
that ``import helper`` from the script's folder, ``. "$(dirname "$0")/lib/common.sh"`` and
``require("./lib")`` work as their authors wrote them; a pack's Python hook runs without
msd's ``-I -S`` (it may need its own imports)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from packkit import make_pack

from helpers import run_cli, snapshot

NODE = shutil.which("node")
SCRIPTS = ("hooks/acme/guard.py", "hooks/acme/format.sh", "hooks/acme/banner.js")
# where each runtime registers hooks, in Claude's nested shape, and the variable it sets to
# the project for a local install's hooks (None: the script is found from the working folder)
CONFIGS = {
    "claude": (".claude/settings.json", "CLAUDE_PROJECT_DIR"),
    "codex": (".codex/hooks.json", None),
    "gemini": (".gemini/settings.json", "GEMINI_PROJECT_DIR"),
}


def _all_commands(config: Path) -> list[str]:
    """Every hook command of a Claude-shaped hooks config."""
    doc = json.loads(config.read_text())
    return [h["command"] for groups in doc["hooks"].values() for g in groups for h in g["hooks"]]


def _commands(config: Path) -> dict[str, str]:
    """Each acme hook's command in a Claude-shaped hooks config, by installed script."""
    return {s: c for c in _all_commands(config) for s in SCRIPTS if s in c}


def _run(command: str, event: dict, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    # Python writes its caches beside an imported helper, as under a runtime (this shell may
    # have them off)
    user = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return subprocess.run(
        ["sh", "-c", command],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**user, **env},
        timeout=30,
    )


BAD = {"tool_name": "Bash", "tool_input": {"command": "rm -rf / --no-preserve-root"}}
FINE = {"tool_name": "Bash", "tool_input": {"command": "ls"}}


def _exercise(commands: dict[str, str], cwd: Path, **env: str) -> None:
    assert set(commands) == set(SCRIPTS)
    guard, fmt, banner = (commands[s] for s in SCRIPTS)
    refused = _run(guard, BAD, cwd, **env)  # its helper.py imported from its own folder
    assert (refused.returncode, refused.stderr) == (2, "refused by acme guard\n")
    allowed = _run(guard, FINE, cwd, **env)
    assert (allowed.returncode, allowed.stderr) == (0, "")
    formatted = _run(fmt, {"tool_name": "Edit"}, cwd, **env)
    assert (formatted.returncode, formatted.stderr) == (0, "formatted\n")  # lib/common.sh sourced
    assert NODE, "node is needed to run the pack's JavaScript hook"
    started = _run(banner, {"hook_event_name": "SessionStart"}, cwd, **env)
    assert started.returncode == 0, started.stderr  # require("./lib") found lib/index.js
    out = json.loads(started.stdout)["hookSpecificOutput"]["additionalContext"]
    assert out == "acme pack loaded"


def _ok(args: list[str], home: Path, cwd: Path) -> None:
    proc = run_cli([*args, "--yes"], home, cwd)
    assert proc.returncode == 0, proc.stderr + proc.stdout


def test_hooks_tree_keeps_its_paths(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    pack = make_pack(tmp_path / "acme", extra={"hooks/lib-common.sh": "log() { :; }\n"})
    _ok(["--claude", "--global", "--payload", str(pack)], home, home)
    hooks = home / ".claude/hooks"
    installed = sorted(p.relative_to(hooks).as_posix() for p in hooks.rglob("*") if p.is_file())
    assert installed == [
        "acme/banner.js",
        "acme/format.sh",
        "acme/guard.py",
        "acme/helper.py",
        "acme/lib-common.sh",  # once flattened onto lib/common.sh's name and refused
        "acme/lib/common.sh",
        "acme/lib/index.js",
    ]
    for rel in installed:
        assert (hooks / rel).read_bytes() == (
            pack / "hooks" / rel.removeprefix("acme/")
        ).read_bytes()
        assert (hooks / rel).stat().st_mode & 0o777 == 0o755


def test_claude_global_commands(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    pack = make_pack(tmp_path / "acme")
    _ok(["--claude", "--global", "--payload", str(pack)], home, home)
    _ok(["--claude", "--global"], home, home)
    settings = home / ".claude/settings.json"
    commands = _commands(settings)
    hooks = home / ".claude/hooks/acme"
    # the pack's Python hook: the interpreter MSD Core's hooks name, without their -I -S
    core = {c.split(" -I -S ")[0] for c in _all_commands(settings) if "/hooks/msd-" in c}
    assert len(core) == 1 and " -I -S " not in commands["hooks/acme/guard.py"], core
    assert commands["hooks/acme/guard.py"] == f'{core.pop()} "{hooks}/guard.py"'
    assert commands["hooks/acme/format.sh"] == f'"{shutil.which("bash")}" "{hooks}/format.sh"'
    assert commands["hooks/acme/banner.js"] == f'"{NODE}" "{hooks}/banner.js"'


def test_claude_local_commands_are_portable(tmp_path: Path) -> None:
    home = tmp_path / "home"
    project = home / "proj"
    project.mkdir(parents=True)
    pack = make_pack(tmp_path / "acme")
    _ok(["--claude", "--local", "--payload", str(pack)], home, project)
    commands = _commands(project / ".claude/settings.json")
    assert commands["hooks/acme/guard.py"] == (
        'python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/acme/guard.py'
    )
    assert commands["hooks/acme/format.sh"] == (
        'bash "$CLAUDE_PROJECT_DIR"/.claude/hooks/acme/format.sh'
    )
    assert str(home) not in json.dumps(commands)


@pytest.mark.parametrize("scope", ["--global", "--local"])
@pytest.mark.parametrize("runtime", sorted(CONFIGS))
def test_hooks_run_beside_msd_core_and_leave_no_trace(
    tmp_path: Path, runtime: str, scope: str
) -> None:
    """Each hook blocks or answers as written, whichever of the pack and MSD Core came first
    and after MSD Core went; removing both in either order gives back the original tree,
    Python's caches of the pack's helper included."""
    home = tmp_path / "home"
    project = home / "proj"
    (project / "src/deep").mkdir(parents=True)
    local = scope == "--local"
    base = project if local else home
    pack = make_pack(tmp_path / "acme")
    config, var = CONFIGS[runtime]
    rt = [f"--{runtime}", scope]
    add_pack, drop_pack = [*rt, "--payload", str(pack)], [*rt, "--uninstall", "--pack", "acme"]
    add_core, drop_core = rt, [*rt, "--uninstall"]
    env = {var: str(project)} if local and var else {}
    cwd = project / "src/deep" if local else home  # Codex: found by walking up

    def exercise() -> None:
        commands = _commands(base / config)
        if local:
            assert str(home) not in json.dumps(commands)
        _exercise(commands, cwd, **env)

    original = snapshot(home)
    # the pack, then MSD Core; MSD Core goes first
    _ok(add_pack, home, project)
    _ok(add_core, home, project)
    exercise()
    assert (base / f".{runtime}/hooks/acme/__pycache__").is_dir()  # helper.py was imported
    _ok(drop_core, home, project)
    exercise()
    _ok(drop_pack, home, project)
    assert snapshot(home) == original

    # MSD Core, then the pack; the pack goes first
    _ok(add_core, home, project)
    core_only = snapshot(home)
    _ok(add_pack, home, project)
    exercise()
    _ok(drop_pack, home, project)
    assert snapshot(home) == core_only
    _ok(drop_core, home, project)
    assert snapshot(home) == original


# a pack's Python hook as many are written: ``import helper`` from its own folder (Python puts
# the script's folder first on sys.path) and a module of its own environment (PYTHONPATH);
# both are out of reach under -I -S
PLAIN_PY = """import json, sys
import helper
import acme_dep

json.load(sys.stdin)
print(helper.REASON + " / " + acme_dep.NAME, file=sys.stderr)
sys.exit(2)
"""
PLAIN = {"type": "command", "command": "python3 ${CLAUDE_PLUGIN_ROOT}/hooks/plain.py"}
PLAIN_HOOKS = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [PLAIN]}]}}


@pytest.mark.parametrize(
    ("runtime", "scope"), [("claude", "--global"), ("codex", "--local"), ("gemini", "--local")]
)
def test_python_hook_runs_with_the_packs_own_imports(
    tmp_path: Path, runtime: str, scope: str
) -> None:
    home = tmp_path / "home"
    project = home / "proj"
    project.mkdir(parents=True)
    site = tmp_path / "site"
    site.mkdir()
    (site / "acme_dep.py").write_text('NAME = "acme dep"\n')
    pack = make_pack(
        tmp_path / "acme",
        extra={"hooks/hooks.json": json.dumps(PLAIN_HOOKS), "hooks/plain.py": PLAIN_PY},
    )
    _ok([f"--{runtime}", scope, "--payload", str(pack)], home, project)
    config, var = CONFIGS[runtime]
    base = project if scope == "--local" else home
    [command] = _all_commands(base / config)
    assert "hooks/acme/plain.py" in command
    env = {"PYTHONPATH": str(site)}
    if scope == "--local" and var:
        env[var] = str(project)
    proc = _run(command, BAD, project, **env)
    assert (proc.returncode, proc.stderr) == (2, "refused by acme guard / acme dep\n")


def test_cursor_local_guard_found_from_a_subfolder(tmp_path: Path) -> None:
    """Cursor sets no project variable for hooks: the script is found by walking up from the
    working folder, then run by its own interpreter, its helper beside it."""
    home = tmp_path / "home"
    project = home / "proj"
    (project / "src/deep").mkdir(parents=True)
    pack = make_pack(tmp_path / "acme")
    _ok(["--cursor", "--local", "--payload", str(pack)], home, project)
    doc = json.loads((project / ".cursor/hooks.json").read_text())
    commands = {
        s: h["command"]
        for hooks in doc["hooks"].values()
        for h in hooks
        for s in SCRIPTS
        if s in h["command"]
    }
    assert str(home) not in json.dumps(commands)
    refused = _run(commands["hooks/acme/guard.py"], BAD, project / "src/deep")
    assert (refused.returncode, refused.stderr) == (2, "refused by acme guard\n")
