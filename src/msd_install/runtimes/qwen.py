"""Qwen Code: ``~/.qwen`` (or ``$QWEN_HOME``, the folder itself), local ``./.qwen``.

A Gemini CLI fork (shared plan in ``gemini_family``). Verified with the real ``qwen`` 0.24.4
(offline, throw-away homes, the loopback OpenAI-compatible stub of
tests/e2e/model_stub_apis.py, ``qwen --debug`` loader logs) and its bundled source:

- ``QWEN_HOME`` names the config folder itself (``~`` expanded, relative to the cwd); unset,
  the root is ``~/.qwen`` (storage-paths-lite.ts).
- ``settings.json`` is JSON with comments; a trailing comma makes the user file fatal (rc 1)
  and a project file silently ignored. Qwen adds ``"$version": 4`` to a settings file without
  one on its first start (its own migration; it keeps comments and our entries), so a
  settings file msd created is left holding ``{"$version": 4}`` after uninstall once qwen ran.
- The published ``qwen-code-settings`` schema is stale: its objects forbid unknown keys and
  it does not know ``hooks`` or ``ui.statusLine``, which this version reads. The engine
  therefore does not validate against it; the tests check that the only errors it reports
  are exactly those two keys.
- Commands: ``commands/msd-<name>.md`` (frontmatter ``description``, ``argument-hint``);
  ``{{args}}`` is replaced, ``$ARGUMENTS`` is not; ``@{path}`` injects a file inside the
  workspace only (so global installs add their text folders to
  ``context.includeDirectories``, as for Gemini). Qwen also offers every command to the model
  as a skill, so the 22 commands are commands only (rule 3) and a router can invoke them.
- Agents: ``agents/msd-<name>.md``; ``tools`` names are not checked by Qwen but are converted
  to its names; ``color`` values of the payload are all Qwen colours; ``model`` is left to
  the session. An agent whose prompt is under 10 characters is dropped by Qwen (debug log
  only), so such an agent is not installed and the report says so. Subagents run through the
  ``agent`` tool (``subagent_type``, ``description``, ``prompt``); ``run_in_background``
  defaults to true for top-level calls, so the workflows ask for the foreground.
- Hooks: Claude's event names and Claude's stdin/stdout protocol (exit 2 + stderr, or a JSON
  ``decision``/``hookSpecificOutput``), Qwen tool names in matchers, timeouts in seconds. The
  project dir is exported as ``$QWEN_PROJECT_DIR`` (also ``CLAUDE_``/``GEMINI_PROJECT_DIR``)
  and not substituted in bash, so local commands quote it. The status line goes in
  ``ui.statusLine`` (its stdin is Claude's shape).
- MCP: ``mcpServers`` in ``settings.json``. Project servers stay "Pending approval" until the
  user runs ``qwen mcp approve msd``; the local install says so and never approves. Qwen also
  reads ``<proj>/.mcp.json`` (Claude's local MCP file).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..installer.context import Context
from ..installer.plan import Plan
from ..payload import Agent, Command, Payload
from ._base import Adapter, Detection, detect_by
from .convert import Dialect, Spawn
from .gemini_family import Family, command_body
from .gemini_family import plan as family_plan
from .markdown import document
from .shapes import HookDialect

TOOLS: dict[str, str | None] = {
    "Read": "read_file",
    "Write": "write_file",
    "Edit": "edit",
    "MultiEdit": "edit",
    "Bash": "run_shell_command",
    "Glob": "glob",
    "Grep": "grep_search",
    "Task": "agent",
    "WebFetch": "web_fetch",
    "WebSearch": "web_search",
    "TodoWrite": "todo_write",
    "AskUserQuestion": "ask_user_question",
    "NotebookEdit": "notebook_edit",
    "Skill": "skill",
}


def _spawn(spawn: Spawn) -> str:
    # the agent tool requires a description; the payload's one-line examples have none
    description = spawn.description or f"Run {spawn.agent}"
    return (
        f'agent(\n  subagent_type="{spawn.agent}",\n  description="{description}",\n'
        f'  prompt="{spawn.prompt}",\n  run_in_background=false\n)'
    )


DIALECT = Dialect(
    "Qwen Code",
    tools=TOOLS,
    args="{{args}}",
    spawn=_spawn,
    context_file="QWEN.md",
    project_dir="$QWEN_PROJECT_DIR",
    words=(("four Task calls", "four agent calls"), ("`.claude/`", "`.qwen/`")),
    flag="qwen",
)

# Claude's names, as Qwen Code's hooks reference lists them (runtime-contracts.md)
EVENTS = (
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "SessionStart",
    "SessionEnd", "Stop", "SubagentStart", "SubagentStop", "PreCompact", "Notification",
    "PermissionRequest", "PermissionDenied", "MessageDisplay",
)  # fmt: skip
HOOKS = HookDialect(
    "Qwen Code",
    events={e: e for e in EVENTS},
    tools={
        "Read": "read_file",
        "Write": "write_file",
        "Edit": "edit",
        "MultiEdit": "edit",
        "Bash": "run_shell_command",
        "Grep": "grep_search",
        "Glob": "glob",
    },
    status_line=True,
    status_line_in=("ui",),
    anchored=True,
    named=True,
)


def _command(
    command: Command, ref: str, dialect: Dialect, names: list[str]
) -> tuple[str, str, list[str]]:
    kept = ("name", "description", "argument-hint")
    body, notes = command_body(command, ref, dialect, names, kept)
    meta: dict[str, Any] = {"description": command.description}
    hint = command.doc.get("argument-hint")
    if isinstance(hint, str) and hint.strip():
        meta["argument-hint"] = hint
    return f"{command.name}.md", document(meta, body), notes


def _agent_fields(agent: Agent, tools: list[str]) -> tuple[dict[str, Any], list[str]]:
    meta: dict[str, Any] = {"name": agent.name, "description": agent.description, "tools": tools}
    color = agent.doc.get("color")
    if isinstance(color, str) and color:
        meta["color"] = color
    notes = [
        f"agents/{agent.name}.md: {key} has no Qwen Code equivalent: dropped"
        for key, _value in agent.doc.meta
        if key not in ("name", "description", "tools", "model", "color")
    ]
    return meta, notes


FAMILY = Family(
    name="qwen",
    label="Qwen Code",
    dialect=DIALECT,
    hooks=HOOKS,
    project_var="QWEN_PROJECT_DIR",
    quote_project_var=True,
    render_command=_command,
    agent_fields=_agent_fields,
    route=(
        "invoke that skill with the user's arguments (Qwen Code offers every MSD command to "
        "you as a skill: the `skill` tool)"
    ),
    route_name=lambda name: name,
    schema=None,
    local_notes=(
        "Qwen Code keeps a project's MCP servers pending until you approve them: run "
        "`qwen mcp approve msd` in {project}",
    ),
    global_notes=(
        "Qwen Code injects @{file} only from inside the workspace: msd-core's workflows, "
        "references and templates are added to context.includeDirectories in settings.json",
    ),
    min_agent_body=10,
    hooks_switch=(("disableAllHooks",), True),
)


def global_root(ctx: Context) -> Path:
    return ctx.env_path("QWEN_HOME") or ctx.home / ".qwen"


def local_root(ctx: Context) -> Path:
    return ctx.cwd / ".qwen"


def detect(ctx: Context) -> Detection:
    return detect_by(ctx, (global_root(ctx), local_root(ctx)), ("qwen",))


def plan(ctx: Context, payload: Payload) -> Plan:
    return family_plan(ctx, payload, FAMILY, ADAPTER.root(ctx))


ADAPTER = Adapter(
    "qwen",
    "Qwen Code",
    global_root,
    local_root,
    detect,
    plan,
    hooks="`hooks` in `settings.json` (Claude's events and protocol, Qwen tool names, seconds), "
    "`ui.statusLine`",
    env_override="QWEN_HOME",
    sources="verified with the real `qwen` 0.24.4 (mcp list/approve, its loaders through a "
    "loopback OpenAI stub and `--debug` logs, hooks run by it) and its bundled source; open: "
    "the published settings schema is stale (no `hooks`, `ui.statusLine`)",
    hook_events=HOOKS.events,
)
