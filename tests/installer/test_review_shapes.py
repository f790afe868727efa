"""Review: odd shapes of the user's own config files survive install + uninstall byte for byte.

Every test drives the real CLI with HOME pointed at a temp dir. Shapes that hold up are plain
tests; shapes that expose a bug assert the correct behaviour and are ``xfail(strict=True)``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers import build, run_cli, snapshot

GLOBAL = ["--claude", "--global", "--yes"]
UNINSTALL = [*GLOBAL, "--uninstall"]


snap = snapshot  # symlink-aware: links are recorded as links


def cli(args: list[str], home: Path, cwd: Path | None = None, **env: str) -> Any:
    """The real CLI; crash logs (if any) land inside the test's own temp dir."""
    tmp = home.parent / "tmp"
    tmp.mkdir(exist_ok=True)
    return run_cli(args, home, cwd, TMPDIR=str(tmp), **env)


def one_line_error(proc: Any) -> str:
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    return str(lines[0])


SHAPES = {
    "tabs": '{\n\t"a": 1,\n\t"b": {\n\t\t"c": [1, 2]\n\t}\n}\n',
    "crlf": '{\r\n  "a": 1\r\n}\r\n',
    "mixed-line-endings": '{\r\n  "a": 1,\n  "b": 2\r\n}',
    "no-final-newline": '{\n  "a": 1\n}',
    "empty-object": "{}",
    "empty-object-space": "{ }",
    "empty-object-newline": "{\n}",
    "empty-object-newline-eol": "{\n}\n",
    "blank-lines-around": '\n\n{\n\n  "a"  :  1   \n\n}\n\n\n',
    "nested-empty-hooks": '{\n  "hooks": {}\n}\n',
    "nested-empty-hooks-one-line": '{"hooks": {}, "a": [ ]}',
    "empty-pretooluse": '{\n  "hooks": {"PreToolUse": []}\n}\n',
    "empty-pretooluse-spaced": '{\n  "hooks": {\n    "PreToolUse": [ ]\n  }\n}\n',
    "duplicate-keys": '{\n  "hooks": {"Stop": []},\n  "a": 1,\n  "hooks": {"PreToolUse": []}\n}\n',
    "escaped-keys": (
        '{\n  "\\u0068ooks": {\n    "PreToolUse": []\n  },\n  "\\u00e9": "\\ud83d\\ude00"\n}\n'
    ),
    "unicode": '{\n  "é": "ü — ✓",\n  "hooks": {}\n}\n',
    "first-member-on-brace-line": '{"a": 1,\n  "b": 2\n}\n',
    "deep-but-sane": '{"a": ' + '{"b": ' * 150 + "1" + "}" * 150 + "}\n",
    "lone-surrogate-elsewhere": '{"note": "\\ud83d"}\n',
    "user-hooks-everywhere": json.dumps(
        {
            "hooks": {
                event: [
                    {"matcher": "*", "hooks": [{"type": "command", "command": f"echo {event}"}]}
                ]
                for event in ("PreToolUse", "PostToolUse", "SessionStart", "Stop")
            }
        },
        indent=4,
    ),
}


@pytest.mark.parametrize("settings", list(SHAPES.values()), ids=list(SHAPES))
def test_odd_settings_shapes_round_trip_and_reinstall_writes_nothing(
    tmp_path: Path, settings: str
) -> None:
    home = tmp_path / "home"
    build(home, {".claude/settings.json": settings.encode()})
    before = snapshot(home)
    proc = cli(GLOBAL, home)
    assert proc.returncode == 0, proc.stderr
    json.loads((home / ".claude/settings.json").read_bytes())  # still valid JSON
    stat_before = snapshot(home, stat=True)
    assert cli(GLOBAL, home).returncode == 0
    assert snapshot(home, stat=True) == stat_before  # reinstall: same bytes, mtimes, inodes
    assert cli(UNINSTALL, home).returncode == 0
    assert snapshot(home) == before


CLAUDE_JSONS = {
    "empty-servers": '{"mcpServers": {}}',
    "empty-servers-crlf": '{\r\n  "numStartups": 4,\r\n  "mcpServers": {}\r\n}\r\n',
    "other-servers": '{\n  "mcpServers": {\n    "db": {"command": "db"},\n    "x": {}\n  }\n}\n',
    "no-servers-key": '{"numStartups": 1, "projects": {"/p": {"mcpServers": {}}}}',
}


@pytest.mark.parametrize("content", list(CLAUDE_JSONS.values()), ids=list(CLAUDE_JSONS))
def test_existing_claude_json_round_trips(tmp_path: Path, content: str) -> None:
    home = tmp_path / "home"
    build(home, {".claude.json": content})
    before = snapshot(home)
    assert cli(GLOBAL, home).returncode == 0
    servers = json.loads((home / ".claude.json").read_text())["mcpServers"]
    assert "msd" in servers
    assert cli(UNINSTALL, home).returncode == 0
    assert snapshot(home) == before


def test_a_user_group_identical_to_ours_is_left_alone_and_kept(tmp_path: Path) -> None:
    probe = tmp_path / "probe"
    probe.mkdir()
    assert cli(GLOBAL, probe).returncode == 0
    ours = json.loads((probe / ".claude/settings.json").read_text())["hooks"]["PreToolUse"][0]
    home = tmp_path / "home"
    home.mkdir()
    # same interpreter and same root path shape: rebuild the group for this home
    text = json.dumps(ours).replace(str(probe), str(home))
    build(home, {".claude/settings.json": '{\n  "hooks": {"PreToolUse": [' + text + "]}\n}\n"})
    before = snapshot(home)
    assert cli(GLOBAL, home).returncode == 0
    groups = json.loads((home / ".claude/settings.json").read_text())["hooks"]["PreToolUse"]
    assert [json.dumps(g) for g in groups].count(text) == 1  # not added twice
    assert cli(UNINSTALL, home).returncode == 0
    assert snapshot(home) == before  # theirs stays


def test_symlinked_settings_and_claude_json_are_written_through_and_come_back(
    tmp_path: Path,
) -> None:
    home, dots = tmp_path / "home", tmp_path / "dotfiles"
    build(dots, {"settings.json": '{\n  "a": 1\n}\n', "claude.json": '{"mcpServers": {}}'})
    (home / ".claude").mkdir(parents=True)
    (home / ".claude/settings.json").symlink_to(dots / "settings.json")
    (home / ".claude.json").symlink_to(dots / "claude.json")
    before_home, before_dots = snap(home), snap(dots)
    assert cli(GLOBAL, home).returncode == 0
    assert (home / ".claude/settings.json").is_symlink()
    assert "msd-" in (dots / "settings.json").read_text()
    assert cli(UNINSTALL, home).returncode == 0
    assert snap(home) == before_home and snap(dots) == before_dots


def test_symlinked_root_directory_round_trips(tmp_path: Path) -> None:
    home, dots = tmp_path / "home", tmp_path / "dotclaude"
    build(dots, {"settings.json": "{}", "agents/mine.md": "mine\n"})
    home.mkdir()
    (home / ".claude").symlink_to(dots)
    before_home, before_dots = snap(home), snap(dots)
    assert cli(GLOBAL, home).returncode == 0
    assert (dots / "skills/msd-help/SKILL.md").is_file()
    assert cli(UNINSTALL, home).returncode == 0
    assert snap(home) == before_home and snap(dots) == before_dots


def test_read_only_settings_is_left_alone_with_a_one_line_error(tmp_path: Path) -> None:
    """Lead's decision: a settings file the user made read-only is not edited around."""
    home = tmp_path / "home"
    build(home, {".claude/settings.json": '{\n  "a": 1\n}\n'})
    (home / ".claude/settings.json").chmod(0o444)
    before = snapshot(home)
    proc = cli(GLOBAL, home)
    assert proc.returncode == 4
    assert "settings.json: is read-only" in proc.stderr and len(proc.stderr.splitlines()) == 1
    assert snapshot(home) == before


def test_forced_mcp_replacement_gives_back_the_users_odd_formatting(tmp_path: Path) -> None:
    home = tmp_path / "home"
    users = (
        '{\r\n\t"mcpServers": {\r\n\t\t"msd": { "command" :"mine",\r\n  "args":[ ] }\r\n\t}\r\n}'
    )
    build(home, {".claude.json": users})
    before = snapshot(home)
    assert cli([*GLOBAL, "--force"], home).returncode == 0
    server = json.loads((home / ".claude.json").read_text())["mcpServers"]["msd"]
    assert server["command"] != "mine"
    assert cli(UNINSTALL, home).returncode == 0
    assert snapshot(home) == before


@pytest.mark.parametrize(
    "content",
    ["", "   \n", "null", '"text"', '{"a": 1} {"b": 2}', '{"a": NaN}', '{"a": 1,}'],
    ids=["empty", "blank", "null", "string", "two-values", "nan", "trailing-comma"],
)
def test_malformed_settings_one_line_exit_4_nothing_changed(tmp_path: Path, content: str) -> None:
    home = tmp_path / "home"
    build(home, {".claude/settings.json": content, ".claude.json": '{"a": 1}\n'})
    before = snapshot(home)
    proc = cli(GLOBAL, home)
    assert proc.returncode == 4
    assert str(home / ".claude/settings.json") in one_line_error(proc)
    assert snapshot(home) == before


@pytest.mark.parametrize(
    "content",
    ['{"hooks": null}', '{"hooks": []}', '{"hooks": {"PreToolUse": {}}}', '{"mcpServers": 1}'],
    ids=["hooks-null", "hooks-array", "event-object", "servers-number"],
)
def test_wrong_container_types_one_line_exit_4_nothing_changed(
    tmp_path: Path, content: str
) -> None:
    home = tmp_path / "home"
    build(home, {".claude/settings.json": content, ".claude.json": content})
    before = snapshot(home)
    proc = cli(GLOBAL, home)
    assert proc.returncode == 4
    one_line_error(proc)
    assert snapshot(home) == before


def test_malformed_settings_at_uninstall_stops_before_anything_is_removed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    assert cli(GLOBAL, home).returncode == 0
    (home / ".claude/settings.json").write_text('{"hooks": ')
    before = snapshot(home)
    proc = cli(UNINSTALL, home)
    assert proc.returncode == 4
    assert str(home / ".claude/settings.json") in one_line_error(proc)
    assert snapshot(home) == before


def test_very_deep_nesting_is_not_an_internal_error(tmp_path: Path) -> None:
    home = tmp_path / "home"
    deep = '{"a": ' + "[" * 600 + "]" * 600 + "}\n"
    build(home, {".claude/settings.json": deep})
    before = snapshot(home)
    proc = cli(GLOBAL, home)
    if proc.returncode == 0:
        assert cli(UNINSTALL, home).returncode == 0
    else:
        assert proc.returncode == 4
        assert str(home / ".claude/settings.json") in one_line_error(proc)
    assert snapshot(home) == before


def test_lone_surrogate_in_a_users_hook_is_not_an_internal_error(tmp_path: Path) -> None:
    home = tmp_path / "home"
    settings = (
        '{"hooks": {"PreToolUse": [{"matcher": "Bash", '
        '"hooks": [{"type": "command", "command": "echo \\ud83d"}]}]}}'
    )
    build(home, {".claude/settings.json": settings})
    before = snapshot(home)
    proc = cli(GLOBAL, home)
    if proc.returncode == 0:
        assert cli(UNINSTALL, home).returncode == 0
    else:
        assert proc.returncode == 4
        one_line_error(proc)
    assert snapshot(home) == before


def test_dangling_settings_symlink_comes_back(tmp_path: Path) -> None:
    home, dots = tmp_path / "home", tmp_path / "dotfiles"
    dots.mkdir()
    (home / ".claude").mkdir(parents=True)
    (home / ".claude/settings.json").symlink_to(dots / "settings.json")
    before_home, before_dots = snap(home), snap(dots)
    proc = cli(GLOBAL, home)
    assert proc.returncode in (0, 4), proc.stderr
    assert cli(UNINSTALL, home).returncode == 0
    assert snap(home) == before_home
    assert snap(dots) == before_dots
