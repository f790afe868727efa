"""A malformed pack is refused up front: every problem on its own line (the file and what is
wrong), exit 2, and nothing written anywhere, whatever runtimes were named."""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest
from packkit import make_pack

from helpers import REPO, run_cli, snapshot

BROKEN: dict[str, str | bytes] = {
    "commands/nofm.md": "Just text, no frontmatter\n",
    "commands/Bad_Name.md": "---\ndescription: x\n---\nbody\n",
    "commands/open.md": "---\ndescription: [unclosed\n---\nbody\n",
    "commands/git/ref.md": (
        "---\ndescription: refs\nallowed-tools: Read, Teleport\n---\n"
        "See @${CLAUDE_PLUGIN_ROOT}/references/missing.md and "
        "@${CLAUDE_PLUGIN_ROOT}/../secret.md\n"
    ),
    "agents/helper.md": "---\nname: helper\ntools: Read, FlyTo\n---\nbody\n",
    "agents/other.md": "---\nname: not-other\ndescription: d\n---\nbody\n",
    "skills/empty/notes.md": "x\n",
    "references/latin1.md": b"caf\xe9\n",
    "references/big.md": "x" * ((1 << 20) + 1),
    "hooks/hooks.json": json.dumps(
        {
            "hooks": {
                "PreToolUse": [
                    {
                        "matcher": "Bash|Shoot",
                        "hooks": [
                            {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/gone.py"},
                            {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/run.rb"},
                            {"type": "command", "command": "/usr/bin/curl evil.example"},
                        ],
                    }
                ],
                "OnMoon": [],
            }
        }
    ),
    "hooks/run.rb": "puts 1\n",
}

EXPECTED = [
    "references/big.md: is larger than 1024 KiB",
    "references/link.md: is a symlink (a pack holds plain files only)",
    "references/latin1.md: is not UTF-8 text (byte 3)",
    "commands/Bad_Name.md: invalid name 'Bad_Name': lowercase letters, digits and single "
    "hyphens only",
    "commands/nofm.md: has no frontmatter",
    "commands/open.md: bad frontmatter: while parsing a flow sequence",
    # (the missing references/missing.md is a warning, not a problem: see below)
    "commands/git/ref.md: @-reference @${CLAUDE_PLUGIN_ROOT}/../secret.md leaves the pack",
    "commands/git/ref.md: 'allowed-tools' names unknown tool 'Teleport'",
    "agents/helper.md: frontmatter has no 'description'",
    "agents/helper.md: 'tools' names unknown tool 'FlyTo'",
    "agents/other.md: name 'not-other' differs from the file name 'other'",
    "skills/empty: has no SKILL.md",
    "hooks/hooks.json: PreToolUse[1]: matcher names unknown tool 'Shoot'",
    "hooks/hooks.json: PreToolUse[1].hooks[1]: runs hooks/gone.py, which is not a file of the pack",
    "hooks/hooks.json: PreToolUse[1].hooks[2]: cannot tell the language of hooks/run.rb",
    "hooks/hooks.json: PreToolUse[1].hooks[3]: command must be",
    "hooks/hooks.json: unknown event 'OnMoon'",
]


def _broken(tmp_path: Path) -> Path:
    pack = make_pack(tmp_path / "broken", extra=BROKEN)
    os.symlink("/etc/passwd", pack / "references/link.md")
    return pack


def test_every_problem_listed_nothing_written(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "proj").mkdir(parents=True)
    pack = _broken(tmp_path)
    before = snapshot(home)
    proc = run_cli(
        ["--claude", "--codex", "--gemini", "--global", "--yes", "--payload", str(pack)], home
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert lines[0] == (
        f"msd-install: error: {pack}: not a valid pack ({len(EXPECTED)} problems); "
        "nothing was written"
    )
    assert len(lines) == len(EXPECTED) + 1, proc.stderr
    for expected in EXPECTED:
        rel, _, what = expected.partition(": ")
        assert any(line.startswith(f"msd-install: {pack / rel}: {what}") for line in lines), (
            expected
        )
    assert snapshot(home) == before


def test_problems_in_json(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    proc = run_cli(["--claude", "--global", "--json", "--payload", str(_broken(tmp_path))], home)
    assert proc.returncode == 2
    doc = json.loads(proc.stdout)
    assert doc["error"]["kind"] == "PackError"
    assert len(doc["error"]["problems"]) == len(EXPECTED)
    assert all("\n" not in p for p in doc["error"]["problems"])
    schema = json.loads((REPO / "docs/reference/json-output.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(doc)  # the published shape
    assert doc["results"] == []
    assert sorted(p.name for p in home.iterdir()) == []


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("msd", "pack name 'msd' (\"name\" in .claude-plugin/plugin.json) is reserved"),
        ("msd-extras", "is reserved"),
        ("skills", "is reserved"),
        ("Acme Kit", "must be lowercase letters, digits and single hyphens"),
        ("a--b", "must be lowercase letters, digits and single hyphens"),
    ],
)
def test_pack_name_is_validated(tmp_path: Path, name: str, problem: str) -> None:
    home = tmp_path / "home"
    home.mkdir()
    pack = make_pack(
        tmp_path / "p", extra={".claude-plugin/plugin.json": json.dumps({"name": name})}
    )
    proc = run_cli(["--claude", "--global", "--yes", "--payload", str(pack)], home)
    assert proc.returncode == 2
    assert f"msd-install: {pack / '.claude-plugin/plugin.json'}: " in proc.stderr
    assert problem in proc.stderr
    assert list(home.iterdir()) == []


def test_name_from_the_folder_without_plugin_json(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    pack = make_pack(tmp_path / "tidy", drop=(".claude-plugin/plugin.json",))
    proc = run_cli(["--claude", "--global", "--yes", "--payload", str(pack)], home)
    assert proc.returncode == 0, proc.stderr
    assert (home / ".claude/skills/tidy-review/SKILL.md").is_file()
    assert (home / ".claude/msd-file-manifest.tidy.json").is_file()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--pack", "acme"], "--pack names a pack to remove: use it with --uninstall"),
        (["--uninstall", "--pack", "../x"], "--pack '../x' is not a pack name"),
        (["--payload", "nowhere"], "--payload names no directory"),
    ],
)
def test_usage_errors(tmp_path: Path, args: list[str], message: str) -> None:
    home = tmp_path / "home"
    home.mkdir()
    proc = run_cli(["--claude", "--global", "--yes", *args], home)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert list(home.iterdir()) == []


def test_not_a_pack(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    empty = tmp_path / "plain"
    (empty / "docs").mkdir(parents=True)
    (empty / "docs/a.md").write_text("x\n")
    proc = run_cli(["--claude", "--global", "--yes", "--payload", str(empty)], home)
    assert proc.returncode == 2
    assert f"msd-install: {empty}: has no commands/, agents/, skills/ or hooks/" in proc.stderr


def test_fifo_is_a_problem_never_read(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    pack = make_pack(tmp_path / "acme")
    os.mkfifo(pack / "references/pipe.md")
    proc = run_cli(["--claude", "--global", "--yes", "--payload", str(pack)], home)
    assert proc.returncode == 2
    assert "references/pipe.md: is not a plain file (a FIFO, socket or device)" in proc.stderr


def test_file_names_the_manifest_could_not_hold(tmp_path: Path) -> None:
    """A name with a control character, a backslash or bytes that are not UTF-8 would be
    written into the pack's manifest, which every later run would refuse: refused up front."""
    home = tmp_path / "home"
    home.mkdir()
    pack = make_pack(tmp_path / "acme")
    (pack / "references/new\nline.md").write_text("x\n")
    (pack / "references/back\\slash.md").write_text("x\n")
    (pack / "references").joinpath(os.fsdecode(b"caf\xe9.md")).write_text("x\n")
    proc = run_cli(["--claude", "--global", "--yes", "--payload", str(pack)], home)
    assert proc.returncode == 2
    assert "(3 problems)" in proc.stderr
    assert "references/new\\nline.md: its name holds a control character" in proc.stderr
    assert "references/back\\\\slash.md: its name holds a backslash" in proc.stderr
    assert "references/caf\\udce9.md: its name is not valid UTF-8" in proc.stderr
    assert list(home.iterdir()) == []


def test_files_flattened_onto_one_name_are_refused(tmp_path: Path) -> None:
    """``commands/git/commit.md`` and ``commands/git-commit.md`` both install as the command
    ``acme-git-commit``, a command and a skill of one name as one skill: one line per
    collision naming both files, nothing written. (Hook files keep their paths under
    ``hooks/<pack>/``: ``hooks/lib/common.sh`` and ``hooks/lib-common.sh`` never collide.)"""
    home = tmp_path / "home"
    home.mkdir()
    pack = make_pack(
        tmp_path / "acme",
        extra={
            "commands/git-commit.md": "---\ndescription: mine\n---\nx\n",
            "commands/lint.md": "---\ndescription: the lint command\n---\nx\n",
        },
    )
    proc = run_cli(["--claude", "--gemini", "--global", "--yes", "--payload", str(pack)], home)
    assert proc.returncode == 2
    lines = proc.stderr.splitlines()
    assert "(2 problems)" in lines[0], proc.stderr
    expected = [
        f"msd-install: {pack}/commands/git/commit.md: installs as acme-git-commit, as "
        "commands/git-commit.md does: rename one",
        f"msd-install: {pack}/skills/lint/SKILL.md: installs as acme-lint, as commands/lint.md "
        "does: rename one",
    ]
    assert sorted(lines[1:]) == sorted(expected)
    assert list(home.iterdir()) == []


def test_a_reference_to_a_file_the_pack_does_not_install_is_a_warning(tmp_path: Path) -> None:
    """A ``${CLAUDE_PLUGIN_ROOT}/<path>`` naming no file the pack installs (an example in a
    code block, a placeholder, a file made at run time) is a warning naming the whole
    reference, in a command, a skill's further file or an engine file; the pack installs and
    the reference is rewritten to where the file would be. Leaving the pack stays refused."""
    home = tmp_path / "home"
    home.mkdir()
    pack = make_pack(
        tmp_path / "acme",
        extra={
            "commands/run.md": "---\ndescription: run\n---\n"
            "Run `${CLAUDE_PLUGIN_ROOT}/scripts/gone.sh` then "
            "${CLAUDE_PLUGIN_ROOT}/skills/lint/reference.md.\n"
            "Config: ${CLAUDE_PLUGIN_ROOT}/config/icp.<domain>.yaml\n",
            "skills/lint/more.md": "See ${CLAUDE_PLUGIN_ROOT}/references/nope.md\n",
            "references/index.md": "Also ${CLAUDE_PLUGIN_ROOT}/README.md\n",
        },
    )
    proc = run_cli(["--claude", "--global", "--yes", "--payload", str(pack)], home)
    assert proc.returncode == 0, proc.stderr
    lines = [line.strip() for line in proc.stdout.splitlines()]
    warned = [line for line in lines if line.startswith("note: pack acme: warning: ")]
    assert len(warned) == 4, proc.stdout
    assert any(
        "commands/run.md: reference ${CLAUDE_PLUGIN_ROOT}/scripts/gone.sh: no such file in the "
        "pack" in line
        for line in warned
    )
    assert any(
        "commands/run.md: reference ${CLAUDE_PLUGIN_ROOT}/config/icp.<domain>.yaml: no such "
        "file" in line
        for line in warned
    )
    assert any(
        "skills/lint/more.md: reference ${CLAUDE_PLUGIN_ROOT}/references/nope.md: no such file"
        in line
        for line in warned
    )
    assert any(
        "references/index.md: reference ${CLAUDE_PLUGIN_ROOT}/README.md: that file is not "
        "installed" in line
        for line in warned
    )
    run = (home / ".claude/skills/acme-run/SKILL.md").read_text()
    assert "`~/.claude/acme/scripts/gone.sh`" in run
    assert "~/.claude/acme/config/icp.<domain>.yaml" in run

    escaping = make_pack(
        tmp_path / "esc",
        "esc",
        extra={"commands/up.md": "---\ndescription: up\n---\n${CLAUDE_PLUGIN_ROOT}/../x.md\n"},
    )
    before = sorted(p.name for p in (home / ".claude").iterdir())
    proc = run_cli(["--claude", "--global", "--yes", "--payload", str(escaping)], home)
    assert proc.returncode == 2
    assert "reference ${CLAUDE_PLUGIN_ROOT}/../x.md leaves the pack" in proc.stderr
    assert sorted(p.name for p in (home / ".claude").iterdir()) == before


def test_a_registered_script_outside_hooks_landing_on_a_hook_file_is_refused(
    tmp_path: Path,
) -> None:
    """A pack's hooks/ tree lands in ``hooks/<pack>/``, and so does a script hooks.json
    registers from elsewhere in the pack: ``g.py`` and ``hooks/g.py`` would be one file (one
    silently lost, both registrations running the other). Refused, naming both."""
    home = tmp_path / "home"
    home.mkdir()
    pack = tmp_path / "pke"
    (pack / ".claude-plugin").mkdir(parents=True)
    (pack / ".claude-plugin/plugin.json").write_text('{"name": "pke"}')
    (pack / "hooks").mkdir()
    (pack / "hooks/g.py").write_text('print("hooks")\n')
    (pack / "g.py").write_text('print("root")\n')
    command = {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/g.py"}
    registry = {"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [command]}]}}
    (pack / "hooks/hooks.json").write_text(json.dumps(registry))
    proc = run_cli(["--claude", "--global", "--yes", "--payload", str(pack)], home)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"{pack}/hooks/g.py: installs as hooks/pke/g.py, as g.py does: rename one" in (
        proc.stderr
    ) or f"{pack}/g.py: installs as hooks/pke/g.py, as hooks/g.py does: rename one" in (
        proc.stderr
    ), proc.stderr
    assert list(home.iterdir()) == []
