"""Augment Code (Auggie): the planned trees and the traps of Auggie 0.36.0, each as a test.

The traps come from Auggie's own code (``augment.mjs``) and were seen with the real CLI
(tests/e2e/test_augment_cli.py): hook timeouts are milliseconds, matchers are unanchored
regexes, a command body's ``{word}``/``{{x}}``/``$1`` are replaced by the arguments, ``@path``
is not expanded, a skill without a valid name or description is dropped silently, and an agent
with both ``tools`` and ``disabled_tools`` loses its allowlist.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from golden import check, context

from msd_install.installer.context import GLOBAL, LOCAL
from msd_install.installer.plan import Plan
from msd_install.payload import load, split_frontmatter
from msd_install.runtimes import adapter
from msd_install.runtimes.augment import FILE_WRITE

# every tool name Auggie 0.36.0 defines (super("<name>", ...) in augment.mjs), both tool sets
AUGGIE_TOOLS = [
    *("add_tasks", "apply_patch", "ask-user", "bash", "codebase-retrieval"),
    *("codebase-retrieval-raw", "conversation-retrieval", "edit", "enter-plan-mode"),
    *("exit-plan-mode", "find", "grep", "grep-search", "kill-process", "launch-process"),
    *("list-processes", "ls", "read", "read-process", "remove-files", "render-mermaid"),
    *("reorganize_tasklist", "report-to-parent", "save-file", "search-untruncated"),
    *("setup-script", "str-replace-editor", "update_tasks", "view", "view-range-untruncated"),
    *("view-session", "view_tasklist", "web-fetch", "write", "write-process"),
    "sub-agent-msd-planner",
]
INTENDED = {
    "msd-secret-read-guard": {"view", "read", "grep-search", "grep", "launch-process", "bash"},
    "msd-prompt-guard": {"save-file", "write", "str-replace-editor", "edit"},
    "msd-validate-commit": {"launch-process", "bash"},
    "msd-read-injection-scanner": {"view", "read"},
    "msd-phase-boundary": {"save-file", "write", "str-replace-editor", "edit"},
}
# what Auggie substitutes in a command body besides $ARGUMENTS (its function Ahn/Tpi)
SUBSTITUTED = re.compile(r"\{\{[^}]+\}\}|\$[1-9][0-9]*|\{[a-zA-Z_][a-zA-Z0-9_]*\}")


def plan_of(scope: str, **extra: object) -> Plan:
    augment = adapter("augment")
    assert augment is not None
    return augment.plan(context(scope, **extra), load())


def texts(plan: Plan, folder: str) -> dict[str, str]:
    out = {}
    for op in plan.files:
        rel = op.path.relative_to(plan.root).as_posix()
        if rel.startswith(folder) and rel.endswith(".md"):
            out[rel] = op.content.decode()
    return out


@pytest.mark.parametrize("scope", [GLOBAL, LOCAL])
def test_augment_golden(scope: str) -> None:
    plan = plan_of(scope)
    samples = ("skills/msd-plan-phase/SKILL.md", "skills/msd-workflow/SKILL.md")
    check(f"augment-{scope}", plan, (*samples, "agents/msd-plan-checker.md"))


def test_roots_and_files() -> None:
    glob, loc = plan_of(GLOBAL), plan_of(LOCAL)
    assert glob.root == Path("/HOME/.augment") and loc.root == Path("/PROJECT/.augment")
    names = {op.path.relative_to(glob.root).as_posix() for op in glob.files}
    payload = load()
    for item in [*payload.commands, *payload.skills]:
        assert f"skills/{item.name}/SKILL.md" in names
    assert not [n for n in names if n.startswith("commands/")]  # commands are skills (rule 3)
    assert {f"agents/{a.name}.md" for a in payload.agents} <= names
    assert {e.file for e in glob.entries} == {glob.root / "settings.json"}
    assert {e.file for e in loc.entries} == {loc.root / "settings.json"}


@pytest.mark.parametrize("scope", [GLOBAL, LOCAL])
def test_hook_timeouts_are_milliseconds(scope: str) -> None:
    hooks = {h.name: h for h in load().hooks}
    entries = [e for e in plan_of(scope).entries if e.label.startswith("hook ")]
    assert entries
    for entry in entries:
        hook = hooks[entry.label.removeprefix("hook ")]
        assert entry.value["hooks"][0]["timeout"] == hook.timeout * 1000  # 10 would be 10 ms


def test_matchers_match_exactly_the_intended_tools() -> None:
    """Auggie tests ``new RegExp(matcher).test(tool_name)``: unanchored, so ``edit`` alone would
    also catch ``str-replace-editor`` and ``view`` the task list."""
    seen = {}
    for entry in plan_of(GLOBAL).entries:
        matcher = entry.value.get("matcher") if isinstance(entry.value, dict) else None
        if matcher:
            name = entry.label.removeprefix("hook ")
            seen[name] = {t for t in AUGGIE_TOOLS if re.search(matcher, t)}
    assert seen == INTENDED


def test_hook_commands_run_our_scripts_with_the_augment_dialect() -> None:
    for scope, where in (
        (GLOBAL, '"/usr/bin/python3" -I -S "/HOME/.augment/hooks/'),
        (LOCAL, 'python3 -I -S "$AUGMENT_PROJECT_DIR"/'),  # committed: nothing of this machine
    ):
        for entry in plan_of(scope).entries:
            if entry.label.startswith("hook "):
                command = entry.value["hooks"][0]["command"]
                assert command.startswith(where), command
                assert re.search(r'msd-[a-z-]+\.py"? --dialect augment$', command), command
    events = {e.label: e.path for e in plan_of(GLOBAL).entries}
    assert events["hook msd-prompt-guard"] == ("hooks", "PostToolUse")  # advice after the write
    for unused in ("msd-read-guard", "msd-session-state", "msd-workflow-guard"):
        assert f"hook {unused}" not in events


def test_mcp_server_in_auggies_shape() -> None:
    entry = next(e for e in plan_of(GLOBAL).entries if e.label == "MCP server msd")
    assert (entry.fmt, entry.path, entry.key) == ("jsonc", ("mcpServers",), "msd")
    assert entry.value == {
        "type": "stdio",
        "command": "/usr/bin/python3",
        "args": ["-I", "-S", "/HOME/.augment/msd-core/bin/msd-mcp"],
        "env": {"MSD_AUDIT_LOG": "/HOME/.local/state/msd/audit.jsonl"},
    }
    # a project install is committed: python3 from the PATH, the launcher from the project
    # root, the audit log of whoever runs it (the server finds it)
    entry = next(e for e in plan_of(LOCAL).entries if e.label == "MCP server msd")
    assert (entry.fmt, entry.path, entry.key) == ("jsonc", ("mcpServers",), "msd")
    assert entry.value == {
        "type": "stdio",
        "command": "python3",
        "args": ["-I", "-S", ".augment/msd-core/bin/msd-mcp"],
    }


def test_skills_are_valid_and_nothing_in_them_is_substituted_by_surprise() -> None:
    for rel, text in texts(plan_of(GLOBAL), "skills/").items():
        doc = split_frontmatter(rel, text)
        name, description = doc.get("name"), doc.get("description")
        assert name == rel.split("/")[1], rel  # Auggie's command name is the folder name
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name) and len(name) <= 64
        assert isinstance(description, str) and 1 <= len(description.strip()) <= 1024
        assert set(dict(doc.meta)) == {"name", "description"}
        assert not SUBSTITUTED.search(doc.body), (rel, SUBSTITUTED.search(doc.body))
        assert not re.search(r"(?<![\w`])@[~./]", doc.body), rel  # Auggie does not expand @path
        assert "Skill tool" not in doc.body and "Task(" not in doc.body
    progress = texts(plan_of(GLOBAL), "skills/msd-progress/")["skills/msd-progress/SKILL.md"]
    assert "$ARGUMENTS" in progress  # Auggie's own placeholder
    assert "`~/.augment/msd-core/workflows/progress.md` (read this file)" in progress


def test_agents_in_auggies_frontmatter() -> None:
    payload = {a.name: a for a in load().agents}
    for rel, text in texts(plan_of(GLOBAL), "agents/").items():
        meta = dict(split_frontmatter(rel, text).meta)
        source = payload[meta["name"]]
        assert set(meta) <= {"name", "description", "color", "disabled_tools"}, rel
        assert "tools" not in meta  # with disabled_tools it would be dropped by Auggie
        assert meta["color"] == source.doc.get("color")
        granted = set(source.tools)
        denied = set(meta.get("disabled_tools", []))
        if granted & {"Write", "Edit"}:
            assert not denied & set(FILE_WRITE), rel  # Claude's Write overwrites: keep editors
        else:
            assert set(FILE_WRITE) <= denied, rel
        assert not denied & {"view", "read", "launch-process", "bash"}  # all may read and run
    checker = texts(plan_of(GLOBAL), "agents/msd-plan-checker")["agents/msd-plan-checker.md"]
    assert '  - "str-replace-editor"' in checker and '  - "save-file"' in checker


def test_workflows_start_agents_through_their_sub_agent_tool() -> None:
    workflow = texts(plan_of(GLOBAL), "msd-core/workflows/")["msd-core/workflows/plan-phase.md"]
    assert "Task(" not in workflow and "subagent_type" not in workflow
    calls = re.findall(r'sub-agent-(msd-[a-z-]+)\(\n  action="run",\n  name="([^"]+)",\n', workflow)
    assert ("msd-planner", "plan-phase-<N>") in calls
    assert ("msd-plan-checker", "check-phase-<N>-plans-round-<i>") in calls
    assert all(" " not in name for _, name in calls)
    assert 'model="' not in workflow  # Auggie takes the model from the agent file only


@pytest.mark.parametrize("scope", [GLOBAL, LOCAL])
def test_context_file_and_claude_names(scope: str) -> None:
    """Auggie reads AGENTS.md and CLAUDE.md as rules: the executor's wording stays."""
    text = texts(plan_of(scope), "agents/msd-executor")["agents/msd-executor.md"]
    assert "`./CLAUDE.md` or `AGENTS.md`" in text
    for op in plan_of(scope).files:
        if op.path.suffix == ".md":
            body = op.content.decode()
            assert "~/.claude" not in body and ".claude/" not in body and "--claude" not in body
            for claude_only in ("Glob/Grep", "WebFetch on", "Skill tool", "Task call", "Edit tool"):
                assert claude_only not in body, (op.path, claude_only)
            assert not re.search(r"\b(Read|Write|Edit|Bash) tool", body), op.path


def test_config_dir_is_explained() -> None:
    plan = plan_of(GLOBAL, config_dir=Path("/ELSEWHERE"))
    assert plan.root == Path("/ELSEWHERE")
    assert any("auggie --augment-cache-dir /ELSEWHERE" in note for note in plan.notes)
    assert not any("--augment-cache-dir" in note for note in plan_of(GLOBAL).notes)


def test_notes_name_what_was_dropped() -> None:
    notes = "\n".join(plan_of(GLOBAL).notes)
    for word in ("argument-hint", "allowed-tools", "'opus'", "msd-statusline", "msd-read-guard"):
        assert word in notes
    assert json.dumps(plan_of(GLOBAL).notes) == json.dumps(plan_of(LOCAL).notes)


def test_detection_names_its_evidence(tmp_path: Path) -> None:
    from msd_install.installer.context import Context
    from msd_install.runtimes.augment import detect

    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    ctx = Context(home=home, cwd=work, env={"PATH": str(tmp_path / "bin")})
    assert detect(ctx).found is False
    (tmp_path / "bin").mkdir()
    auggie = tmp_path / "bin" / "auggie"
    auggie.write_text("#!/bin/sh\n")
    auggie.chmod(0o755)
    assert detect(ctx).why == "auggie on PATH"
    (home / ".augment").mkdir(parents=True)
    assert detect(ctx).why == "~/.augment exists"


def test_mcp_words_survive_auggies_shell_line() -> None:
    """Auggie runs ``/bin/sh -c "<command> <args...>"`` (joined with spaces, unquoted)."""
    import shlex

    from msd_install.installer.context import Context

    python = Path("/opt/My Python/bin/python3")
    for scope in (GLOBAL, LOCAL):
        ctx = Context(
            home=Path("/home/Jane Doe"), cwd=Path("/work/my proj"), scope=scope, interpreter=python
        )
        augment = adapter("augment")
        assert augment is not None
        plan = augment.plan(ctx, load())
        entry = next(e for e in plan.entries if e.label == "MCP server msd")
        line = " ".join([entry.value["command"], *entry.value["args"]])
        if scope == GLOBAL:
            words = [str(python), "-I", "-S", str(plan.root / "msd-core/bin/msd-mcp")]
        else:  # the project path (with its space) is not in a committed command at all
            words = ["python3", "-I", "-S", ".augment/msd-core/bin/msd-mcp"]
        assert shlex.split(line) == words
        assert entry.marker in entry.value["args"]
