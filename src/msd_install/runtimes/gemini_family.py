"""The plan shared by Gemini CLI and its fork Qwen Code; each module holds only its data.

Both read ``settings.json`` as JSON with comments (``//``, ``/* */``; a trailing comma is a
syntax error in both), hold ``mcpServers`` and ``hooks`` there, take Markdown agents and
``skills/<n>/SKILL.md``, and inject ``@{path}`` / substitute ``{{args}}`` in their command
files. What differs is data in ``Family``: the command file format (Gemini TOML, Qwen
Markdown), the hook dialect (Gemini ``BeforeTool``, Qwen Claude's event names), the agent
fields each accepts, how a workflow starts a subagent, and what a router skill can do with a
command.

Both CLIs confine file reads to the workspace: ``@{path}`` in a command (and Gemini's
``read_file``) refuses a path outside it, and ``~`` is not expanded there. A global install
lives outside every project, so it adds its three text folders under ``msd-core/`` to
``context.includeDirectories`` and names every ``@`` file reference by its absolute path.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..installer.context import Context
from ..installer.plan import ITEM, ConfigEntry, FileOp, Plan
from ..payload import Agent, Command, Payload, Skill
from ._base import (
    CORE_DIR,
    core_files,
    has_core_file,
    launcher_ref,
    root_ref,
)
from .convert import Dialect, convert_model, convert_text, convert_tools, summarize
from .markdown import document, tools_of
from .shapes import (
    HookDialect,
    hook_script_ref,
    hooks_off,
    mcp_member,
    settings_hooks,
    skill_op,
    stdio_server,
)

MCP_LAUNCHER = "bin/msd-mcp"
# the msd-core folders the model reads (the lib and bin are run, never read)
READ_DIRS = ("workflows", "references", "templates")
# a router skill's hand-off sentence, wrapped at any point in the payload's text
_ROUTE = re.compile(
    r"invoke\s+that\s+skill\s+with\s+the\s+user's\s+arguments"
    r"(?:\s+\(Skill\s+tool,\s+or\s+the\s+slash\s+command\s+of\s+the\s+same\s+name\s+where"
    r"\s+skills\s+are\s+commands\))?"
)


@dataclass(frozen=True)
class Family:
    name: str
    label: str
    dialect: Dialect  # payload text -> the runtime's terms (file_ref is set per install)
    hooks: HookDialect
    project_var: str  # the hook's project-dir variable, for local hook commands
    quote_project_var: bool  # False where the runtime substitutes it already quoted
    # (command, root ref, command dialect, payload names) -> (file name, text, notes)
    render_command: Callable[[Command, str, Dialect, list[str]], tuple[str, str, list[str]]]
    agent_fields: Callable[[Agent, list[str]], tuple[dict[str, Any], list[str]]]
    route: str  # what a router tells the model to do with the chosen command
    route_name: Callable[[str], str]  # how a router names a command in its table
    schema: str | None  # bundled JSON Schema the settings file must still satisfy
    local_notes: tuple[str, ...] = ()  # what the user must do after a local install
    global_notes: tuple[str, ...] = ()  # what a global install changed beyond its root
    min_agent_body: int = 0  # shorter agent prompts are dropped by the runtime
    hooks_switch: tuple[tuple[str, ...], Any] | None = None  # (path, value) that stops all hooks


def _absolute(ctx: Context, path: str) -> str:
    """``~/x`` as the absolute path under the home (the runtimes never expand ``~`` there)."""
    return str(ctx.home / path[2:]) if path.startswith("~/") else path


def text_dialect(ctx: Context, family: Family) -> Dialect:
    return replace(family.dialect, file_ref=lambda path: f"@{_absolute(ctx, path)}")


def command_dialect(ctx: Context, family: Family) -> Dialect:
    """Commands name files as ``@{path}``: the CLI injects their text into the prompt."""
    return replace(
        family.dialect, args="{{args}}", file_ref=lambda path: f"@{{{_absolute(ctx, path)}}}"
    )


def route_text(text: str, family: Family, commands: set[str]) -> str:
    """A router skill in the runtime's terms: its hand-off sentence and its command names."""
    text = _ROUTE.sub(family.route, text)
    return re.sub(
        r"`(msd-[a-z0-9-]+)`",
        lambda m: f"`{family.route_name(m.group(1))}`" if m.group(1) in commands else m.group(0),
        text,
    )


def agent_file(
    agent: Agent, family: Family, dialect: Dialect, ref: str, names: list[str]
) -> tuple[str | None, list[str]]:
    """The agent as the runtime's Markdown, or None (with a note) when it would drop it."""
    where = f"agents/{agent.name}.md"
    tools, notes = convert_tools(tools_of(agent.doc), dialect, where)
    meta, more = family.agent_fields(agent, tools)
    notes += more
    _model, why = convert_model(agent.doc.get("model"), dialect, where)
    notes += why
    body = convert_text(agent.doc.body, dialect, ref, names)
    if len(body.strip()) < family.min_agent_body:
        notes.append(f"{where}: {family.label} drops an agent whose prompt is under "
                     f"{family.min_agent_body} characters: not installed")  # fmt: skip
        return None, notes
    return document(meta, body), notes


def _skill(
    skill: Skill, family: Family, dialect: Dialect, ref: str, names: list[str], commands: set[str]
) -> str:
    meta = {"name": skill.name, "description": skill.description}
    body = convert_text(skill.doc.body, dialect, ref, names)
    return document(meta, route_text(body, family, commands))


def _hook_entries(
    ctx: Context, family: Family, root: Path, settings: Path, payload: Payload
) -> tuple[list[ConfigEntry], list[str]]:
    return settings_hooks(
        ctx,
        root,
        settings,
        payload.hooks,
        family.hooks,
        script_ref=lambda script: hook_script_ref(
            ctx, root, script, family.project_var, quote_var=family.quote_project_var
        ),
        fmt="json-comments",
        schema=family.schema,
    )


def _mcp_entry(ctx: Context, family: Family, root: Path, settings: Path) -> ConfigEntry:
    launcher = root / CORE_DIR / MCP_LAUNCHER
    server = stdio_server(ctx, launcher)
    return mcp_member(
        settings, server, launcher_ref(ctx, launcher), launcher, fmt="json-comments",
        force=ctx.force, schema=family.schema,
    )  # fmt: skip


def _read_dirs(family: Family, root: Path, settings: Path, payload: Payload) -> list[ConfigEntry]:
    """``context.includeDirectories`` items: a global install is outside every workspace.
    A pack's engine folder (``<root>/<pack>``) is one item, whatever its subfolders."""
    names = [""] if payload.namespace else [f"/{name}" for name in READ_DIRS]
    if payload.namespace and not payload.core:
        return []
    entries = []
    for name in names:
        folder = str(root / f"{payload.engine_dir}{name}")
        entries.append(
            ConfigEntry(
                settings, "json-comments", ITEM, ("context", "includeDirectories"), folder,
                schema=family.schema, label=f"include {payload.engine_dir}{name}", marker=folder,
            )
        )  # fmt: skip
    return entries


def command_body(
    command: Command, ref: str, dialect: Dialect, names: list[str], kept: tuple[str, ...]
) -> tuple[str, list[str]]:
    """A command's prompt in the runtime's terms, and a note for each field it has no place
    for (``kept``: the fields the renderer carries over)."""
    where = f"commands/{command.name}"
    notes = [
        f"{where}: {key} has no {dialect.runtime} equivalent: dropped"
        for key, _value in command.doc.meta
        if key not in kept
    ]
    return convert_text(command.doc.body, dialect, ref, names).lstrip("\n"), notes


def plan(ctx: Context, payload: Payload, family: Family, root: Path) -> Plan:
    ref = root_ref(ctx, root)
    text, cmd = text_dialect(ctx, family), command_dialect(ctx, family)
    names = [c.name for c in payload.commands] + [s.name for s in payload.skills]
    notes: list[str] = []
    files: list[FileOp] = []
    for command in payload.commands:
        rel, content, more = family.render_command(command, ref, cmd, names)
        notes += more
        files.append(FileOp(root / "commands" / rel, content.encode("utf-8")))
    for skill in payload.skills:
        routed = _skill(skill, family, text, ref, names, {c.name for c in payload.commands})
        files.append(skill_op(root, "skills", skill.name, routed))
    for agent in payload.agents:
        rendered, more = agent_file(agent, family, text, ref, names)
        notes += more
        if rendered is not None:
            files.append(FileOp(root / "agents" / f"{agent.name}.md", rendered.encode("utf-8")))
    for hook in payload.hooks:
        files.append(FileOp(root / "hooks" / hook.script, hook.content, 0o755))
    files += core_files(root, payload, ref, lambda t: convert_text(t, text, ref, names))
    settings = root / "settings.json"
    entries, more = _hook_entries(ctx, family, root, settings, payload)
    notes += more
    if has_core_file(payload, MCP_LAUNCHER):
        entries.append(_mcp_entry(ctx, family, root, settings))
    if not ctx.is_local:
        entries += _read_dirs(family, root, settings, payload)
    cache = root / CORE_DIR / "cache"
    user = family.local_notes if ctx.is_local else family.global_notes
    return Plan(
        family.name,
        ctx.scope,
        root,
        tuple(files),
        tuple(entries),
        dirs=(cache,),
        state_files=(cache / "msd-update-check.json",),
        notes=(*summarize(notes), *(n.replace("{project}", str(ctx.cwd)) for n in user)),
        watches=(
            hooks_off(family.label, settings, *family.hooks_switch, entries)
            if family.hooks_switch
            else ()
        ),
    )
