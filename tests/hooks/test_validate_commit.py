"""msd-validate-commit: opt-in Conventional Commits gate on `git commit -m`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hookkit import RunHook, tool_event

HOOK = "msd-validate-commit.py"
HEREDOC_BAD = 'git commit -m "$(cat <<\'EOF\'\nAdded the "login" page\n\nBody.\nEOF\n)"'
HEREDOC_GOOD = 'git commit -m "$(cat <<\'EOF\'\nfeat(auth): add "login" page\n\nBody.\nEOF\n)"'
BLOCKED = [
    'git commit -m "update stuff"',
    "git commit -am 'Fixed bug'",
    'git add . && git commit -m "WIP"',
    'git -C sub commit --message="feature: x"',
    'git commit -m "feat:missing space"',
    'git commit -m "feat(api): ' + "x" * 100 + '"',
    HEREDOC_BAD,
]
ALLOWED = [
    'git commit -m "feat(api): add orders endpoint"',
    "git commit -m 'fix!: drop python 3.9'",
    'git commit -m "docs: readme" -m "Longer body."',
    "git commit --amend --no-edit",
    "git commit -F msg.txt",
    "git commit --fixup HEAD~1",
    "git commit -m \"Merge branch 'x'\"",
    'git commit -m "$MSG"',
    "git status && git log --oneline",
    'echo "git commit -m bad"',
    HEREDOC_GOOD,
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".planning").mkdir()
    config = {"hooks": {"validate_commit": True}}
    (tmp_path / ".planning" / "config.json").write_text(json.dumps(config))
    return tmp_path


@pytest.mark.parametrize("command", BLOCKED)
def test_non_conventional_commit_is_blocked(run_hook: RunHook, project: Path, command: str) -> None:
    result = run_hook(HOOK, tool_event("PreToolUse", "Bash", {"command": command}, project))
    assert (result.code, result.stdout) == (2, ""), command
    assert result.stderr.startswith("msd-validate-commit: ")
    assert "feat" in result.stderr and result.stderr.count("\n") == 1


@pytest.mark.parametrize("command", ALLOWED)
def test_conventional_or_uncheckable_commit_passes(
    run_hook: RunHook, project: Path, command: str
) -> None:
    result = run_hook(HOOK, tool_event("PreToolUse", "Bash", {"command": command}, project))
    assert (result.code, result.stdout, result.stderr) == (0, "", ""), command


def test_off_by_default(run_hook: RunHook, tmp_path: Path) -> None:
    event = tool_event("PreToolUse", "Bash", {"command": BLOCKED[0]}, tmp_path)
    assert run_hook(HOOK, event).code == 0
    (tmp_path / ".planning").mkdir()
    (tmp_path / ".planning" / "config.json").write_text('{"hooks": {"validate_commit": false}}')
    assert run_hook(HOOK, event).code == 0


def test_gemini_dialect_denies(run_hook: RunHook, project: Path) -> None:
    event = tool_event("BeforeTool", "run_shell_command", {"command": BLOCKED[0]}, project)
    answer = run_hook(HOOK, event, args=("--dialect", "gemini")).json()
    assert answer["decision"] == "deny"
    assert "not a Conventional Commit" in answer["reason"]
