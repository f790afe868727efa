"""What the second review of ``--payload`` packs found: a hook matching no tool of the runtime
is not registered (never widened to every call), quoted pack paths of global installs work in
the shell, uninstalls in any order leave no empty containers, a pack never removes what another
manifest owns, the claims check sees MSD Core's manifest."""

from __future__ import annotations

import itertools
import json
import re
import subprocess
from pathlib import Path

import pytest
from packkit import make_pack

from helpers import build, restore, run_cli, snapshot

DENY = "#!/bin/sh\nexit 2\n"


def _ok(args: list[str], home: Path, cwd: Path | None = None) -> str:
    proc = run_cli([*args, "--yes"], home, cwd)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    return proc.stdout


def _hooks(event: str, matcher: str | None, script: str = "deny.sh") -> str:
    group: dict[str, object] = {
        "hooks": [{"type": "command", "command": f"${{CLAUDE_PLUGIN_ROOT}}/hooks/{script}"}]
    }
    if matcher is not None:
        group["matcher"] = matcher
    return json.dumps({"hooks": {event: [group]}})


def _hook_pack(directory: Path, name: str, event: str, matcher: str | None = None) -> Path:
    directory.mkdir(parents=True)
    (directory / ".claude-plugin").mkdir()
    (directory / ".claude-plugin/plugin.json").write_text(json.dumps({"name": name}))
    (directory / "hooks").mkdir()
    (directory / "hooks/hooks.json").write_text(_hooks(event, matcher))
    (directory / "hooks/deny.sh").write_text(DENY)
    (directory / "hooks/deny.sh").chmod(0o755)
    return directory


# H1 ------------------------------------------------------------------------------------------


def test_copilot_hook_matching_no_copilot_tool_is_not_registered(tmp_path: Path) -> None:
    """``WebFetch|WebSearch`` names no Copilot tool: without a matcher the hook would run on
    (and deny) every call; it is left out with a note instead."""
    home = tmp_path / "home"
    home.mkdir()
    pack = _hook_pack(tmp_path / "web", "web", "PreToolUse", "WebFetch|WebSearch")
    out = _ok(["--copilot", "--global", "--payload", str(pack)], home)
    assert "web-deny matches no GitHub Copilot CLI tool: not used" in out
    hooks = json.loads((home / ".copilot/hooks/msd-hooks.json").read_text())
    assert hooks == {"version": 1}


# H2 ------------------------------------------------------------------------------------------

QUOTED = (
    "---\ndescription: Run the check\n---\n"
    'A: `bash "${CLAUDE_PLUGIN_ROOT}/scripts/x.sh" one`\n'
    'B: `bash "$CLAUDE_PLUGIN_ROOT"/scripts/x.sh two`\n'
    "C: `bash '${CLAUDE_PLUGIN_ROOT}/scripts/x.sh' three`\n"
    'D: `sh -c "cd ${CLAUDE_PLUGIN_ROOT}/scripts && bash x.sh four"`\n'
    "E: `bash ${CLAUDE_PLUGIN_ROOT}/scripts/x.sh five`\n"
)


@pytest.mark.parametrize("runtime", ["claude", "gemini"])
def test_quoted_pack_paths_of_a_global_install_run_in_bash(tmp_path: Path, runtime: str) -> None:
    """``"${CLAUDE_PLUGIN_ROOT}/scripts/x.sh"`` must not become ``"~/.claude/..."`` (no tilde
    expansion inside quotes): each command of the installed text runs with bash, from
    another folder, and reaches the pack's script."""
    home = tmp_path / "home"
    home.mkdir()
    pack = make_pack(
        tmp_path / "acme",
        extra={
            "commands/check.md": QUOTED,
            "scripts/x.sh": '#!/bin/sh\necho "ran $1"\n',
        },
    )
    _ok([f"--{runtime}", "--global", "--payload", str(pack)], home)
    installed = {
        "claude": home / ".claude/skills/acme-check/SKILL.md",
        "gemini": home / ".gemini/commands/acme-check.toml",
    }[runtime]
    text = installed.read_text()
    if runtime == "gemini":
        text = text.replace('\\"', '"')
    commands = re.findall(r"\b[A-E]: `([^`]*)`", text)
    assert len(commands) == 5, text
    assert commands[4].startswith("bash ~/"), commands[4]  # unquoted: ~ still expands
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for command, word in zip(commands, ["one", "two", "three", "four", "five"], strict=True):
        proc = subprocess.run(
            ["bash", "-c", command],
            cwd=elsewhere,
            env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.stdout == f"ran {word}\n", (command, proc.stderr)


# H3 ------------------------------------------------------------------------------------------

SEEDS = {
    "claude": {},  # no settings.json: the first install creates it, the last removes it
    "gemini": {".gemini/settings.json": '{"theme": "dark"}\n'},
    "codex": {".codex/config.toml": 'model = "o3"\n\n[features]\nx = true\n'},
}
ORDERS = list(itertools.permutations("CAB"))


@pytest.mark.parametrize("installs", ["".join(o) for o in ORDERS])
@pytest.mark.parametrize(
    ("runtime", "scope"),
    [("claude", "--global"), ("gemini", "--global"), ("codex", "--global"), ("claude", "--local")],
)
def test_msd_core_and_two_hook_packs_leave_nothing_in_any_order(
    tmp_path: Path, runtime: str, scope: str, installs: str
) -> None:
    """MSD Core (C) and packs with hooks on different events (A: PreToolUse, B: Stop), in
    this install order, then each of the six uninstall orders: the tree is exactly the one
    before (no ``{"hooks": {}}``, no settings file msd created, the user's bytes as they
    were)."""
    home = tmp_path / "home"
    home.mkdir()
    build(home, SEEDS[runtime])
    cwd = home
    if scope == "--local":
        cwd = home / "proj"
        build(cwd, {"README.md": "mine\n"})
    before = snapshot(home)
    packs = {
        "A": _hook_pack(tmp_path / "acme", "acme", "PreToolUse", "Bash"),
        "B": _hook_pack(tmp_path / "beta", "beta", "Stop"),
    }
    base = [f"--{runtime}", scope]
    install = {"C": base, **{k: [*base, "--payload", str(p)] for k, p in packs.items()}}
    uninstall = {
        "C": [*base, "--uninstall"],
        "A": [*base, "--uninstall", "--pack", "acme"],
        "B": [*base, "--uninstall", "--pack", "beta"],
    }
    for key in installs:
        _ok(install[key], home, cwd)
    installed = snapshot(home)
    for order in ORDERS:
        restore(home, installed)
        for key in order:
            _ok(uninstall[key], home, cwd)
        assert snapshot(home) == before, f"install {installs}, uninstall {''.join(order)}"


# H4 ------------------------------------------------------------------------------------------


def test_uninstalling_a_pack_never_removes_what_another_manifest_lists(tmp_path: Path) -> None:
    """A planted ``msd-file-manifest.evil.json``, a copy of MSD Core's (right hashes, its
    settings entries, its store): ``--uninstall --pack evil`` removes that manifest only and
    reports every path of MSD Core's as skipped, owned by MSD Core."""
    home = tmp_path / "home"
    home.mkdir()
    _ok(["--claude", "--global"], home)
    root = home / ".claude"
    core = root / "msd-file-manifest.json"
    (root / "msd-file-manifest.evil.json").write_bytes(core.read_bytes())
    state = json.loads(core.read_text())["state"]
    for rel in state:  # what MSD Core's hooks write at run time
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("{}\n")
    planted = snapshot(home)
    out = _ok(["--claude", "--global", "--uninstall", "--pack", "evil"], home)
    after = snapshot(home)
    assert set(planted) - set(after) == {".claude/msd-file-manifest.evil.json"}
    assert {k: v for k, v in planted.items() if k in after} == after
    assert "skip      ~/.claude/agents/msd-planner.md  (owned by MSD Core" in out
    assert "msd-pristine.zlib  (owned by MSD Core" in out
    for rel in state:
        assert f"{rel}  (owned by MSD Core" in out


# M1, M2 --------------------------------------------------------------------------------------


@pytest.mark.parametrize("runtime", ["claude", "codex"])
def test_the_claims_check_reads_msd_cores_manifest(tmp_path: Path, runtime: str) -> None:
    """MSD Core's manifest names state files a pack's may not: it is still read by the claims
    check, not skipped. No pack name can land on an MSD Core path (``msd`` names are
    refused), so MSD Core's manifest is given one of the pack's paths: the install is
    refused naming MSD Core, and nothing is written."""
    home = tmp_path / "home"
    home.mkdir()
    _ok([f"--{runtime}", "--global"], home)
    pack = make_pack(tmp_path / "acme")
    root = home / f".{runtime}"
    dry = run_cli([f"--{runtime}", "--global", "--payload", str(pack), "--dry-run", "--json"], home)
    landed = [a["path"] for a in json.loads(dry.stdout)["results"][0]["actions"]]
    target = next(p for p in landed if "acme" in p and p.endswith(".md"))
    core = root / "msd-file-manifest.json"
    doc = json.loads(core.read_text())
    assert doc["state"], "MSD Core's manifest lists state files"
    rel = str(Path(target.replace("~", str(home))).relative_to(root))
    doc["files"][rel] = {"sha256": "0" * 64, "mode": 420}
    core.write_text(json.dumps(doc, indent=2))
    before = snapshot(home)
    proc = run_cli([f"--{runtime}", "--global", "--payload", str(pack), "--yes"], home)
    assert proc.returncode != 0
    assert "which MSD Core installed (msd-file-manifest.json)" in proc.stderr, proc.stderr
    assert snapshot(home) == before


def test_under_all_a_claims_refusal_comes_before_any_runtime_is_written(tmp_path: Path) -> None:
    """Pack ``acme`` is in Kimi's root; pack ``acme-git`` would take its ``acme-git-commit``
    there. ``--all`` refuses before the first runtime (Claude Code) is written."""
    home = tmp_path / "home"
    home.mkdir()
    acme = make_pack(tmp_path / "acme")
    other = make_pack(
        tmp_path / "acme-git",
        "acme-git",
        extra={"commands/commit.md": "---\ndescription: theirs\n---\nOther commit.\n"},
    )
    _ok(["--kimi", "--global", "--payload", str(acme)], home)
    before = snapshot(home)
    proc = run_cli(["--all", "--global", "--payload", str(other), "--yes"], home)
    assert proc.returncode != 0, proc.stdout
    assert "which pack acme installed (msd-file-manifest.acme.json)" in proc.stderr, proc.stderr
    assert snapshot(home) == before


# M3 ------------------------------------------------------------------------------------------


def test_a_matcher_on_a_non_tool_event_is_kept_or_the_hook_not_registered(tmp_path: Path) -> None:
    """SessionStart ``startup`` keeps its matcher in Claude Code; where a runtime has no
    matcher on that event the hook is left out with a note (never widened to every start)."""
    home = tmp_path / "home"
    home.mkdir()
    pack = _hook_pack(tmp_path / "boot", "boot", "SessionStart", "startup")
    _ok(["--claude", "--global", "--payload", str(pack)], home)
    settings = json.loads((home / ".claude/settings.json").read_text())
    groups = settings["hooks"]["SessionStart"]
    assert [g.get("matcher") for g in groups] == ["startup"]
    assert "hooks/boot/deny.sh" in groups[0]["hooks"][0]["command"]
    for runtime, label, config in [
        ("gemini", "Gemini CLI", ".gemini/settings.json"),
        ("copilot", "GitHub Copilot CLI", ".copilot/hooks/msd-hooks.json"),
    ]:
        out = _ok([f"--{runtime}", "--global", "--payload", str(pack)], home)
        note = f"boot-deny runs only on SessionStart 'startup': {label} has no matcher there"
        assert note in out, out
        written = home / config
        assert not written.exists() or "hooks/boot/" not in written.read_text()


# reserved names ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["agent", "command", "mode", "output-styles", "config"])
def test_a_pack_named_as_a_runtime_folder_is_refused(tmp_path: Path, name: str) -> None:
    """``agent``: its engine folder would be OpenCode's ``agent/``, read as agents."""
    home = tmp_path / "home"
    home.mkdir()
    pack = make_pack(tmp_path / name, name)
    proc = run_cli(["--opencode", "--global", "--payload", str(pack), "--yes"], home)
    assert proc.returncode == 2
    assert f"pack name {name!r}" in proc.stderr and "is reserved" in proc.stderr, proc.stderr
    assert list(home.iterdir()) == []


# . and .. in references ----------------------------------------------------------------------


def test_dot_segments_in_a_reference_are_resolved_before_it_is_placed(tmp_path: Path) -> None:
    """``skills/lint/../../references/style.md`` names the engine file, not a path beside the
    skill's installed folder: it becomes where that file landed, and the file is there."""
    home = tmp_path / "home"
    home.mkdir()
    pack = make_pack(
        tmp_path / "acme",
        extra={
            "commands/dots.md": "---\ndescription: dots\n---\n"
            "A ${CLAUDE_PLUGIN_ROOT}/skills/lint/../../references/style.md\n"
            "B ${CLAUDE_PLUGIN_ROOT}/./skills/lint/reference.md\n"
        },
    )
    _ok(["--claude", "--global", "--payload", str(pack)], home)
    text = (home / ".claude/skills/acme-dots/SKILL.md").read_text()
    named = dict(line.split(" ", 1) for line in text.splitlines() if line[:2] in ("A ", "B "))
    assert named == {
        "A": "~/.claude/acme/references/style.md",
        "B": "~/.claude/skills/acme-lint/reference.md",
    }
    for path in named.values():
        assert (home / path.removeprefix("~/")).is_file(), path
