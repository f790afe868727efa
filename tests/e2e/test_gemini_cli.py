"""What Gemini CLI itself reports after our install: MCP connected, skills listed, every agent,
skill and command taken in by its own loaders (the loopback stub model), hooks answering in
its dialect, and the traps of real-clients.md."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import jsonschema
import pytest
from gemini_kit import (
    GEMINI_SCAFFOLD,
    gemini,
    gemini_subagents,
    initialize,
    jsonc,
    msd,
    output,
    server_lines,
    xml_names,
)
from model_stub_apis import GeminiStub
from stub_turns import GEMINI_TRUSTED, gemini_loader_errors, gemini_turn

from helpers import build, run_cli, snapshot
from msd_install import schemas
from msd_install.payload import load

pytestmark = pytest.mark.e2e

AGENTS = sorted(a.name for a in load().agents)
SKILLS = sorted(s.name for s in load().skills)
TRUSTED = GEMINI_TRUSTED
USER_SETTINGS = (
    "{\n"
    "  // my own settings, comments and all\n"
    '  "ui": {"theme": "Dracula"},\n'
    '  "mcpServers": {"mine": {"command": "python3", "args": ["-c", "pass"]}} /* mine */\n'
    "}\n"
)


def _install(home: Path, cwd: Path, *flags: str) -> str:
    proc = run_cli(["--gemini", *flags, "--yes"], home, cwd=cwd)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def _schema_errors(settings: object) -> list[str]:
    validator = jsonschema.Draft7Validator(schemas.load("gemini-cli-settings"))
    return [e.message for e in validator.iter_errors(settings)]


def _no_loader_errors(text: str) -> None:
    assert gemini_loader_errors(text) == [], text


def _seeded_home(tmp_path: Path) -> tuple[Path, Path]:
    home, project = tmp_path / "home", tmp_path / "my project"
    build(home, {".gemini/settings.json": USER_SETTINGS})
    build(project, {".gemini/settings.json": json.dumps(GEMINI_SCAFFOLD), "README.md": "hi\n"})
    return home, project


def test_global_install_as_gemini_sees_it(tmp_path: Path) -> None:
    home, project = _seeded_home(tmp_path)
    before = snapshot(home)
    _install(home, project, "--global")
    settings = jsonc(home / ".gemini/settings.json")
    errors = list(
        jsonschema.Draft7Validator(schemas.load("gemini-cli-settings")).iter_errors(settings)
    )
    assert errors == []
    server = settings["mcpServers"]["msd"]

    listed = gemini(home, project, "mcp", "list", **TRUSTED)
    assert listed.returncode == 0, output(listed)
    _no_loader_errors(output(listed))
    command = " ".join([server["command"], *server["args"]])
    assert server_lines(output(listed)) == [f"✓ msd: {command} (stdio) - Connected"]
    answer = initialize(server, project, home)
    assert answer["result"]["serverInfo"]["name"]

    skills = gemini(home, project, "skills", "list", **TRUSTED)
    assert skills.returncode == 0, output(skills)
    for name in SKILLS:
        assert output(skills).count(f"{name} [Enabled]") == 1, name
        assert f"{home}/.gemini/skills/{name}/SKILL.md" in output(skills)

    with GeminiStub() as stub:
        system, user, out = gemini_turn(home, project, "/msd-help XYZ", stub)
    _no_loader_errors(out)
    assert msd(gemini_subagents(system)) == AGENTS
    assert msd(xml_names(system, "available_skills")) == SKILLS
    # the command file was found, its workflow injected through @{…} (the include
    # directories put msd-core inside the workspace) and {{args}} replaced
    assert "<arguments>\nXYZ\n" in user and "# MSD Core" in user
    assert "{{args}}" not in user and "@{" not in user and "$ARGUMENTS" not in user

    with GeminiStub() as stub:
        _system, user, out = gemini_turn(home, project, "/msd-plan-phase 7", stub)
    _no_loader_errors(out)
    assert "<arguments>\n7\n" in user
    for ref in ("workflows/plan-phase.md", "references/gates.md", "references/checkpoints.md"):
        first_line = (home / ".gemini/msd-core" / ref).read_text().splitlines()[0]
        assert first_line in user, ref

    _install(home, project, "--global", "--uninstall")
    after = snapshot(home)
    assert not [p for p in after if "msd" in p], [p for p in after if "msd" in p]
    for path, content in before.items():
        assert after[path] == content, path  # gemini adds its own files, never changes ours


def test_local_install_waits_for_trust_and_for_acknowledged_agents(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "my project"
    build(home, {".gemini/settings.json": json.dumps(GEMINI_SCAFFOLD)})
    build(project, {"README.md": "hi\n", ".env.production": "TOKEN=1\n"})
    before = snapshot(project)
    report = _install(home, project, "--local")
    assert "trust" in report and "acknowledge" in report  # the user is told; we did neither
    assert not (home / ".gemini/trustedFolders.json").exists()
    assert not (home / ".gemini/acknowledgments").exists()
    settings = jsonc(project / ".gemini/settings.json")
    assert (
        list(jsonschema.Draft7Validator(schemas.load("gemini-cli-settings")).iter_errors(settings))
        == []
    )

    untrusted = output(gemini(home, project, "mcp", "list"))
    assert [ln.endswith("- Disabled") for ln in server_lines(untrusted)] == [True]
    trusted = output(gemini(home, project, "mcp", "list", **TRUSTED))
    assert [ln.endswith("- Connected") for ln in server_lines(trusted)] == [True]
    assert initialize(settings["mcpServers"]["msd"], project, home)["result"]

    with GeminiStub() as stub:
        system, user, out = gemini_turn(home, project, "/msd-help XYZ", stub)
    _no_loader_errors(out)
    assert msd(gemini_subagents(system)) == []  # held back: not acknowledged
    assert msd(xml_names(system, "available_skills")) == SKILLS
    assert "<arguments>\nXYZ\n" in user and "# MSD Core" in user

    # what the user does when gemini asks: acknowledge each agent file (by its sha256)
    acks = {
        str(project): {
            p.stem: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in (project / ".gemini/agents").glob("*.md")
        }
    }
    build(home, {".gemini/acknowledgments/agents.json": json.dumps(acks)})
    secret = project / ".env.production"
    with GeminiStub("PLEASE-READ", "read_file", {"file_path": str(secret)}) as stub:
        system, _user, out = gemini_turn(home, project, "PLEASE-READ the file", stub)
        responses = stub.function_responses()
    _no_loader_errors(out)
    assert msd(gemini_subagents(system)) == AGENTS
    # the BeforeTool hook ran through "$GEMINI_PROJECT_DIR" (a path with a space) and denied
    assert len(responses) == 1
    assert "msd-secret-read-guard" in json.dumps(responses[0]), responses
    assert "TOKEN=1" not in json.dumps(responses[0])

    _install(home, project, "--local", "--uninstall")
    assert snapshot(project) == before


@pytest.mark.parametrize("scope", ["--global", "--local"])
def test_side_by_side_with_claude_every_item_once(tmp_path: Path, scope: str) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    build(home, {".gemini/settings.json": json.dumps(GEMINI_SCAFFOLD)})
    project.mkdir()
    assert run_cli(["--claude", scope, "--yes"], home, cwd=project).returncode == 0
    _install(home, project, scope)

    def once() -> None:
        listed = output(gemini(home, project, "skills", "list", **TRUSTED))
        assert sorted(s for s in SKILLS if listed.count(f"{s} [Enabled]") == 1) == SKILLS
        assert ".claude/" not in listed  # Gemini reads no Claude folder (real-clients.md)

    once()
    assert run_cli(["--claude", scope, "--yes", "--uninstall"], home, cwd=project).returncode == 0
    once()
    assert run_cli(["--claude", scope, "--yes"], home, cwd=project).returncode == 0
    claude_root = home / ".claude" if scope == "--global" else project / ".claude"
    claude_before = snapshot(claude_root)
    _install(home, project, scope, "--uninstall")
    assert snapshot(claude_root) == claude_before  # Claude's install is untouched


def test_the_traps_gemini_sets(tmp_path: Path) -> None:
    """Hand-made files the way a naive converter would write them, and what gemini does."""
    home, project = tmp_path / "home", tmp_path / "proj"
    build(
        home,
        {
            ".gemini/settings.json": json.dumps(GEMINI_SCAFFOLD),
            ".gemini/agents/zz-claude-tools.md": (
                "---\nname: zz-claude-tools\ndescription: x\ntools:\n  - read_file\n  - Grep\n"
                "---\nA body that is long enough.\n"
            ),
            ".gemini/commands/zz-dollar.toml": 'description = "d"\nprompt = "Args: $ARGUMENTS."\n',
        },
    )
    project.mkdir()
    with GeminiStub() as stub:
        system, user, out = gemini_turn(home, project, "/zz-dollar XYZ", stub)
    assert "Agent loading error" in out and "Invalid tool name" in out  # Claude's Grep
    assert "zz-claude-tools" not in gemini_subagents(system)
    assert "Args: $ARGUMENTS." in user  # never replaced; the typed args are appended instead
    build(home, {".gemini/settings.json": '{\n  "ui": {},\n}\n'})
    broken = gemini(home, project, "mcp", "list")
    assert broken.returncode == 52 and "Error in" in output(broken)
