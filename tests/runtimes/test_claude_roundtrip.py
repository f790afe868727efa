"""Claude Code end to end through the real CLI process: install, reinstall, uninstall.

The promise under test: after install + uninstall every file the user had is byte-identical and
nothing new remains; a reinstall writes nothing; what the user changed is kept.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest

from helpers import build, run_cli, run_json, snapshot, verbs

USER_SETTINGS = (
    "{\r\n"
    '    "permissions": {\r\n'
    '        "allow": ["Bash(npm test)", "Read(./src/**)"],\r\n'
    '        "deny": []\r\n'
    "    },\r\n"
    '    "hooks": {\r\n'
    '        "PreToolUse": [\r\n'
    "            {\r\n"
    '                "matcher": "Bash",\r\n'
    '                "hooks": [{"type": "command", "command": "echo mine"}]\r\n'
    "            }\r\n"
    "        ],\r\n"
    '        "SessionStart": [\r\n'
    '            {"hooks": [{"type": "command", "command": "echo hello"}]}\r\n'
    "        ]\r\n"
    "    },\r\n"
    '    "statusLine": {"type": "command", "command": "my-status"}\r\n'
    "}"
)
REGISTRY = ".local/state/msd/manifests.json"
USER_CLAUDE_JSON = (
    '{\n  "numStartups": 3,\n  "mcpServers": {\n    "mine": {"command": "x"}\n  }\n}\n'
)
USER_FILES = {
    ".claude/settings.json": USER_SETTINGS,
    ".claude/commands/mine.md": "---\ndescription: my own\n---\nDo my thing.\n",
    ".claude/agents/my-agent.md": "---\nname: my-agent\ndescription: mine\n---\nBody.\n",
    ".claude.json": USER_CLAUDE_JSON,
}


def settings_of(root: Path) -> dict:
    return json.loads((root / "settings.json").read_text())


def our_commands(settings: dict) -> list[str]:
    out = []
    for groups in settings.get("hooks", {}).values():
        for group in groups:
            out += [h["command"] for h in group["hooks"] if "msd-" in h["command"]]
    return out


@pytest.fixture()
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    build(h, USER_FILES)
    return h


def test_global_install_then_uninstall_gives_back_the_home(home: Path) -> None:
    before = snapshot(home)
    proc = run_cli(["--claude", "--global", "--yes"], home)
    assert proc.returncode == 0, proc.stderr
    root = home / ".claude"
    assert (root / "skills/msd-help/SKILL.md").is_file()
    assert (root / "agents/msd-planner.md").is_file()
    assert (root / "hooks/msd-secret-read-guard.py").is_file()
    assert (root / "msd-core/workflows/plan-phase.md").is_file()
    assert (root / "msd-file-manifest.json").is_file()
    settings = settings_of(root)
    # the user's entries are all still there, ours sit next to them
    assert settings["permissions"]["allow"] == ["Bash(npm test)", "Read(./src/**)"]
    assert settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == "echo mine"
    assert settings["statusLine"]["command"] == "my-status"
    guard = [c for c in our_commands(settings) if "msd-secret-read-guard" in c]
    assert len(guard) == 1
    argv = shlex.split(guard[0])
    assert Path(argv[0]).is_absolute() and argv[1:3] == ["-I", "-S"]
    assert argv[3] == str(root / "hooks/msd-secret-read-guard.py")
    for command in our_commands(settings):  # never register a hook whose file is missing
        assert Path(shlex.split(command)[3]).is_file()
    text = (root / "settings.json").read_bytes()
    assert b"\r\n" in text and b"\n" not in text.replace(b"\r\n", b"") and not text.endswith(b"\n")
    # payload text names the real root, home-relative so that spaces in it cannot split it
    help_text = (root / "skills/msd-help/SKILL.md").read_text()
    assert "@~/.claude/msd-core/workflows/help.md" in help_text

    proc = run_cli(["--claude", "--global", "--uninstall", "--yes"], home)
    assert proc.returncode == 0, proc.stderr
    assert snapshot(home) == before


def test_local_install_then_uninstall_gives_back_the_project(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    build(
        project,
        {
            ".claude/settings.json": '{\n  "permissions": {"allow": []}\n}\n',
            ".mcp.json": '{\n  "mcpServers": {\n    "db": {"command": "db-mcp"}\n  }\n}\n',
            "src/app.py": "print('hi')\n",
        },
    )
    home_before, project_before = snapshot(home), snapshot(project)
    proc = run_cli(["--claude", "--local", "--yes"], home, cwd=project)
    assert proc.returncode == 0, proc.stderr
    root = project / ".claude"
    guard = [c for c in our_commands(settings_of(root)) if "msd-secret-read-guard" in c]
    assert guard and guard[0].endswith(
        '-I -S "$CLAUDE_PROJECT_DIR"/.claude/hooks/msd-secret-read-guard.py'
    )
    # a local install writes nothing into the home but its record of the manifest it wrote
    # (installer/registry.py: how a cloned project's manifest is told from the user's own)
    added = {k: v for k, v in snapshot(home).items() if k not in home_before}
    assert sorted(added) == [".local/", ".local/state/", ".local/state/msd/", REGISTRY]
    assert {k: v for k, v in snapshot(home).items() if k in home_before} == home_before
    help_text = (root / "skills/msd-help/SKILL.md").read_text()
    assert str(project) not in help_text  # local payload refers to .claude/, project-relative

    proc = run_cli(["--claude", "--local", "--uninstall", "--yes"], home, cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert snapshot(project) == project_before
    assert snapshot(home) == home_before


def test_empty_home_round_trip(tmp_path: Path) -> None:
    home = tmp_path / "empty"
    home.mkdir()
    assert run_cli(["--claude", "--global", "--yes"], home).returncode == 0
    assert (home / ".claude/settings.json").is_file()
    assert run_cli(["--claude", "--global", "--yes", "--uninstall"], home).returncode == 0
    assert snapshot(home) == {}


def test_reinstall_writes_nothing(home: Path) -> None:
    assert run_cli(["--claude", "--global", "--yes"], home).returncode == 0
    before = snapshot(home, stat=True)
    doc = run_json(["--claude", "--global", "--yes"], home)
    assert set(verbs(doc)) <= {"identical", "skip"}, verbs(doc)
    assert verbs(doc)["identical"] > 50
    assert snapshot(home, stat=True) == before  # same bytes, same mtimes, same inodes


def test_user_modified_file_survives_uninstall(home: Path) -> None:
    assert run_cli(["--claude", "--global", "--yes"], home).returncode == 0
    edited = home / ".claude/skills/msd-help/SKILL.md"
    edited.write_text(edited.read_text() + "\nMy note.\n")
    doc = run_json(["--claude", "--global", "--yes", "--uninstall"], home)
    kept = [a for a in doc["results"][0]["actions"] if a["path"] == str(edited)]
    assert kept == [{"verb": "skip", "path": str(edited), "detail": "modified by you: kept"}]
    assert edited.read_text().endswith("My note.\n")
    assert not (home / ".claude/skills/msd-quick").exists()
    assert not (home / ".claude/msd-file-manifest.json").exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{\n  "a": 1,\n}\n', "trailing comma at line 2"),
        ('{\n  "permissions": {\n', "unexpected end of file"),
        ("[1, 2]\n", "top level is not a JSON object"),
        ('\ufeff{"a": 1}\n', "byte-order mark"),
    ],
)
def test_malformed_settings_is_reported_and_nothing_changes(
    home: Path, content: str, message: str
) -> None:
    (home / ".claude/settings.json").write_text(content)
    before = snapshot(home)
    proc = run_cli(["--claude", "--global", "--yes"], home)
    assert proc.returncode == 4
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert str(home / ".claude/settings.json") in lines[0] and message in lines[0]
    assert snapshot(home) == before


def test_dry_run_writes_nothing(home: Path, tmp_path: Path) -> None:
    before = snapshot(home, stat=True)
    doc = run_json(["--claude", "--global", "--yes", "--dry-run"], home)
    assert doc["results"][0]["dry_run"] is True
    assert verbs(doc)["create"] > 50
    assert snapshot(home, stat=True) == before
    empty = tmp_path / "fresh"
    empty.mkdir()
    assert run_cli(["--claude", "--global", "--yes", "--dry-run"], empty).returncode == 0
    assert snapshot(empty) == {}


def test_statusline_is_only_replaced_when_forced_and_comes_back(home: Path) -> None:
    before = snapshot(home)
    assert run_cli(["--claude", "--global", "--yes", "--force-statusline"], home).returncode == 0
    status = settings_of(home / ".claude")["statusLine"]["command"]
    assert "msd-statusline.py" in status
    assert run_cli(["--claude", "--global", "--yes", "--uninstall"], home).returncode == 0
    assert snapshot(home) == before


def test_users_file_in_the_way_is_a_conflict_and_force_restores_it(home: Path) -> None:
    build(home, {".claude/skills/msd-help/SKILL.md": "mine\n"})
    before = snapshot(home)
    proc = run_cli(["--claude", "--global", "--yes"], home)
    assert proc.returncode == 1  # done, but something of ours is not installed
    assert "conflict" in proc.stdout and "msd-help/SKILL.md" in proc.stdout
    assert (home / ".claude/skills/msd-help/SKILL.md").read_text() == "mine\n"
    assert run_cli(["--claude", "--global", "--yes", "--uninstall"], home).returncode == 0
    assert snapshot(home) == before
    assert run_cli(["--claude", "--global", "--yes", "--force"], home).returncode == 0
    assert (home / ".claude/skills/msd-help/SKILL.md").read_text() != "mine\n"
    assert run_cli(["--claude", "--global", "--yes", "--uninstall"], home).returncode == 0
    assert snapshot(home) == before


def test_users_own_msd_mcp_server_is_never_overwritten(home: Path) -> None:
    build(home, {".claude.json": '{"mcpServers": {"msd": {"command": "my-msd"}}}'})
    proc = run_cli(["--claude", "--global", "--yes"], home)
    assert proc.returncode == 1
    assert json.loads((home / ".claude.json").read_text())["mcpServers"]["msd"] == {
        "command": "my-msd"
    }


def test_uninstall_without_manifest_changes_nothing(home: Path) -> None:
    before = snapshot(home)
    proc = run_cli(["--claude", "--global", "--yes", "--uninstall"], home)
    assert proc.returncode == 0
    assert "no msd-file-manifest.json" in proc.stdout
    assert snapshot(home) == before


def test_concurrent_installs_give_one_valid_install(home: Path) -> None:
    import sys

    from helpers import cli_env

    cmd = [sys.executable, "-m", "msd_install", "--claude", "--global", "--yes", "--json"]
    procs = [
        subprocess.Popen(
            cmd,
            cwd=home,
            env=cli_env(home),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], [o[1] for o in outs]
    creates = [verbs(json.loads(o[0])).get("create", 0) for o in outs]
    assert sorted(creates)[:2] == [0, 0] and sorted(creates)[2] > 50  # one wrote, others waited
    settings = settings_of(home / ".claude")
    assert len([c for c in our_commands(settings) if "secret-read-guard" in c]) == 1
    assert run_cli(["--claude", "--global", "--yes", "--uninstall"], home).returncode == 0
    assert snapshot(home) == snapshot_of_seed(home)


def snapshot_of_seed(home: Path) -> dict:
    fresh = home.parent / "seed"
    fresh.mkdir(exist_ok=True)
    build(fresh, USER_FILES)
    return snapshot(fresh)


def test_installed_secret_guard_blocks_reading_env_through_claude_registration(
    home: Path, tmp_path: Path
) -> None:
    assert run_cli(["--claude", "--global", "--yes"], home).returncode == 0
    command = next(
        c for c in our_commands(settings_of(home / ".claude")) if "secret-read-guard" in c
    )
    project = tmp_path / "p"
    project.mkdir()
    event = {
        "session_id": "s1",
        "hook_event_name": "PreToolUse",
        "cwd": str(project),
        "tool_name": "Read",
        "tool_input": {"file_path": str(project / ".env")},
    }
    proc = subprocess.run(
        command,
        shell=True,
        input=json.dumps(event),
        capture_output=True,
        text=True,
        timeout=20,
        cwd=project,
    )
    assert proc.returncode == 2 and ".env" in proc.stderr
    event["tool_input"] = {"file_path": str(project / ".env.example")}
    proc = subprocess.run(
        command,
        shell=True,
        input=json.dumps(event),
        capture_output=True,
        text=True,
        timeout=20,
        cwd=project,
    )
    assert proc.returncode == 0


def test_bytecode_left_by_running_installed_tools_is_removed_on_uninstall(
    home: Path, tmp_path: Path
) -> None:
    import sys

    before = snapshot(home)
    assert run_cli(["--claude", "--global", "--yes"], home).returncode == 0
    project = tmp_path / "proj"
    project.mkdir()
    tools = home / ".claude/msd-core/bin/msd-tools"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    proc = subprocess.run(
        [sys.executable, str(tools), "progress"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.stdout.strip().startswith("{"), proc.stderr
    assert list((home / ".claude/msd-core/lib/msdcore").rglob("*.pyc"))
    (home / ".claude/msd-core/lib/msdcore/__pycache__/mine.txt").write_text("not ours")
    assert run_cli(["--claude", "--global", "--yes", "--uninstall"], home).returncode == 0
    left = snapshot(home)
    assert left.pop(".claude/msd-core/lib/msdcore/__pycache__/mine.txt")[0] == b"not ours"
    assert {k for k in left if k not in before} == {
        ".claude/msd-core/",
        ".claude/msd-core/lib/",
        ".claude/msd-core/lib/msdcore/",
        ".claude/msd-core/lib/msdcore/__pycache__/",
    }


def test_update_check_cache_written_by_hooks_goes_on_uninstall(home: Path) -> None:
    before = snapshot(home)
    assert run_cli(["--claude", "--global", "--yes"], home).returncode == 0
    cache = home / ".claude/msd-core/cache"
    assert cache.is_dir()
    (cache / "msd-update-check.json").write_text('{"latest": "9.9.9"}')
    assert run_cli(["--claude", "--global", "--yes", "--uninstall"], home).returncode == 0
    assert snapshot(home) == before


def test_a_file_where_a_directory_must_go_is_a_one_line_error_and_nothing_changes(
    home: Path,
) -> None:
    (home / ".claude/agents").rename(home / "agents-moved")
    (home / ".claude/agents").write_text("a file, not a directory")
    before = snapshot(home)
    proc = run_cli(["--claude", "--global", "--yes"], home)
    assert proc.returncode == 4, proc.stderr
    line = proc.stderr.strip()
    assert "\n" not in line and "Traceback" not in line
    assert "agents" in line and "rolled back" in line
    assert snapshot(home) == before


def test_a_hook_whose_script_is_in_conflict_is_not_registered(home: Path) -> None:
    build(home, {".claude/hooks/msd-secret-read-guard.py": "# my own script\n"})
    proc = run_cli(["--claude", "--global", "--yes"], home)
    assert proc.returncode == 1
    assert "hook msd-secret-read-guard: not added, msd-secret-read-guard.py is not installed" in (
        proc.stdout
    )
    commands = our_commands(settings_of(home / ".claude"))
    assert commands and not [c for c in commands if "secret-read-guard" in c]
    assert (home / ".claude/hooks/msd-secret-read-guard.py").read_text() == "# my own script\n"


def test_payload_paths_follow_a_relocated_root(tmp_path: Path) -> None:
    home = tmp_path / "Jane Doe"
    home.mkdir()
    env = {"CLAUDE_CONFIG_DIR": str(home / ".config/claude")}
    assert run_cli(["--claude", "--global", "--yes"], home, **env).returncode == 0
    plan_phase = (home / ".config/claude/skills/msd-plan-phase/SKILL.md").read_text()
    assert "@~/.config/claude/msd-core/workflows/plan-phase.md" in plan_phase
    assert "~/.claude/" not in plan_phase
    workflow = (home / ".config/claude/msd-core/workflows/plan-phase.md").read_text()
    call = next(ln for ln in workflow.splitlines() if "msd-tools init" in ln)
    command = call.strip().strip("`")
    assert command.startswith("python3 ~/.config/claude/msd-core/bin/msd-tools init plan-phase")
    # the command an agent would run, through a real shell, with a space in HOME
    proc = subprocess.run(
        ["bash", "-c", "python3 ~/.config/claude/msd-core/bin/msd-tools init plan-phase"],
        cwd=tmp_path,
        env={**os.environ, "HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.stdout.startswith("{"), proc.stderr
