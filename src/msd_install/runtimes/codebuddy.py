"""CodeBuddy Code (Tencent): ``$CODEBUDDY_CONFIG_DIR`` or ``~/.codebuddy``, local ``./.codebuddy``.

Verified with ``codebuddy-headless`` 2.163.0 (PyPI ``codebuddy-agent-sdk`` 0.3.274) run offline
against throw-away homes: ``mcp list`` (a real health check), ``config get hooks``, the
``system/init`` line of ``-p ... --output-format stream-json --verbose`` (``slash_commands``,
``mcp_servers``, ``tools``), and a loopback OpenAI-style stub (``CODEBUDDY_API_KEY=dummy``,
``CODEBUDDY_BASE_URL``) whose recorded requests show the skills, the agents, the tools each
agent gets and the hooks' effect (tests/e2e/test_codebuddy_cli.py). Where the CLI shows
nothing, its bundled code (``strings`` of the binary) was read.

- **Commands** are native commands, ``commands/msd-<name>.md``: the init line lists commands in
  ``slash_commands`` but never skills, and the model does not see commands among its skills,
  so nothing is listed twice. A command keeps Claude's frontmatter (``description``,
  ``argument-hint``, ``allowed-tools``); ``$ARGUMENTS`` and ``@path`` (``~/``, relative) are
  expanded as in Claude Code. The **Skill tool runs commands too** (``Skill(skill="msd-x",
  args=...)``): that is how the 6 router skills (``skills/msd-<name>/SKILL.md``) hand over.
  Open: a command started through the Skill tool gets ``/msd-x <args>`` as its ``$ARGUMENTS``.
- **Agents**: ``agents/msd-<name>.md`` with ``name``, ``description``, ``tools`` (Claude's names:
  CodeBuddy's own, ``MultiEdit`` and ``TodoWrite`` included; only ``Task`` is ``Agent``),
  ``color`` (any string). ``model`` takes a model id or a routing value: ``reasoning``,
  ``lite``, ``default``/``inherit`` (the session's). A model id (``deep-model``...) exists only
  on some accounts, so the Claude tiers become routing values: opus -> reasoning, haiku ->
  lite, sonnet -> default. A workflow starts an agent with the ``Agent`` tool
  (``subagent_type``, ``model``, ``description``, ``prompt``), whose ``model`` takes the same
  values.
- **Hooks**: ``settings.json`` (JSONC) ``hooks``, Claude's shape, event names, tool names and
  stdin (``tool_name``, ``tool_input``, ``cwd``; SessionStart has no ``cwd``), timeouts in
  seconds, exit 2 blocks, ``hookSpecificOutput.additionalContext`` reaches the model; hooks run
  in ``-p`` mode too. The hook gets ``$CODEBUDDY_PROJECT_DIR`` (and ``$CLAUDE_PROJECT_DIR``):
  local hook commands name their script through the first. ``statusLine`` gets Claude's input
  (``context_window.remaining_percentage``; read from its code, the status line runs only in
  the TUI), so the status line and the context monitor work. User and project hooks are
  merged, so a global plus a local install run each hook twice (as in Claude Code). The
  transcript (``transcript_path``) holds OpenAI Agents items, which the workflow guard reads.
  A broken user settings.json silently drops the whole user scope (only the log says so):
  msd-install refuses to edit a file it cannot parse.
- **MCP, global**: the user file is the *first existing* of ``<home>/.mcp.json``,
  ``<home>/mcp.json`` and ``<base>/.codebuddy.json`` (``<base>`` = ``$CODEBUDDY_CONFIG_DIR``,
  else the home directory); the others are never read, so msd writes into that one (or creates
  ``.mcp.json``) and touches no other. ``{"type": "stdio", command, args, env}``: ``mcp get
  NAME`` (unlike ``mcp list`` or a session) rewrites the scope's file, adding ``type`` where it
  is missing and ``"disabledMcpServers": []`` next to ``mcpServers``; ours already has
  ``type`` and so stays ours, but that member is CodeBuddy's and stays after an uninstall.
- **MCP, local**: CodeBuddy's *local* scope, ``<base>/.codebuddy.json`` ->
  ``projects["<project>"].mcpServers.msd`` (what ``codebuddy mcp add -s local`` writes; keyed by
  the directory CodeBuddy starts in). Not the project's ``.mcp.json``: that file is Claude Code's
  too (msd's Claude install puts its own ``msd`` there), and its servers wait for an approval.
  The local scope needs none and wins over ``.mcp.json`` by name, so side by side with
  ``--claude --local`` ``msd`` is listed once, CodeBuddy's own. Open: a *global* CodeBuddy
  install in a project whose ``.mcp.json`` names ``msd`` (a local Claude install) is hidden by
  that entry, which runs only once approved (``enabledMcpjsonServers`` in
  ``.codebuddy/settings.local.json``); the report says so and never approves.
- CodeBuddy reads nothing of ``~/.claude`` or ``.claude/`` (checked with a Claude install next
  to it: no skill, agent, command or hook of Claude's shows up). Its context file is
  ``CODEBUDDY.md``, else ``AGENTS.md`` (``CLAUDE.md`` is never read).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..installer.context import GLOBAL, Context
from ..installer.plan import ConfigEntry, FileOp, Plan
from ..payload import Agent, Command, Payload
from ._base import (
    CORE_DIR,
    Adapter,
    Detection,
    core_files,
    detect_by,
    has_core_file,
    interpreter,
    launcher_args,
    launcher_ref,
    root_ref,
)
from .convert import Dialect, Spawn, convert_model, convert_text, convert_tools, summarize
from .markdown import document, tools_of
from .shapes import HookDialect, env_member, hook_script_ref, mcp_member, settings_hooks, skill_op

LABEL = "CodeBuddy Code"
ENV = "CODEBUDDY_CONFIG_DIR"
MCP_LAUNCHER = "bin/msd-mcp"
USER_MCP_FILES = (".mcp.json", "mcp.json")  # in the CodeBuddy home, before <base>/.codebuddy.json
LOCAL_MCP_FILE = ".codebuddy.json"
# the tool names CodeBuddy's agents and commands take (read from its tool registry and seen in
# the tools a started agent got); the payload's Claude names are the same but for Task
NATIVE_TOOLS = (
    "Read",
    "Write",
    "Edit",
    "MultiEdit",
    "Bash",
    "Glob",
    "Grep",
    "WebFetch",
    "WebSearch",
    "TodoWrite",
    "AskUserQuestion",
    "NotebookEdit",
    "Skill",
)
TOOLS: dict[str, str | None] = {**{name: name for name in NATIVE_TOOLS}, "Task": "Agent"}
# Claude tiers as CodeBuddy's routing values (resolved against the account's models; "default"
# is the session's model, in an agent file as in an Agent call)
MODELS: dict[str, str | None] = {
    "opus": "reasoning",
    "sonnet": "default",
    "haiku": "lite",
    "inherit": "default",
}
ROUTING = "opus -> reasoning, haiku -> lite, sonnet or inherit -> default"


def global_root(ctx: Context) -> Path:
    return ctx.env_path(ENV) or ctx.home / ".codebuddy"


def local_root(ctx: Context) -> Path:
    return ctx.cwd / ".codebuddy"


def detect(ctx: Context) -> Detection:
    return detect_by(ctx, (global_root(ctx), local_root(ctx)), ("codebuddy", "cbc"))


def _spawn(spawn: Spawn) -> str:
    model = (
        f'  model="<{spawn.model.strip("<>")} as a CodeBuddy routing value: {ROUTING}>",\n'
        if spawn.model
        else ""
    )
    return (
        f'Agent(\n  subagent_type="{spawn.agent}",\n{model}'
        f'  description="{spawn.description}",\n  prompt="{spawn.prompt}"\n)'
    )


DIALECT = Dialect(
    LABEL,
    tools=TOOLS,
    models=MODELS,
    spawn=_spawn,
    context_file="CODEBUDDY.md",
    flag="codebuddy",
    words=(
        (
            "(Skill tool, or\nthe slash command of the same name where skills are commands)",
            "(Skill tool: in\nCodeBuddy it runs the command of that name)",
        ),
        ("four Task calls", "four Agent calls"),
        (
            "pass that model when spawning:",
            f"pass that model when spawning, as CodeBuddy's routing value ({ROUTING}):",
        ),
        (
            "Tiers are the runtime's own aliases:",
            f"Tiers are Claude Code's aliases (CodeBuddy Code routes them: {ROUTING}):",
        ),
    ),
)

# Claude's names; the nine events CodeBuddy Code documents (runtime-contracts.md)
EVENTS = (
    "PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop", "PreCompact",
    "SessionStart", "SessionEnd", "Notification",
)  # fmt: skip
HOOKS = HookDialect(
    LABEL,
    events={e: e for e in EVENTS},
    event_matchers=frozenset(("SessionStart", "PreCompact")),
    status_line=True,
)


def _command(root: Path, command: Command, text: Callable[[str], str], notes: list[str]) -> FileOp:
    where = f"commands/{command.name}.md"
    meta: dict[str, Any] = {"description": command.description}
    hint = command.doc.get("argument-hint")
    if isinstance(hint, str) and hint:
        meta["argument-hint"] = hint
    allowed, more = convert_tools(tools_of(command.doc, "allowed-tools"), DIALECT, where)
    notes += more
    if allowed:
        meta["allowed-tools"] = allowed
    body = document(meta, text(command.doc.body))
    return FileOp(root / "commands" / f"{command.name}.md", body.encode())


def _agent(root: Path, agent: Agent, text: Callable[[str], str], notes: list[str]) -> FileOp:
    where = f"agents/{agent.name}.md"
    meta: dict[str, Any] = {"name": agent.name, "description": agent.description}
    tools, more = convert_tools(tools_of(agent.doc), DIALECT, where)
    notes += more
    if tools:
        meta["tools"] = ", ".join(tools)
    color = agent.doc.get("color")
    if isinstance(color, str) and color:
        meta["color"] = color
    model, more = convert_model(agent.doc.get("model"), DIALECT, where)
    notes += more
    if model:
        meta["model"] = model
    body = document(meta, text(agent.doc.body))
    return FileOp(root / "agents" / f"{agent.name}.md", body.encode())


def mcp_base(ctx: Context) -> Path:
    """Where CodeBuddy looks for ``.codebuddy.json``: ``$CODEBUDDY_CONFIG_DIR``, else home."""
    return ctx.config_dir or ctx.env_path(ENV) or ctx.home


def user_mcp_files(ctx: Context, root: Path) -> tuple[Path, ...]:
    """The user MCP files in CodeBuddy's order; it reads the first that exists, only."""
    return (*(root / name for name in USER_MCP_FILES), mcp_base(ctx) / LOCAL_MCP_FILE)


def _mcp_entry(ctx: Context, root: Path) -> ConfigEntry:
    launcher = root / CORE_DIR / MCP_LAUNCHER
    # Even a project's server is registered in the user's ~/.codebuddy.json, keyed by the
    # project's absolute path: a file of one machine, never committed, so it keeps the
    # absolute interpreter, launcher and audit log of a global install.
    mine = ctx.with_scope(GLOBAL)
    server: dict[str, Any] = {
        "type": "stdio",
        "command": interpreter(mine),
        "args": launcher_args(mine, launcher),
        **env_member(mine),
    }
    if ctx.is_local:
        file = (ctx.env_path(ENV) or ctx.home) / LOCAL_MCP_FILE  # --config-dir is global only
        path: tuple[str, ...] = ("projects", str(ctx.cwd), "mcpServers")
    else:
        candidates = user_mcp_files(ctx, root)
        file = next((c for c in candidates if c.exists()), candidates[0])
        path = ("mcpServers",)
    return mcp_member(
        file,
        server,
        launcher_ref(mine, launcher),
        launcher,
        fmt="jsonc",
        path=path,
        force=ctx.force,
    )


def _notices(ctx: Context, mcp: ConfigEntry | None) -> list[str]:
    if ctx.is_local:
        where = f" in {mcp.file}" if mcp is not None else ""
        return [
            f"mcp: msd is in CodeBuddy's local scope for {ctx.cwd}{where}: CodeBuddy uses it "
            "when started in that directory"
        ]
    out = [
        "mcp: in a project whose .mcp.json names an msd server (msd's Claude Code local "
        "install), CodeBuddy runs that one instead, once you approve it there; msd never "
        "approves servers for you"
    ]
    if ctx.config_dir is not None:
        out.append(f"--config-dir: start CodeBuddy with {ENV}={ctx.config_dir} to use it")
    return out


def plan(ctx: Context, payload: Payload) -> Plan:
    root = ADAPTER.root(ctx)
    ref = root_ref(ctx, root)
    names = [c.name for c in payload.commands] + [s.name for s in payload.skills]
    notes: list[str] = []

    def text(raw: str) -> str:
        return convert_text(raw, DIALECT, ref, names)

    files = [_command(root, c, text, notes) for c in payload.commands]
    for skill in payload.skills:
        meta = {"name": skill.name, "description": skill.description}
        files.append(skill_op(root, "skills", skill.name, document(meta, text(skill.doc.body))))
    files += [_agent(root, a, text, notes) for a in payload.agents]
    files += [FileOp(root / "hooks" / h.script, h.content, 0o755) for h in payload.hooks]
    files += core_files(root, payload, ref, text)
    entries, hook_notes = settings_hooks(
        ctx,
        root,
        root / "settings.json",
        payload.hooks,
        HOOKS,
        script_ref=lambda script: hook_script_ref(ctx, root, script, "CODEBUDDY_PROJECT_DIR"),
        fmt="jsonc",
    )
    notes += hook_notes
    mcp = _mcp_entry(ctx, root) if has_core_file(payload, MCP_LAUNCHER) else None
    if mcp is not None:
        entries.append(mcp)
    notes += _notices(ctx, mcp)
    notes.append(
        f"agents: Claude model tiers become CodeBuddy routing values ({ROUTING}), in the agent "
        "files and in the workflows' Agent calls"
    )
    cache = root / CORE_DIR / "cache"
    return Plan(
        "codebuddy",
        ctx.scope,
        root,
        tuple(files),
        tuple(entries),
        dirs=(cache,),
        state_files=(cache / "msd-update-check.json",),
        notes=summarize(notes, limit=16),
        # whichever user MCP file was chosen at install, uninstall must accept it
        config_names=() if ctx.is_local else user_mcp_files(ctx, root),
    )


ADAPTER = Adapter(
    "codebuddy",
    LABEL,
    global_root,
    local_root,
    detect,
    plan,
    hooks="`hooks` in `settings.json` (Claude dialect and events), `statusLine`",
    hook_events=HOOKS.events,
    env_override=ENV,
    claude_compat=NATIVE_TOOLS,
    sources="verified with the real `codebuddy-headless` 2.163.0 (mcp list, config get hooks, "
    "the stream-json init line, a loopback model stub for skills, agents and hooks) and its "
    "bundled code; open: a global install is hidden in projects whose .mcp.json names msd "
    "until that entry is approved",
)
