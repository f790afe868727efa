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


DEEP_JSON = '{"hooks": {"PreToolUse": ' + "[" * 200_000 + "]" * 200_000 + "}}"


@pytest.mark.parametrize(
    ("rel", "text", "problem"),
    [
        ("hooks/hooks.json", DEEP_JSON, "hooks/hooks.json: is not valid JSON (nested too deeply)"),
        (
            ".claude-plugin/plugin.json",
            '{"name": "acme", "x": ' + "[" * 200_000 + "]" * 200_000 + "}",
            ".claude-plugin/plugin.json: is not valid JSON (nested too deeply)",
        ),
        (
            "commands/deep.md",
            "---\ndescription: deep\nfoo: " + "[" * 30_000 + "]" * 30_000 + "\n---\nBody.\n",
            "nested more than 1000 levels deep",
        ),
        (
            "commands/deep.md",
            "---\ndescription: deep\nlist:\n  " + "- " * 50_000 + "x\n---\nBody.\n",
            "nested more than 1000 levels deep",
        ),
    ],
    ids=["hooks.json", "plugin.json", "frontmatter", "frontmatter-block"],
)
def test_a_file_nested_too_deeply_for_its_parser_is_one_line(
    tmp_path: Path, rel: str, text: str, problem: str
) -> None:
    """A JSON file nested past Python's recursion limit, a YAML frontmatter nested past what
    libyaml's C parser survives (it died of SIGSEGV, exit 139, no message): one line."""
    home = tmp_path / "home"
    home.mkdir()
    pack = make_pack(tmp_path / "acme", extra={rel: text})
    lines = _refused(pack, home)
    assert any(problem in line for line in lines), lines
    assert len(lines) <= 3, lines


def test_warnings_on_scripts_using_the_plugin_root_are_capped(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    scripts = {f"hooks/w{i:03d}.sh": "#!/bin/sh\necho ${CLAUDE_PLUGIN_ROOT}\n" for i in range(120)}
    pack = make_pack(tmp_path / "acme", extra=scripts)
    proc = run_cli([*CLAUDE, "--payload", str(pack), "--json"], home)
    assert proc.returncode == 0, proc.stderr
    (result,) = json.loads(proc.stdout)["results"]
    using = [n for n in result["notes"] if "uses ${CLAUDE_PLUGIN_ROOT}" in n]
    assert len(using) == 50
    assert (
        "pack acme: and 70 more scripts using ${CLAUDE_PLUGIN_ROOT}, not shown" in (result["notes"])
    )


def test_a_path_too_long_to_reach_is_one_line(tmp_path: Path) -> None:
    """A file whose full path is longer than the system takes (ENAMETOOLONG at stat)."""
    home = tmp_path / "home"
    home.mkdir()
    deep = tmp_path
    for part in ("p" * 250, "q" * 250, "r" * 250, "s" * 250, "t" * 250):  # a long path
        deep = deep / part
    pack = make_pack(deep / "acme")
    folder = pack / "references"
    fd = os.open(folder, os.O_RDONLY)
    try:  # made relative to a descriptor: each step short, the whole path over PATH_MAX
        for _ in range(11):
            os.mkdir("d" * 250, dir_fd=fd)
            inner = os.open("d" * 250, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        os.close(os.open("f" * 200 + ".md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
    finally:
        os.close(fd)
    lines = _refused(pack, home)
    assert "internal error" not in "\n".join(lines)
    assert any("File name too long" in line or "nested more than" in line for line in lines)


def test_another_packs_manifest_nested_too_deeply_claims_nothing(tmp_path: Path) -> None:
    """The claims check reads the root's other manifests loosely: one nested past the
    parser's recursion limit (or a FIFO) claims nothing, and the install goes on (it was an
    internal error, exit 3)."""
    home = tmp_path / "home"
    home.mkdir()
    assert run_cli(CLAUDE, home).returncode == 0
    other = home / ".claude" / "msd-file-manifest.acme2.json"
    other.write_text('{"files": ' + "[" * 100_000 + "]" * 100_000 + "}")
    pack = make_pack(tmp_path / "acme")
    for extra in (["--dry-run"], []):
        proc = run_cli([*CLAUDE, "--payload", str(pack), *extra], home)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    os.unlink(other)
    os.mkfifo(other)
    proc = run_cli([*CLAUDE, "--payload", str(pack)], home)
    assert proc.returncode == 0, proc.stdout + proc.stderr
