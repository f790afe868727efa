"""OpenCode and Kilo plans: what each file says, where the MCP entry goes, which root is used.

The e2e suite shows what the real CLIs accept; these tests pin the conversion rules that make
them accept it (the traps of issue 8: a ``tools:`` list or string and a colour word fail every
opencode command, ``model: opus`` becomes a broken model).
"""

from __future__ import annotations

import re
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from golden import context
from ruamel.yaml import YAML

from msd_install.installer.context import GLOBAL, LOCAL, Context
from msd_install.installer.plan import Plan
from msd_install.payload import Agent, load, split_frontmatter
from msd_install.runtimes import adapter
from msd_install.runtimes.kilo import SHAPE as KILO
from msd_install.runtimes.opencode import SHAPE as OPENCODE
from msd_install.runtimes.opencode_shape import PERMISSIONS, TOOLS, Shape, _agent

SHAPES = [OPENCODE, KILO]
HEX = re.compile(r"^#[0-9a-fA-F]{6}$")


def _meta(text: str) -> dict[str, Any]:
    assert text.startswith("---\n")
    front = text.split("---\n", 2)[1]
    meta: dict[str, Any] = YAML(typ="safe").load(StringIO(front))
    return meta


def _plan(shape: Shape, scope: str, **extra: Any) -> Plan:
    return shape.plan(context(scope, **extra), load())


def _files(plan: Plan, folder: str) -> dict[str, str]:
    return {
        op.path.relative_to(plan.root / folder).as_posix(): op.content.decode()
        for op in plan.files
        if op.path.is_relative_to(plan.root / folder)
    }


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.name)
@pytest.mark.parametrize("scope", [GLOBAL, LOCAL])
def test_every_agent_has_only_fields_the_runtime_validates(shape: Shape, scope: str) -> None:
    agents = _files(_plan(shape, scope), "agents")
    payload = {a.name: a for a in load().agents}
    assert sorted(agents) == sorted(f"{name}.md" for name in payload)
    for rel, text in agents.items():
        meta = _meta(text)
        source = payload[meta["name"]]
        assert rel == f"{source.name}.md"
        assert set(meta) == {"name", "description", "mode", "permission", "color"}, rel
        assert meta["mode"] == "subagent"
        assert "tools" not in meta and "model" not in meta  # the two fatal/broken shapes
        assert HEX.match(meta["color"]), meta["color"]
        assert list(meta["permission"]) == list(PERMISSIONS)
        granted = {p for p, action in meta["permission"].items() if action == "allow"}
        assert set(meta["permission"].values()) <= {"allow", "deny"}
        assert granted == {TOOLS[t] for t in source.tools}, rel


def test_the_claude_tool_list_is_an_allow_list_and_shared_permissions_are_reported() -> None:
    agents = _files(_plan(OPENCODE, GLOBAL), "agents")
    synthesizer = _meta(agents["msd-research-synthesizer.md"])  # tools: Read, Write, Bash
    assert synthesizer["permission"] == {
        "read": "allow", "edit": "allow", "bash": "allow", "glob": "deny", "grep": "deny",
        "webfetch": "deny", "websearch": "deny", "task": "deny", "todowrite": "deny",
        "question": "deny", "skill": "deny",
    }  # fmt: skip
    notes = "\n".join(_plan(OPENCODE, GLOBAL).notes)
    assert "grants writing and editing files together (permission edit): Edit allowed too" in (
        notes
    )


def _agent_doc(front: str) -> Agent:
    doc = split_frontmatter("agents/x.md", f"---\nname: msd-x\ndescription: d\n{front}---\nBody\n")
    tools = tuple(t.strip() for t in str(doc.get("tools", "")).split(",") if t.strip())
    return Agent("msd-x", "d", tools, doc)


def test_unknown_tools_colours_and_models_are_reported_never_silently_dropped() -> None:
    agent = _agent_doc("tools: Read, NotebookEdit, Frobnicate\ncolor: teal\nmodel: opus\n")
    text, notes = _agent(agent, OPENCODE.dialect, "~/.config/opencode/", [])
    meta = _meta(text)
    assert "color" not in meta and "model" not in meta
    assert {p for p, a in meta["permission"].items() if a == "allow"} == {"read"}
    assert notes == [
        "agents/msd-x.md: OpenCode has no equivalent of the NotebookEdit tool: dropped",
        "agents/msd-x.md: tool 'Frobnicate' is not in the OpenCode table: dropped",
        "agents/msd-x.md: colour 'teal' has no OpenCode value: dropped",
        "agents/msd-x.md: model 'opus' is a Claude model tier: OpenCode uses its default model",
    ]


def test_an_agent_without_a_tool_list_keeps_every_tool() -> None:
    text, notes = _agent(_agent_doc(""), KILO.dialect, "~/.config/kilo/", [])
    assert _meta(text) == {"name": "msd-x", "description": "d", "mode": "subagent"}
    assert notes == []


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.name)
def test_commands_and_routers_are_skills_named_after_their_folder(shape: Shape) -> None:
    payload = load()
    plan = _plan(shape, GLOBAL)
    skills = _files(plan, "skills")
    names = [c.name for c in payload.commands] + [s.name for s in payload.skills]
    assert sorted(skills) == sorted(f"{n}/SKILL.md" for n in names)
    assert not _files(plan, "commands") and not _files(plan, "command")
    for rel, text in skills.items():
        meta = _meta(text)
        assert set(meta) == {"name", "description"} and rel == f"{meta['name']}/SKILL.md"
    progress = skills["msd-progress/SKILL.md"]
    assert _meta(progress)["description"].endswith("(arguments: [--bar])")
    assert "\n$ARGUMENTS\n" in progress  # both CLIs substitute it when the skill runs as /cmd
    assert "@~/.config/" + shape.folder + "/msd-core/workflows/progress.md" in progress


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.name)
def test_workflow_spawns_become_task_tool_calls_without_a_model(shape: Shape) -> None:
    plan = _plan(shape, LOCAL)
    core = _files(plan, "msd-core")
    texts = [t for rel, t in core.items() if rel.endswith(".md")]
    assert not [t for t in texts if "Task(" in t]
    calls = sum(t.count("task(") for t in texts)
    block = r'task\(\n  subagent_type="msd-[a-z-]+",\n  description="[^"\n]+",\n  prompt="'
    line = r'task\(subagent_type="msd-[a-z-]+", description="[^"\n]+", prompt="[^"\n]*"\)'
    assert calls >= 15
    assert sum(len(re.findall(f"{block}|{line}", t)) for t in texts) == calls
    assert not [t for t in texts if re.search(r"\btask\([^`]*?model=", t)]
    execute = core["workflows/execute-phase.md"]
    assert 'task(\n  subagent_type="msd-executor",\n  description="' in execute
    model_note = f"the {shape.label} task tool takes no model: msd agents run on the session's"
    assert any(model_note in note for note in plan.notes)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.name)
@pytest.mark.parametrize("scope", [GLOBAL, LOCAL])
def test_no_hooks_are_installed_and_the_report_says_why(shape: Shape, scope: str) -> None:
    plan = _plan(shape, scope)
    assert not [op for op in plan.files if "/hooks/" in op.path.as_posix()]
    assert [e.label for e in plan.entries] == ["MCP server msd"]
    why = "runs hooks only as JavaScript/TypeScript plugins and has no shell-hook setting"
    assert [n for n in plan.notes if n.startswith("hooks not installed:") and why in n]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.name)
@pytest.mark.parametrize("scope", [GLOBAL, LOCAL])
def test_mcp_server_entry_in_the_native_shape(shape: Shape, scope: str) -> None:
    plan = _plan(shape, scope)
    (entry,) = plan.entries
    launcher = plan.root / "msd-core/bin/msd-mcp"
    assert (entry.fmt, entry.path, entry.key) == ("jsonc", ("mcp",), "msd")
    assert entry.file == plan.root / shape.new_config  # nothing exists in the fake home
    if scope == GLOBAL:
        named = str(launcher)
        assert entry.value == {
            "type": "local",
            "command": ["/usr/bin/python3", "-I", "-S", named],
            "environment": {"MSD_AUDIT_LOG": "/HOME/.local/state/msd/audit.jsonl"},
            "enabled": True,
        }
    else:  # committed with the project: python3 from the PATH, the launcher relative to it
        named = launcher.relative_to("/PROJECT").as_posix()
        assert entry.value == {
            "type": "local",
            "command": ["python3", "-I", "-S", named],
            "enabled": True,
        }
    assert entry.requires == (launcher,) and entry.marker == named


@pytest.mark.parametrize(
    ("shape", "existing", "chosen"),
    [
        (OPENCODE, [], "opencode.json"),
        (OPENCODE, ["opencode.json"], "opencode.json"),
        (OPENCODE, ["opencode.jsonc"], "opencode.jsonc"),
        (OPENCODE, ["opencode.json", "opencode.jsonc"], "opencode.jsonc"),  # loaded last: wins
        (OPENCODE, ["config.json"], "opencode.json"),
        (KILO, [], "kilo.jsonc"),
        (KILO, ["kilo.json"], "kilo.json"),
        (KILO, ["kilo.json", "kilo.jsonc"], "kilo.jsonc"),
    ],
)
def test_the_users_config_file_is_used_when_it_exists(
    shape: Shape, existing: list[str], chosen: str, tmp_path: Path
) -> None:
    root = tmp_path / shape.folder
    root.mkdir()
    for name in existing:
        (root / name).write_text("{}\n")
    assert shape.config_file(root) == root / chosen


def _ctx(tmp_path: Path, scope: str = GLOBAL, **env: str) -> Context:
    return Context(home=tmp_path / "home", cwd=tmp_path / "proj", env=env, scope=scope)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.name)
def test_roots_follow_xdg_the_override_and_config_dir(shape: Shape, tmp_path: Path) -> None:
    runtime = adapter(shape.name)
    assert runtime is not None
    home = tmp_path / "home"
    assert runtime.root(_ctx(tmp_path)) == home / ".config" / shape.folder
    xdg = str(tmp_path / "xdg")
    assert runtime.root(_ctx(tmp_path, XDG_CONFIG_HOME=xdg)) == tmp_path / "xdg" / shape.folder
    # a relative XDG_CONFIG_HOME is invalid by the XDG rules and ignored
    assert runtime.root(_ctx(tmp_path, XDG_CONFIG_HOME="rel")) == home / ".config" / shape.folder
    own = str(tmp_path / "own dir")
    ctx = _ctx(tmp_path, XDG_CONFIG_HOME=xdg, **{shape.env: own})
    assert runtime.root(ctx) == tmp_path / "own dir"
    assert runtime.root(_ctx(tmp_path, LOCAL, **{shape.env: own})) == (
        tmp_path / "proj" / shape.local_dir
    )
    forced = Context(home=home, cwd=tmp_path, env={shape.env: own}, config_dir=tmp_path / "cfg")
    assert runtime.root(forced) == tmp_path / "cfg"


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.name)
def test_the_report_says_when_the_override_decided_the_root(shape: Shape, tmp_path: Path) -> None:
    own = tmp_path / "own"
    with_env = shape.plan(_ctx(tmp_path, **{shape.env: str(own)}), load())
    assert with_env.root == own
    assert f"{shape.env} is set: msd went into {own}" in "\n".join(with_env.notes)
    without = shape.plan(_ctx(tmp_path), load())
    assert shape.env not in "\n".join(without.notes)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.name)
def test_detection_names_its_evidence(shape: Shape, tmp_path: Path) -> None:
    runtime = adapter(shape.name)
    assert runtime is not None
    ctx = _ctx(tmp_path, PATH=str(tmp_path / "bin"))
    assert not runtime.detect(ctx).found
    (tmp_path / "bin").mkdir()
    binary = tmp_path / "bin" / shape.binaries[-1]
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    found = runtime.detect(ctx)
    assert found.found and found.why == f"{shape.binaries[-1]} on PATH"
    (tmp_path / "home/.config" / shape.folder).mkdir(parents=True)
    assert runtime.detect(ctx).why == f"~/.config/{shape.folder} exists"


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.name)
def test_claude_only_wording_is_the_runtimes_own(shape: Shape) -> None:
    core = _files(_plan(shape, LOCAL), "msd-core")
    update = core["workflows/update.md"]
    assert f"--{shape.name} --<scope>" in update and "--claude" not in update
    assert "Claude's discretion" not in core["workflows/discuss-phase.md"]
    assert "the agent's discretion" in core["workflows/discuss-phase.md"]


def test_opencode_global_report_says_how_to_stop_read_prompts_without_granting_it() -> None:
    """OpenCode asks before reading outside the project (Kilo allows its own global folder,
    and a local install lives inside the project): the report says how, msd does not do it."""
    plan = _plan(OPENCODE, GLOBAL)
    rule = '"permission": {"external_directory": {"/HOME/.config/opencode/msd-core/*": "allow"}}'
    assert [n for n in plan.notes if rule in n and "does not grant it for you" in n]
    assert all("permission" not in str(e.value) for e in plan.entries)
    for other in (_plan(OPENCODE, LOCAL), _plan(KILO, GLOBAL), _plan(KILO, LOCAL)):
        assert not [n for n in other.notes if "external_directory" in n]
