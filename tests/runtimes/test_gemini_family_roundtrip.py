"""Gemini CLI and Qwen Code through the real ``msd-install`` process, per scope, with the
user's settings seeded the way people write them (comments, CRLF, their own MCP server and
hook, their own include directories and ``ui``): install -> uninstall gives back every byte;
a reinstall writes nothing; a dry run writes nothing; a broken file is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import build, run_cli, run_json, snapshot, verbs
from msd_install.installer.jsonparse import parse

SEEDS = {
    "gemini": (
        "{\r\n"
        "  // my settings\r\n"
        '  "ui": {"theme": "Dracula"},\r\n'
        '  "context": {"includeDirectories": ["/opt/shared"]},\r\n'
        '  "mcpServers": {\r\n'
        '    "mine": {"command": "my-mcp", "args": ["--x"]} /* keep me */\r\n'
        "  },\r\n"
        '  "hooks": {\r\n'
        '    "BeforeTool": [\r\n'
        '      {"matcher": "run_shell_command",\r\n'
        '       "hooks": [{"type": "command", "command": "echo mine", "timeout": 5000}]}\r\n'
        "    ]\r\n"
        "  }\r\n"
        "}"
    ),
    "qwen": (
        "{\r\n"
        "  // my settings\r\n"
        '  "ui": {"theme": "Qwen Dark"},\r\n'
        '  "mcpServers": {"mine": {"command": "my-mcp"}}, /* keep me */\r\n'
        '  "hooks": {"PreToolUse": [\r\n'
        '    {"matcher": "run_shell_command",\r\n'
        '     "hooks": [{"type": "command", "command": "echo"}]}\r\n'
        "  ]},\r\n"
        '  "$version": 4\r\n'
        "}\r\n"
    ),
}
FOLDER = {"gemini": ".gemini", "qwen": ".qwen"}
CASES = [(n, s) for n in ("gemini", "qwen") for s in ("--global", "--local")]


def _paths(tmp_path: Path, name: str, scope: str) -> tuple[Path, Path, Path]:
    """home, project and the settings file msd edits in this scope, seeded."""
    home, project = tmp_path / "home", tmp_path / "project"
    where = home if scope == "--global" else project
    settings = where / FOLDER[name] / "settings.json"
    build(home, {".bashrc": "export A=1\n"})
    build(project, {"src/app.py": "print('hi')\n"})
    build(where, {f"{FOLDER[name]}/settings.json": SEEDS[name]})
    return home, project, settings


def _trees(home: Path, project: Path) -> tuple[object, object]:
    return snapshot(home, stat=False), snapshot(project, stat=False)


@pytest.mark.parametrize(("name", "scope"), CASES)
def test_install_then_uninstall_gives_back_every_byte(
    tmp_path: Path, name: str, scope: str
) -> None:
    home, project, settings = _paths(tmp_path, name, scope)
    before = _trees(home, project)
    proc = run_cli([f"--{name}", scope, "--yes"], home, cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = settings.read_bytes()
    assert text.count(b"\n") == text.count(b"\r\n")  # the user's CRLF kept for our lines too
    value = parse(text.decode(), jsonc=True).value
    assert value["mcpServers"]["mine"] and value["mcpServers"]["msd"]
    assert b"// my settings" in text and b"/* keep me */" in text
    assert set(value["hooks"]) >= ({"BeforeTool"} if name == "gemini" else {"PreToolUse"})
    if name == "gemini" and scope == "--global":
        assert value["context"]["includeDirectories"][0] == "/opt/shared"
        assert len(value["context"]["includeDirectories"]) == 4
    if name == "qwen":
        assert value["ui"]["theme"] == "Qwen Dark" and "statusLine" in value["ui"]
    proc = run_cli([f"--{name}", scope, "--yes", "--uninstall"], home, cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _trees(home, project) == before


@pytest.mark.parametrize(("name", "scope"), CASES)
def test_a_reinstall_writes_nothing_and_a_dry_run_neither(
    tmp_path: Path, name: str, scope: str
) -> None:
    home, project, _settings = _paths(tmp_path, name, scope)
    empty = snapshot(home, stat=True), snapshot(project, stat=True)
    doc = run_json([f"--{name}", scope, "--yes", "--dry-run"], home, cwd=project)
    assert verbs(doc)["create"] > 100
    assert (snapshot(home, stat=True), snapshot(project, stat=True)) == empty
    assert run_cli([f"--{name}", scope, "--yes"], home, cwd=project).returncode == 0
    before = snapshot(home, stat=True), snapshot(project, stat=True)
    doc = run_json([f"--{name}", scope, "--yes"], home, cwd=project)
    assert set(verbs(doc)) <= {"identical"}, verbs(doc)
    assert (snapshot(home, stat=True), snapshot(project, stat=True)) == before


@pytest.mark.parametrize(("name", "scope"), CASES)
def test_settings_the_runtime_cannot_parse_are_refused_and_nothing_changes(
    tmp_path: Path, name: str, scope: str
) -> None:
    home, project, settings = _paths(tmp_path, name, scope)
    settings.write_text('{\n  // half a file\n  "ui": {\n')
    before = _trees(home, project)
    proc = run_cli([f"--{name}", scope, "--yes"], home, cwd=project)
    assert proc.returncode == 4 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert str(settings) in lines[0] and "unexpected end of file" in lines[0]
    assert _trees(home, project) == before


@pytest.mark.parametrize(("name", "scope"), CASES)
def test_a_trailing_comma_the_runtime_would_fail_on_is_refused(
    tmp_path: Path, name: str, scope: str
) -> None:
    """Both CLIs accept comments in settings.json but exit on a trailing comma (gemini: 52)."""
    home, project, settings = _paths(tmp_path, name, scope)
    settings.write_text('{\n  // mine\n  "ui": {"theme": "x"},\n}\n')
    before = _trees(home, project)
    proc = run_cli([f"--{name}", scope, "--yes"], home, cwd=project)
    assert proc.returncode == 4 and "trailing comma at line 3" in proc.stderr
    assert _trees(home, project) == before


@pytest.mark.parametrize("name", ["gemini", "qwen"])
def test_the_users_own_msd_server_is_kept(tmp_path: Path, name: str) -> None:
    home, project, settings = _paths(tmp_path, name, "--global")
    settings.write_text('{"mcpServers": {"msd": {"command": "my-msd"}}}\n')
    before = _trees(home, project)
    proc = run_cli([f"--{name}", "--global", "--yes"], home, cwd=project)
    assert proc.returncode == 1 and "conflict" in proc.stdout
    assert parse(settings.read_text(), jsonc=True).value["mcpServers"]["msd"] == {
        "command": "my-msd"
    }
    assert run_cli([f"--{name}", "--global", "--yes", "--uninstall"], home).returncode == 0
    assert _trees(home, project) == before


def test_qwen_keeps_the_users_status_line(tmp_path: Path) -> None:
    home, project, settings = _paths(tmp_path, "qwen", "--global")
    settings.write_text('{"ui": {"statusLine": {"type": "command", "command": "mine"}}}\n')
    before = _trees(home, project)
    proc = run_cli(["--qwen", "--global", "--yes"], home, cwd=project)
    assert proc.returncode == 0 and "statusLine msd-statusline" in proc.stdout
    assert parse(settings.read_text(), jsonc=True).value["ui"]["statusLine"]["command"] == "mine"
    assert run_cli(["--qwen", "--global", "--yes", "--uninstall"], home).returncode == 0
    assert _trees(home, project) == before


@pytest.mark.parametrize(
    ("name", "env", "root"),
    [
        ("gemini", {"GEMINI_CLI_HOME": "{tmp}/gemini-home"}, "gemini-home/.gemini"),
        ("qwen", {"QWEN_HOME": "{tmp}/qwen-home"}, "qwen-home"),
    ],
)
def test_the_runtimes_own_override_moves_the_root(
    tmp_path: Path, name: str, env: dict[str, str], root: str
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    real = {k: v.format(tmp=tmp_path) for k, v in env.items()}
    assert run_cli([f"--{name}", "--global", "--yes"], home, **real).returncode == 0
    assert (tmp_path / root / "settings.json").is_file()
    assert (tmp_path / root / "msd-core/workflows/help.md").is_file()
    assert not (home / FOLDER[name]).exists()
    assert run_cli([f"--{name}", "--global", "--yes", "--uninstall"], home, **real).returncode == 0
    assert not (tmp_path / root).exists() or not any((tmp_path / root).iterdir())
