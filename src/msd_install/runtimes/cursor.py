"""Cursor (IDE and ``cursor-agent``): ``~/.cursor``, local ``<project>/.cursor``.

No offline CLI exists to check against (``cursor-agent`` ships only from Cursor's install script;
shared/design/real-clients.md "No offline CLI"), so every fact below comes from documentation,
each with its source and confidence; the same list is ``ADAPTER.sources``.

- **Commands are skills** (``skills/msd-<name>/SKILL.md``, frontmatter ``name`` and
  ``description``): since Cursor 2.4 (Jan 2026) skills are typed as ``/msd-<name>`` and offered
  to the model, which the router skills rely on; Cursor's own built-in ``migrate-to-skills``
  turns ``.cursor/commands/*.md`` into skills the same way, and a command file would show the
  name twice (shared/ rule 3). Sources: cursor.com/docs/skills (via the docs corpus),
  effective-cursor migrate-to-skills (Cursor's built-in skill, quoted), cursor/plugins
  create-plugin-scaffold. High. Arguments: Cursor substitutes no placeholder; what the user
  types after the command comes with it (medium), so ``$ARGUMENTS`` is described in words.
- **Agents** ``agents/msd-<name>.md`` with ``name``, ``description`` and ``readonly: true`` for
  agents that may not write or run commands (Cursor agent frontmatter: ``name``,
  ``description``, ``model``, ``readonly``, ``is_background``; rulesync cursor-subagent.ts,
  cursor/plugins agents; high). Claude model tiers and colours are dropped (the agent inherits
  the session's model). A workflow starts one with Cursor's Task tool (``subagent_type``,
  ``description``, ``prompt``; cursor.com/docs/agent/hooks "Subagent (Task tool)"; medium).
- **Rule** (local only): ``rules/msd-core.mdc`` (frontmatter ``description``, ``globs``,
  ``alwaysApply``; Cursor's user rules live in its settings, not in files, so a global install
  has none). High for the format.
- **Hooks** ``hooks.json`` ``{"version": 1, "hooks": {"preToolUse": [{command, matcher,
  timeout}]}}`` (cursor.com/docs/agent/hooks; flat entries, camelCase events, ``matcher`` a
  regex over Cursor's tool names ``Shell``/``Read``/``Write``/``StrReplace``/``Grep``:
  mksglu/context-mode hooks/cursor, rohitg00/agentmemory; medium-high). Stdin carries
  ``tool_name``, ``tool_input``, ``cwd``, ``conversation_id``, ``workspace_roots``; a deny is
  ``{"permission": "deny", "user_message", "agent_message"}``, context ``agent_message``
  before a call and ``additional_context`` after it and at session start, and every hook
  prints a JSON object (Cursor logs an empty stdout as an invalid answer):
  ``--dialect cursor``. Scripts are named by absolute path (no documented project variable).
- **MCP** ``mcp.json`` ``mcpServers.msd`` (``{command, args, env}``), written as strict JSON
  (Cursor documents no comments). High.

Open: whether Cursor lists an msd skill once when msd's Claude Code install is present too
(Cursor also loads ``~/.claude/skills`` and ``<project>/.claude/skills``, and may run Claude
Code's hooks when third-party hooks are enabled); the exact argument names of Cursor's
Read/Write tools in hook input (``path``/``file_path``/``target_file`` are all read).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..installer.context import Context
from ..installer.plan import IF_ABSENT, MEMBER, ConfigEntry, FileOp, Plan
from ..payload import Agent, Payload
from ._base import (
    CORE_DIR,
    Adapter,
    Detection,
    core_files,
    detect_by,
    has_core_file,
    launcher_ref,
    root_ref,
)
from .convert import Dialect, Spawn, convert_invocations, convert_text, summarize
from .markdown import document, tools_of
from .shapes import (
    HookDialect,
    hook_files,
    hook_script_ref,
    mcp_member,
    settings_hooks,
    skill_op,
    stdio_server,
)

MCP_LAUNCHER = "bin/msd-mcp"
LABEL = "Cursor"
WRITERS = {"Write", "Edit", "MultiEdit", "Bash", "NotebookEdit"}
# hooks that cannot work in Cursor (the reason goes into the install report)
UNUSABLE = {
    "msd-statusline": "Cursor has no status line command",
    "msd-context-monitor": "it reads what msd's status line writes, which Cursor does not run",
    "msd-workflow-guard": "Cursor's transcript is not in Claude Code's format",
}
# written by hand: Cursor matches an unquoted glob (the YAML renderer quotes every string)
MDC_HEAD = """\
---
description: "How MSD Core keeps this project's planning state in .planning/"
globs: .planning/**
alwaysApply: false
---

"""
RULE = """\
# MSD Core

This project is planned and built with MSD Core. Its state lives in `.planning/`
(`PROJECT.md`, `ROADMAP.md`, `STATE.md`, one folder per phase); the msd skills (`/msd-progress`,
`/msd-plan-phase`, `/msd-execute-phase`, ...) and `{ref}msd-core/workflows/` say how each step
is done.

- Ask `/msd-progress` where the project stands before starting work on it.
- Change `.planning/` files through the msd workflows, which keep `STATE.md` and the roadmap
  consistent; do not rewrite them by hand.
"""


def global_root(ctx: Context) -> Path:
    return ctx.home / ".cursor"


def local_root(ctx: Context) -> Path:
    return ctx.cwd / ".cursor"


def detect(ctx: Context) -> Detection:
    return detect_by(ctx, (global_root(ctx), local_root(ctx)), ("cursor", "cursor-agent"))


def _spawn(spawn: Spawn) -> str:
    """Cursor's Task tool; the Claude model tier is not passed (the agent file has none)."""
    return (
        f"Start the {spawn.agent} subagent with the Task tool:\n"
        f'  subagent_type="{spawn.agent}",\n  description="{spawn.description}",\n'
        f'  prompt="{spawn.prompt}"'
    )


DIALECT = Dialect(
    LABEL,
    tools={},  # Cursor agents have no tool list (see _agent)
    args="(the text the user typed after the command, if any)",
    spawn=_spawn,
    file_ref=lambda path: f"`{path}` (read this file)",
    context_file="AGENTS.md",
    project_dir="the workspace root",
    flag="cursor",
    words=(
        (
            "(Skill tool, or\nthe slash command of the same name where skills are commands)",
            "(it is one of your skills, also typed as `/<name>`)",
        ),
        ("four Task calls", "four Task tool calls"),
    ),
)

HOOKS = HookDialect(
    LABEL,
    events={
        "PreToolUse": "preToolUse",
        "PostToolUse": "postToolUse",
        "SessionStart": "sessionStart",
        "SessionEnd": "sessionEnd",
        "PostToolUseFailure": "postToolUseFailure",
        "SubagentStart": "subagentStart",
        "SubagentStop": "subagentStop",
        "UserPromptSubmit": "beforeSubmitPrompt",
        "PreCompact": "preCompact",
        "Stop": "stop",
    },
    tools={
        "Read": "Read",
        "Write": "Write",
        "Edit": "StrReplace|Edit",
        "Bash": "Shell",
        "Grep": "Grep",
    },
    dialect="cursor",
    nested=False,
    anchored=True,
)


def _agent(agent: Agent, text: str, notes: list[str]) -> str:
    where = f"agents/{agent.name}.md"
    meta: dict[str, Any] = {"name": agent.name, "description": agent.description}
    granted = set(tools_of(agent.doc))
    if granted and not granted & WRITERS:
        meta["readonly"] = True
    if granted:
        notes.append(
            f"{where}: Cursor agents have no tool list: tools become readonly where the agent "
            "may not write or run commands"
        )
    if agent.doc.get("model"):
        notes.append(f"{where}: Claude model tiers are not Cursor models: the agent inherits")
    if agent.doc.get("color"):
        notes.append(f"{where}: Cursor agents have no colour: color dropped")
    return document(meta, text)


def _hooks(ctx: Context, root: Path, payload: Payload, notes: list[str]) -> list[ConfigEntry]:
    file = root / "hooks.json"
    hooks = tuple(h for h in payload.hooks if h.name not in UNUSABLE)
    notes += [f"hooks: {name} not used: {why}" for name, why in UNUSABLE.items()]
    entries, more = settings_hooks(
        ctx, root, file, hooks, HOOKS, script_ref=lambda script: hook_script_ref(ctx, root, script)
    )
    notes += more
    if not entries:
        return []
    version = ConfigEntry(
        file, "json", MEMBER, (), 1, key="version", policy=IF_ABSENT, label="version of hooks.json"
    )
    return [version, *entries]


def plan(ctx: Context, payload: Payload) -> Plan:
    root = ADAPTER.root(ctx)
    ref = root_ref(ctx, root)
    names = [c.name for c in payload.commands] + [s.name for s in payload.skills]
    notes: list[str] = []

    def text(raw: str) -> str:
        return convert_text(raw, DIALECT, ref, names)

    files: list[FileOp] = []
    for command in payload.commands:
        meta = {"name": command.name, "description": command.description}
        files.append(skill_op(root, "skills", command.name, document(meta, text(command.doc.body))))
        for field in ("argument-hint", "allowed-tools"):
            if command.doc.get(field) is not None:
                notes.append(f"skills/{command.name}: a Cursor skill has no {field}: dropped")
    for skill in payload.skills:
        meta = {"name": skill.name, "description": skill.description}
        files.append(skill_op(root, "skills", skill.name, document(meta, text(skill.doc.body))))
    for agent in payload.agents:
        body = _agent(agent, text(agent.doc.body), notes)
        files.append(FileOp(root / "agents" / f"{agent.name}.md", body.encode()))
    if ctx.is_local:
        rule = MDC_HEAD + RULE.format(ref=ref)
        files.append(FileOp(root / "rules" / "msd-core.mdc", rule.encode()))
    else:
        notes.append("rules: Cursor keeps user rules in its settings, not in files: none installed")
    files += core_files(root, payload, ref, text)
    entries = _hooks(ctx, root, payload, notes)
    files += hook_files(
        root, payload.hooks, entries, lambda s: convert_invocations(s, DIALECT, names)
    )
    if has_core_file(payload, MCP_LAUNCHER):
        launcher = root / CORE_DIR / MCP_LAUNCHER
        server = stdio_server(ctx, launcher)
        file = root / "mcp.json"
        entries.append(
            mcp_member(file, server, launcher_ref(ctx, launcher), launcher, force=ctx.force)
        )
    notes.append(
        "workflows: Cursor starts an agent with its Task tool and the agent file's model; the "
        "workflows' per-call Claude model choice is not passed"
    )
    cache = root / CORE_DIR / "cache"
    return Plan(
        "cursor",
        ctx.scope,
        root,
        tuple(files),
        tuple(entries),
        dirs=(cache,),
        state_files=(cache / "msd-update-check.json",),
        notes=summarize(notes, limit=16),
    )


ADAPTER = Adapter(
    "cursor",
    LABEL,
    global_root,
    local_root,
    detect,
    plan,
    hooks="`hooks.json` version 1 (camelCase events, flat entries, `--dialect cursor`)",
    sources="documentation only (no offline CLI): commands as skills (cursor.com/docs/skills, "
    "Cursor's built-in migrate-to-skills; high), agents `agents/*.md` name/description/readonly "
    "(rulesync cursor-subagent.ts, cursor/plugins; high), `.mdc` rule local only (user rules "
    "are settings; high), hooks.json v1 preToolUse/postToolUse/sessionStart with regex matchers "
    "over Shell/Read/Write/StrReplace/Grep and `permission`/`agent_message`/"
    "`additional_context` answers (cursor.com/docs/agent/hooks, mksglu/context-mode, "
    "rohitg00/agentmemory; medium-high), `mcp.json` mcpServers strict JSON (high); open: "
    "whether skills also read from `.claude/skills` are listed once beside Claude Code's "
    "install, Read/Write argument names in hook input",
    hook_events=HOOKS.events,
)
