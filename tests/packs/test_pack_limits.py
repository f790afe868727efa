"""Every count a pack can inflate is bounded: folders (as files and nesting are), problems
and warnings reported, hook commands registered. Past a limit the run stops with one line
naming where and the limit, exit 2, and nothing written."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from packkit import make_pack

from helpers import run_cli, snapshot

CLAUDE = ["--claude", "--global", "--yes"]


def _refused(pack: Path, home: Path) -> list[str]:
    before = snapshot(home)
    proc = run_cli([*CLAUDE, "--payload", str(pack)], home)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stdout == ""
    assert snapshot(home) == before
    return proc.stderr.splitlines()


@pytest.mark.parametrize("spread", [False, True], ids=["one-folder", "spread"])
def test_too_many_folders(tmp_path: Path, spread: bool) -> None:
    """30,000 empty folders in one (read one by one, never listed whole), or 1,200 in 40."""
    home = tmp_path / "home"
    home.mkdir()
    pack = make_pack(tmp_path / "acme")
    if spread:
        for i in range(40):
            for j in range(30):
                (pack / f"references/f{i}/g{j}").mkdir(parents=True)
    else:
        (pack / "references/empty").mkdir()
        for i in range(30000):
            os.mkdir(pack / f"references/empty/{i}")
    lines = _refused(pack, home)
    assert (
        lines[0] == f"msd-install: error: {pack}: not a valid pack (1 problem); nothing was written"
    )
    assert len(lines) == 2, lines
    assert re.fullmatch(
        rf"msd-install: {re.escape(str(pack))}/references/\S+: the pack has more than 1000 "
        "folders",
        lines[1],
    ), lines[1]


def test_a_folder_of_links_stops_at_100_problems(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    pack = make_pack(tmp_path / "acme")
    for i in range(3000):
        os.symlink("/etc/passwd", pack / f"references/l{i}.md")
    lines = _refused(pack, home)
    assert lines[0].endswith("not a valid pack (102 problems); nothing was written")
    assert len(lines) == 103
    assert all(
        line.endswith("is a symlink (a pack holds plain files only)") for line in lines[1:-1]
    )
    assert lines[-1] == (f"msd-install: {pack}/references: more than 100 problems, the rest unread")


def test_problems_shown_are_capped_and_counted(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    broken: dict[str, str | bytes] = {f"commands/c{i}.md": "no frontmatter\n" for i in range(150)}
    pack = make_pack(tmp_path / "acme", extra=broken)
    lines = _refused(pack, home)
    assert lines[0].endswith("not a valid pack (150 problems); nothing was written")
    assert len(lines) == 102
    assert lines[-1] == f"msd-install: {pack}: and 50 more problems, not shown"


def test_warnings_shown_are_capped_and_counted(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    refs = "".join(f"See ${{CLAUDE_PLUGIN_ROOT}}/notes/n{i}.md.\n" for i in range(300))
    command = f"---\ndescription: Many references\n---\n{refs}"
    pack = make_pack(tmp_path / "acme", extra={"commands/many.md": command})
    proc = run_cli([*CLAUDE, "--payload", str(pack)], home)
    assert proc.returncode == 0, proc.stderr
    warnings = [line for line in proc.stdout.splitlines() if "pack acme: warning:" in line]
    assert len(warnings) == 51
    assert warnings[-1].endswith(
        "pack acme: warning: and 250 more warnings like these, not shown (fix the ones above first)"
    )


def test_too_many_hook_commands(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    command = {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/guard.py"}
    hooks = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [command] * 101}]}}
    pack = make_pack(tmp_path / "acme", extra={"hooks/hooks.json": json.dumps(hooks)})
    lines = _refused(pack, home)
    assert lines[1:] == [
        f"msd-install: {pack}/hooks/hooks.json: more than 100 hook commands (a pack's limit)"
    ]
    ok = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [command] * 100}]}}
    (pack / "hooks/hooks.json").write_text(json.dumps(ok))
    assert run_cli([*CLAUDE, "--payload", str(pack)], home).returncode == 0
