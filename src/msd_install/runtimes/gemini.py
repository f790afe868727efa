"""Gemini CLI: ``~/.gemini`` (``$GEMINI_CLI_HOME/.gemini``), local ``./.gemini``.

Verified with the real ``gemini`` 0.61.0 (offline, throw-away homes, the loopback stub model of
tests/e2e/model_stub_apis.py) and its bundled source:

- ``GEMINI_CLI_HOME`` replaces the *home directory*, not the ``.gemini`` folder: the root is
  ``$GEMINI_CLI_HOME/.gemini`` (``homedir()`` in packages/core/src/utils/paths.ts).
- ``settings.json`` is JSON with comments (``strip-json-comments``); a trailing comma makes
  every command exit 52 (``Error in …settings.json``). Installed as ``jsonc`` and checked
  against the bundled ``gemini-cli-settings`` schema.
- Commands: ``commands/msd-<name>.toml`` with ``description`` and ``prompt`` only (the
  TomlCommandDefSchema); ``{{args}}`` is replaced, ``$ARGUMENTS`` is not. ``@{path}`` injects a
  file, but only one inside the workspace (``readPathFromWorkspace``), and ``~`` is not
  expanded: so file references are absolute, and a global install adds its ``msd-core`` text
  folders to ``context.includeDirectories`` (``read_file`` has the same workspace rule). The
  argument hint goes into the description. The 22 commands are commands only (rule 3).
- Skills: ``skills/<n>/SKILL.md``; ``gemini skills list`` shows them. A router cannot run a
  command (only the user types one), so it tells the user which ``/msd-…`` to type.
- Agents: ``agents/msd-<name>.md``; the frontmatter schema is strict (``.strict()`` zod:
  unknown keys such as ``color`` are rejected, ``tools`` must be a list of Gemini tool names,
  ``Grep`` gives ``tools.1: Invalid tool name``). ``model`` is left to the session (the
  Claude tiers mean nothing here). Subagents run through the ``invoke_agent`` tool
  (``agent_name``, ``prompt``); defaults of 30 turns / 10 minutes apply (left as they are).
  Project agents are held back until the user acknowledges them (their sha256 in
  ``~/.gemini/acknowledgments/agents.json``): the local install says so and never does it.
- Hooks: ``hooks.BeforeTool`` / ``AfterTool`` / ``SessionStart`` with Gemini tool names in
  matchers (an unanchored regex there, so anchored here), timeouts in milliseconds, each hook
  with its ``name``. The scripts get ``--dialect gemini`` and answer
  ``{"decision": "deny", "reason": …}``. ``$GEMINI_PROJECT_DIR`` is replaced in the command
  text by an already shell-quoted path, so local commands use it unquoted. No status line, so
  the context monitor (fed by it) is not registered.
- Folder trust: in an untrusted folder every MCP server (user ones too) is disabled and project
  settings, hooks and agents are ignored. The local install tells the user to trust the
  folder; msd never writes ``trustedFolders.json``.

Open: ``gemini`` has no flag to list file commands (``--acp`` lists built-ins only); the stub
model shows the expanded prompt instead. A settings file with a trailing comma is fatal to
gemini but accepted by the ``jsonc`` editor (the engine has no "comments but no trailing
commas" format): msd edits such a file without making it worse, and says nothing. Subagents
keep gemini's default limits (30 turns, 10 minutes), which a long executor run may reach.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..installer.context import Context
from ..installer.plan import Plan
from ..payload import Agent, Command, Payload
from . import tomltext
from ._base import Adapter, Detection, detect_by
from .convert import Dialect, Spawn
from .gemini_family import Family, command_body
from .gemini_family import plan as family_plan
from .shapes import HookDialect

TOOLS: dict[str, str | None] = {
    "Read": "read_file",
    "Write": "write_file",
    "Edit": "replace",
    "MultiEdit": "replace",
    "Bash": "run_shell_command",
    "Glob": "glob",
    "Grep": "grep_search",
    "Task": "invoke_agent",
    "WebFetch": "web_fetch",
    "WebSearch": "google_web_search",
    "TodoWrite": "write_todos",
    "AskUserQuestion": "ask_user",
    "Skill": "activate_skill",
    "NotebookEdit": None,
}


def _spawn(spawn: Spawn) -> str:
    return f'invoke_agent(\n  agent_name="{spawn.agent}",\n  prompt="{spawn.prompt}"\n)'


DIALECT = Dialect(
    "Gemini CLI",
    tools=TOOLS,
    args="{{args}}",
    spawn=_spawn,
    context_file="GEMINI.md",
    project_dir="$GEMINI_PROJECT_DIR",
    words=(("four Task calls", "four invoke_agent calls"), ("`.claude/`", "`.gemini/`")),
    flag="gemini",
)

HOOKS = HookDialect(
    "Gemini CLI",
    # Claude's event -> Gemini's (schemas/gemini-cli-settings.json); BeforeModel, AfterModel
    # and BeforeToolSelection have no Claude counterpart
    events={
        "PreToolUse": "BeforeTool",
        "PostToolUse": "AfterTool",
        "SessionStart": "SessionStart",
        "SessionEnd": "SessionEnd",
        "Notification": "Notification",
        "PreCompact": "PreCompress",
        "UserPromptSubmit": "BeforeAgent",
        "Stop": "AfterAgent",
    },
    tools={
        "Read": "read_file|read_many_files",
        "Write": "write_file",
        "Edit": "replace",
        "MultiEdit": "replace",
        "Bash": "run_shell_command",
        "Grep": "grep_search",
        "Glob": "glob",
    },
    timeout_scale=1000,
    dialect="gemini",
    anchored=True,
    named=True,
    unused={"msd-context-monitor": "it reads what the status line writes, and Gemini CLI has none"},
)


def _command(
    command: Command, ref: str, dialect: Dialect, names: list[str]
) -> tuple[str, str, list[str]]:
    body, notes = command_body(command, ref, dialect, names, ("name", "description"))
    notes = [n for n in notes if "argument-hint" not in n]  # carried in the description
    description = command.description
    hint = command.doc.get("argument-hint")
    if isinstance(hint, str) and hint.strip():
        description = f"{description} (arguments: {hint.strip()})"
    return f"{command.name}.toml", tomltext.prompt_file(description, body), notes


def _agent_fields(agent: Agent, tools: list[str]) -> tuple[dict[str, Any], list[str]]:
    notes = [
        f"agents/{agent.name}.md: {key} has no Gemini CLI equivalent: dropped"
        for key, _value in agent.doc.meta
        if key not in ("name", "description", "tools", "model")
    ]
    return {"name": agent.name, "description": agent.description, "tools": tools}, notes


FAMILY = Family(
    name="gemini",
    label="Gemini CLI",
    dialect=DIALECT,
    hooks=HOOKS,
    project_var="GEMINI_PROJECT_DIR",
    quote_project_var=False,
    render_command=_command,
    agent_fields=_agent_fields,
    route=(
        "tell the user to type that command with their arguments (Gemini CLI runs a custom "
        "command only when the user types it)"
    ),
    route_name=lambda name: f"/{name}",
    schema="gemini-cli-settings",
    local_notes=(
        "Gemini CLI uses this project's .gemini/settings.json (MCP server msd, hooks) only in "
        "a trusted folder: trust {project} when gemini asks (or with /permissions)",
        "Gemini CLI holds back project agents until you acknowledge them: start gemini in "
        "{project} and accept the msd agents when it lists them",
    ),
    global_notes=(
        "Gemini CLI reads files only inside the workspace: msd-core's workflows, references "
        "and templates are added to context.includeDirectories in settings.json",
    ),
    hooks_switch=(("hooksConfig", "enabled"), False),
)


def global_root(ctx: Context) -> Path:
    return (ctx.env_path("GEMINI_CLI_HOME") or ctx.home) / ".gemini"


def local_root(ctx: Context) -> Path:
    return ctx.cwd / ".gemini"


def detect(ctx: Context) -> Detection:
    return detect_by(ctx, (global_root(ctx), local_root(ctx)), ("gemini",))


def plan(ctx: Context, payload: Payload) -> Plan:
    return family_plan(ctx, payload, FAMILY, ADAPTER.root(ctx))


ADAPTER = Adapter(
    "gemini",
    "Gemini CLI",
    global_root,
    local_root,
    detect,
    plan,
    hooks="`hooks` in `settings.json` (BeforeTool/AfterTool/SessionStart, Gemini tool names, ms)",
    env_override="GEMINI_CLI_HOME",
    sources="verified with the real `gemini` 0.61.0 (mcp list, skills list, its loaders through "
    "a loopback Gemini-API stub, hooks run by it) and its bundled source; open: no listing of "
    "file commands, a trailing comma in settings.json is fatal to gemini but not refused here",
    hook_events=HOOKS.events,
)
