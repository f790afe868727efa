"""``${CLAUDE_PLUGIN_ROOT}/<path>`` in a pack's text names where that file really lands in each
runtime: an engine file under ``<root>/<pack>/``, a skill's file beside its SKILL.md
(``skills/<pack>-<name>/`` or wherever the runtime keeps skills), a hook file as
``hooks/<pack>-<flat name>``; in commands, agents, SKILL.md and a skill's further text files
alike. A hook script that reads ``CLAUDE_PLUGIN_ROOT`` itself gets a warning: no runtime sets
it when it runs the hook."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from packkit import FORMAT_SH, make_pack, pack_files

from helpers import run_cli

ROOT = "${CLAUDE_PLUGIN_ROOT}"
# marker -> the pack's file a text names with ${CLAUDE_PLUGIN_ROOT}
REFS = {
    "REF-SKILL": "skills/lint/reference.md",
    "REF-SCRIPT": "skills/lint/scripts/run_lint.py",
    "REF-ENGINE": "references/style.md",
    "REF-HOOK": "hooks/lib/common.sh",
}
TEXT = "".join(f"{marker} {ROOT}/{rel}\n" for marker, rel in REFS.items())
EXTRA: dict[str, str | bytes] = {
    "commands/paths.md": f"---\ndescription: paths everywhere\n---\n{TEXT}",
    "agents/pathfinder.md": f"---\nname: pathfinder\ndescription: finds\n---\n{TEXT}",
    "skills/lint/guide.md": f"# Guide\n\n{TEXT}",
}
# runtime, scope, whether it installs hook files (others have no hooks for a pack)
CASES = [
    ("claude", "--global", True),
    ("claude", "--local", True),
    ("codex", "--global", True),
    ("gemini", "--global", True),
    ("cursor", "--global", True),
    ("copilot", "--global", True),
    ("qwen", "--global", True),
    ("hermes", "--global", True),
    ("opencode", "--global", False),
    ("windsurf", "--global", False),
    ("trae", "--global", False),
]
_MARKED = re.compile(r"(REF-[A-Z]+) (\S+)")


def _installed(home: Path, base: Path, manifest: Path) -> dict[Path, bytes]:
    doc = json.loads(manifest.read_text())
    return {manifest.parent / rel: (manifest.parent / rel).read_bytes() for rel in doc["files"]}


@pytest.mark.parametrize(("runtime", "scope", "hooks"), CASES)
def test_every_plugin_root_path_lands_on_the_installed_file(
    tmp_path: Path, runtime: str, scope: str, hooks: bool
) -> None:
    home = tmp_path / "home"
    project = home / "proj"
    project.mkdir(parents=True)
    pack = make_pack(tmp_path / "acme", extra=EXTRA)
    proc = run_cli([f"--{runtime}", scope, "--yes", "--payload", str(pack)], home, project)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    manifest = next((project if scope == "--local" else home).rglob("msd-file-manifest.acme.json"))
    files = _installed(home, project, manifest)
    seen: set[str] = set()
    for path, data in files.items():
        text = data.decode("utf-8", "replace")
        if path.suffix not in (".md", ".toml"):
            continue
        assert "CLAUDE_PLUGIN_ROOT" not in text, path
        for marker, named in _MARKED.findall(text):
            if marker == "REF-HOOK" and not hooks:
                continue
            target = home / named[2:] if named.startswith("~/") else project / named
            assert target.is_file(), f"{path} names {named}, which is not installed"
            source = (pack / REFS[marker]).read_bytes()
            if marker in ("REF-SCRIPT", "REF-HOOK"):
                assert target.read_bytes() == source, named  # copied as they are
            seen.add(f"{path.name}:{marker}")
    # the command, the agent and the skill's further file each named all four
    for marker in REFS:
        if marker == "REF-HOOK" and not hooks:
            continue
        assert any(s.endswith(f":{marker}") and s.startswith("guide.md") for s in seen), marker
        assert sum(s.endswith(f":{marker}") for s in seen) >= 3, (marker, sorted(seen))


def test_claude_code_paths_as_the_user_reads_them(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    pack = make_pack(tmp_path / "acme", extra=EXTRA)
    proc = run_cli(["--claude", "--global", "--yes", "--payload", str(pack)], home)
    assert proc.returncode == 0, proc.stderr
    expected = (
        "REF-SKILL ~/.claude/skills/acme-lint/reference.md\n"
        "REF-SCRIPT ~/.claude/skills/acme-lint/scripts/run_lint.py\n"
        "REF-ENGINE ~/.claude/acme/references/style.md\n"
        "REF-HOOK ~/.claude/hooks/acme/lib/common.sh\n"
    )
    guide = (home / ".claude/skills/acme-lint/guide.md").read_text()
    assert guide == f"# Guide\n\n{expected}"
    assert (home / ".claude/skills/acme-paths/SKILL.md").read_text().endswith(expected)
    assert (home / ".claude/agents/acme-pathfinder.md").read_text().endswith(expected)


def test_a_hook_script_using_the_plugin_root_gets_a_warning(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    script = FORMAT_SH.replace(
        '. "$(dirname "$0")/lib/common.sh"', f'. "{ROOT}/hooks/lib/common.sh"'
    )
    assert script != FORMAT_SH
    pack = make_pack(tmp_path / "acme", extra={"hooks/format.sh": script})
    args = ["--claude", "--global", "--yes", "--payload", str(pack)]
    proc = run_cli(args, home)
    assert proc.returncode == 0, proc.stderr
    warning = (
        "pack acme: warning: hooks/format.sh uses ${CLAUDE_PLUGIN_ROOT}, which is not set when "
        "the runtime runs it: find the pack's files from the script's own folder instead"
    )
    assert f"note: {warning}" in proc.stdout
    assert proc.stdout.count("CLAUDE_PLUGIN_ROOT") == 1  # the other hooks do not use it
    assert (home / ".claude/hooks/acme/format.sh").read_text() == script  # installed all the same
    doc = json.loads(run_cli([*args, "--json"], home).stdout)
    assert warning in doc["results"][0]["notes"]


def test_a_healthy_pack_gets_no_plugin_root_warning(tmp_path: Path) -> None:
    assert "CLAUDE_PLUGIN_ROOT" not in "".join(
        v for k, v in pack_files().items() if k.startswith("hooks/") and k != "hooks/hooks.json"
    )
    home = tmp_path / "home"
    home.mkdir()
    proc = run_cli(
        ["--claude", "--global", "--yes", "--payload", str(make_pack(tmp_path / "a"))], home
    )
    assert proc.returncode == 0
    assert "warning" not in proc.stdout


@pytest.mark.parametrize(
    ("runtime", "guide", "engine"),
    [
        ("claude", ".claude/skills/acme-lint/guide.md", "~/.claude/acme/references/style.md"),
        ("gemini", ".gemini/skills/acme-lint/guide.md", "~/.gemini/acme/references/style.md"),
    ],
)
def test_a_skills_further_text_file_is_rewritten_too(
    tmp_path: Path, runtime: str, guide: str, engine: str
) -> None:
    """Only SKILL.md was rewritten: a skill's ``guide.md`` kept ``${CLAUDE_PLUGIN_ROOT}``,
    which nothing sets when the agent reads it."""
    home = tmp_path / "home"
    home.mkdir()
    extra: dict[str, str | bytes] = {"skills/lint/guide.md": f"Read {ROOT}/references/style.md\n"}
    pack = make_pack(tmp_path / "acme", extra=extra)
    proc = run_cli([f"--{runtime}", "--global", "--yes", "--payload", str(pack)], home)
    assert proc.returncode == 0, proc.stderr
    assert (home / guide).read_text() == f"Read {engine}\n"
    assert (home / engine[2:]).read_bytes() == (pack / "references/style.md").read_bytes()


def test_yml_text_is_rewritten_like_yaml(tmp_path: Path) -> None:
    """``.yml`` is text for the pack (validated, rewritten) and for the runtimes alike: in a
    skill and in an engine folder it names the installed files on Gemini CLI too."""
    home = tmp_path / "home"
    home.mkdir()
    extra: dict[str, str | bytes] = {
        "skills/lint/rules.yml": f"style: {ROOT}/references/style.md\n",
        "config/ci.yml": f"lint: {ROOT}/skills/lint/scripts/run_lint.py\n",
    }
    pack = make_pack(tmp_path / "acme", extra=extra)
    proc = run_cli(["--gemini", "--global", "--yes", "--payload", str(pack)], home)
    assert proc.returncode == 0, proc.stderr
    gemini = home / ".gemini"
    assert (gemini / "skills/acme-lint/rules.yml").read_text() == (
        "style: ~/.gemini/acme/references/style.md\n"
    )
    assert (gemini / "acme/config/ci.yml").read_text() == (
        "lint: ~/.gemini/skills/acme-lint/scripts/run_lint.py\n"
    )
