"""What the Gemini CLI and Qwen Code plans put on disk, checked file by file against the rules
each CLI enforces (verified with gemini 0.61.0 / qwen 0.24.4 and their bundled source)."""

from __future__ import annotations

import dataclasses
import re
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
import tomlkit
from golden import HOME, PROJECT, context
from hypothesis import given
from hypothesis import strategies as st
from ruamel.yaml import YAML

from msd_install.installer.context import GLOBAL, LOCAL
from msd_install.installer.plan import Plan
from msd_install.payload import Agent, Command, Document, load
from msd_install.runtimes import adapter
from msd_install.runtimes import gemini as gemini_mod
from msd_install.runtimes.gemini_family import command_dialect

# packages/core tools in gemini 0.61.0 (ALL_BUILTIN_TOOL_NAMES): anything else in an agent's
# `tools:` makes gemini reject the whole agent ("tools.N: Invalid tool name")
GEMINI_TOOLS = {
    "glob", "write_todos", "write_file", "google_web_search", "web_fetch", "replace",
    "run_shell_command", "grep_search", "read_many_files", "read_file", "list_directory",
    "activate_skill", "ask_user", "get_internal_docs", "enter_plan_mode", "exit_plan_mode",
    "update_topic", "complete_task", "invoke_agent", "read_mcp_resource", "list_mcp_resources",
}  # fmt: skip
# qwen 0.24.4 ToolNames (it does not check them, but an unknown name does nothing)
QWEN_TOOLS = {
    "edit", "write_file", "read_file", "grep_search", "glob", "run_shell_command", "todo_write",
    "save_memory", "agent", "skill", "web_fetch", "web_search", "list_directory",
    "ask_user_question", "notebook_edit",
}  # fmt: skip
QWEN_COLORS = {"red", "blue", "green", "yellow", "purple", "orange", "pink", "cyan"}
PAYLOAD = load()
COMMANDS = {c.name for c in PAYLOAD.commands}
AGENTS = {a.name for a in PAYLOAD.agents}
_YAML = YAML(typ="safe")


def _plan(name: str, scope: str, **extra: Any) -> Plan:
    runtime = adapter(name)
    assert runtime is not None
    return runtime.plan(context(scope, **extra), PAYLOAD)


def _texts(plan: Plan) -> dict[Path, str]:
    out = {}
    for op in plan.files:
        if op.path.suffix in (".md", ".toml", ".json"):
            out[op.path] = op.content.decode("utf-8")
    return out


def _meta(text: str) -> dict[str, Any]:
    assert text.startswith("---\n")
    meta: dict[str, Any] = _YAML.load(StringIO(text.split("---\n", 2)[1]))
    return meta


BOTH = pytest.mark.parametrize("name", ["gemini", "qwen"])
SCOPES = pytest.mark.parametrize("scope", [GLOBAL, LOCAL])


@BOTH
@SCOPES
def test_each_command_is_one_command_and_never_also_a_skill(name: str, scope: str) -> None:
    plan = _plan(name, scope)
    suffix = ".toml" if name == "gemini" else ".md"
    commands = {p.path.name for p in plan.files if p.path.parent.name == "commands"}
    assert commands == {f"{c}{suffix}" for c in COMMANDS}
    skills = {p.path.parent.name for p in plan.files if p.path.name == "SKILL.md"}
    assert skills == {s.name for s in PAYLOAD.skills}


@SCOPES
def test_gemini_commands_are_toml_with_description_and_prompt_only(scope: str) -> None:
    plan = _plan("gemini", scope)
    for op in plan.files:
        if op.path.suffix != ".toml":
            continue
        doc = tomlkit.parse(op.content.decode()).unwrap()
        assert set(doc) == {"description", "prompt"}, op.path
        source = next(c for c in PAYLOAD.commands if f"{c.name}.toml" == op.path.name)
        assert ("{{args}}" in doc["prompt"]) == ("$ARGUMENTS" in source.doc.body)
        hint = source.doc.get("argument-hint")
        assert doc["description"].startswith(source.description)
        assert not hint or hint in doc["description"]


@BOTH
@SCOPES
def test_no_claude_placeholder_survives_anywhere(name: str, scope: str) -> None:
    for path, text in _texts(_plan(name, scope)).items():
        assert "$ARGUMENTS" not in text, path
        assert "Task(" not in text, path


@BOTH
@SCOPES
def test_every_injected_file_is_one_we_install(name: str, scope: str) -> None:
    """``@{path}`` is injected by the CLI, which neither expands ``~`` nor reads outside the
    workspace: global paths are absolute and lie in a folder the settings include."""
    plan = _plan(name, scope)
    planned = {op.path for op in plan.files}
    included = [Path(e.value) for e in plan.entries if e.path == ("context", "includeDirectories")]
    assert bool(included) == (scope == GLOBAL)
    seen = 0
    for op in plan.files:
        if op.path.parent.name != "commands":
            continue
        for ref in re.findall(r"@\{([^}]*)\}", op.content.decode()):
            path = Path(ref) if scope == GLOBAL else PROJECT / ref
            assert path in planned, (op.path, ref)
            assert scope == LOCAL or any(path.is_relative_to(d) for d in included), ref
            seen += 1
    assert seen >= 30


@BOTH
@SCOPES
def test_every_file_reference_in_the_engine_text_names_a_file_we_install(
    name: str, scope: str
) -> None:
    plan = _plan(name, scope)
    planned = {op.path for op in plan.files}
    base = "/HOME/" if scope == GLOBAL else f".{name}/"
    for path, text in _texts(plan).items():
        if path.parent.name == "commands":
            continue
        for ref in re.findall(rf"(?<![\w@`])@({re.escape(base)}[^\s)\]`'\"<>,;]+)", text):
            ref = ref.rstrip(".:")  # sentence punctuation after the path
            target = Path(ref) if scope == GLOBAL else PROJECT / ref
            assert target in planned, (path, ref)


@SCOPES
def test_gemini_agents_pass_its_strict_schema(scope: str) -> None:
    agents = [op for op in _plan("gemini", scope).files if op.path.parent.name == "agents"]
    assert {op.path.stem for op in agents} == AGENTS
    for op in agents:
        meta = _meta(op.content.decode())
        assert set(meta) == {"name", "description", "tools"}, op.path
        assert meta["name"] == op.path.stem and meta["description"]
        assert isinstance(meta["tools"], list) and set(meta["tools"]) <= GEMINI_TOOLS


@SCOPES
def test_qwen_agents_carry_its_names_and_colours(scope: str) -> None:
    agents = [op for op in _plan("qwen", scope).files if op.path.parent.name == "agents"]
    assert {op.path.stem for op in agents} == AGENTS
    for op in agents:
        text = op.content.decode()
        meta = _meta(text)
        assert set(meta) == {"name", "description", "tools", "color"}, op.path
        assert set(meta["tools"]) <= QWEN_TOOLS and meta["color"] in QWEN_COLORS
        assert len(text.split("---\n", 2)[2].strip()) >= 10


def _with_agent(body: str) -> Any:
    doc = Document("agents/msd-tiny.md", (("name", "msd-tiny"), ("description", "d")), body, "")
    return dataclasses.replace(PAYLOAD, agents=(*PAYLOAD.agents, Agent("msd-tiny", "d", (), doc)))


def test_an_agent_qwen_would_drop_is_not_installed_and_the_report_says_why() -> None:
    runtime = adapter("qwen")
    assert runtime is not None
    plan = runtime.plan(context(GLOBAL), _with_agent("\n  tiny \n"))
    assert not [op for op in plan.files if op.path.name == "msd-tiny.md"]
    assert any("msd-tiny.md" in n and "under 10 characters" in n for n in plan.notes)
    plan = runtime.plan(context(GLOBAL), _with_agent("\nLong enough prompt.\n"))
    assert [op for op in plan.files if op.path.name == "msd-tiny.md"]


@pytest.mark.parametrize(
    ("name", "call", "key"),
    [("gemini", "invoke_agent(", "agent_name"), ("qwen", "agent(", "subagent_type")],
)
def test_workflows_start_agents_with_the_runtimes_own_tool(name: str, call: str, key: str) -> None:
    spawned = []
    calls = re.compile(rf"(?<![\w_]){re.escape(call)}(.*?)(?:\n\)|\)$)", re.S | re.M)
    for path, text in _texts(_plan(name, GLOBAL)).items():
        for block in calls.findall(text):
            agent = re.search(rf'{key}="([^"]+)"', block)
            assert agent is not None, (path, block)
            spawned.append(agent.group(1))
            assert "model=" not in block  # neither tool takes a model
            if name == "qwen":
                assert "run_in_background=false" in block  # the workflow waits for the result
                assert re.search(r'description="[^"]+"', block)  # required by the agent tool
    assert set(spawned) <= AGENTS and len(spawned) >= 15


@pytest.mark.parametrize(("name", "form"), [("gemini", "`/{}`"), ("qwen", "`{}`")])
def test_routers_name_commands_the_way_the_runtime_runs_them(name: str, form: str) -> None:
    for op in _plan(name, GLOBAL).files:
        if op.path.name != "SKILL.md":
            continue
        text = op.content.decode()
        assert "invoke that skill with the user's arguments (Skill tool" not in text
        named = re.findall(r"`/?(msd-[a-z0-9-]+)`", text)
        for item in named:
            expected = form.format(item) if item in COMMANDS else f"`{item}`"
            assert expected in text, (op.path, item)
    assert named


def _hooks(plan: Plan) -> list[tuple[str, dict[str, Any]]]:
    return [(e.path[1], e.value) for e in plan.entries if e.path[:1] == ("hooks",)]


@SCOPES
def test_gemini_hooks_use_its_events_tool_names_and_milliseconds(scope: str) -> None:
    hooks = _hooks(_plan("gemini", scope))
    assert {event for event, _ in hooks} == {"BeforeTool", "AfterTool", "SessionStart"}
    for _event, group in hooks:
        (hook,) = group["hooks"]
        assert hook["timeout"] == 10000 and hook["name"].startswith("msd-")
        assert hook["command"].endswith(" --dialect gemini")
        if "matcher" in group:
            inner = re.fullmatch(r"\^\((.*)\)\$", group["matcher"])
            assert inner is not None and set(inner.group(1).split("|")) <= GEMINI_TOOLS
        if scope == LOCAL:  # gemini substitutes the variable with an already quoted path
            assert " $GEMINI_PROJECT_DIR/.gemini/hooks/msd-" in hook["command"]


@SCOPES
def test_qwen_hooks_use_claude_events_its_tool_names_and_seconds(scope: str) -> None:
    plan = _plan("qwen", scope)
    hooks = _hooks(plan)
    assert {event for event, _ in hooks} == {"PreToolUse", "PostToolUse", "SessionStart"}
    for _event, group in hooks:
        (hook,) = group["hooks"]
        assert hook["timeout"] == 10 and "--dialect" not in hook["command"]
        if "matcher" in group:
            inner = re.fullmatch(r"\^\((.*)\)\$", group["matcher"])
            assert inner is not None and set(inner.group(1).split("|")) <= QWEN_TOOLS
        if scope == LOCAL:  # exported, not substituted, in bash: quoted like Claude's
            assert ' "$QWEN_PROJECT_DIR"/.qwen/hooks/msd-' in hook["command"]
    (status,) = [e for e in plan.entries if e.key == "statusLine"]
    assert status.path == ("ui",) and "msd-statusline.py" in status.value["command"]


def test_roots_follow_each_runtimes_override() -> None:
    gemini, qwen = adapter("gemini"), adapter("qwen")
    assert gemini is not None and qwen is not None
    ctx = context(GLOBAL)
    assert gemini.root(ctx) == HOME / ".gemini" and qwen.root(ctx) == HOME / ".qwen"
    # GEMINI_CLI_HOME replaces the home directory; QWEN_HOME is the folder itself
    env = {"GEMINI_CLI_HOME": "/elsewhere", "QWEN_HOME": "~/q"}
    ctx = context(GLOBAL, env=env)
    assert gemini.root(ctx) == Path("/elsewhere/.gemini") and qwen.root(ctx) == HOME / "q"
    ctx = context(GLOBAL, env=env, config_dir=Path("/cfg"))
    assert gemini.root(ctx) == Path("/cfg") == qwen.root(ctx)
    assert gemini.root(context(LOCAL)) == PROJECT / ".gemini"
    assert qwen.root(context(LOCAL)) == PROJECT / ".qwen"


def test_detection_names_its_evidence(tmp_path: Path) -> None:
    gemini = adapter("gemini")
    assert gemini is not None
    found = gemini.detect(dataclasses.replace(context(GLOBAL), home=tmp_path, cwd=tmp_path))
    assert not found.found and ".gemini" in found.why
    (tmp_path / ".gemini").mkdir()
    found = gemini.detect(dataclasses.replace(context(GLOBAL), home=tmp_path, cwd=tmp_path))
    assert found.found and found.why == "~/.gemini exists"


_body = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200)


@given(_body, _body.filter(lambda s: s.strip() != ""))
def test_any_command_text_survives_the_toml_rendering(body: str, description: str) -> None:
    """tomlkit writes the prompt as a multi-line string: whatever the payload holds (quotes,
    backslashes, triple quotes, control characters) must read back as exactly that text."""
    doc = Document("commands/msd-x.md", (("name", "msd-x"), ("description", description)), body, "")
    dialect = command_dialect(context(GLOBAL), gemini_mod.FAMILY)
    _name, text, _notes = gemini_mod.FAMILY.render_command(
        Command("msd-x", description, doc), "~/.gemini/", dialect, []
    )
    back = tomlkit.parse(text).unwrap()
    expected, _ = gemini_mod.command_body(
        Command("msd-x", description, doc), "~/.gemini/", dialect, [], ("name", "description")
    )
    assert back == {"description": description, "prompt": expected}
