"""Windsurf (Cascade): ``~/.codeium/windsurf``, local ``<project>/.windsurf``.

No offline CLI exists (shared/design/real-clients.md "No offline CLI"): every fact comes from
documentation; sources and confidence per fact (also in ``ADAPTER.sources``):

- **Workflows** are Windsurf's slash commands: ``global_workflows/msd-<name>.md`` globally,
  ``workflows/msd-<name>.md`` in ``.windsurf``, Markdown with a ``description`` (typed as
  ``/msd-<name>``; 12,000 characters at most). The 22 commands are workflows, the 6 routers
  skills ``skills/msd-<name>/SKILL.md`` (docs.windsurf.com cascade/workflows and skills;
  rulesync windsurf-command.ts; high). No placeholder is substituted: the arguments are
  described in words.
- **No agent files and no subagents** in Cascade: our agents' instructions are installed as
  ``msd-core/agents/<name>.md`` and a workflow's spawn says "do this step yourself as <agent>:
  read its file" (the Hermes pattern). High.
- **Hooks** ``hooks.json`` ``{"hooks": {"pre_read_code": [{"command", "show_output"}]}}``
  (user ``~/.codeium/windsurf/hooks.json``, workspace ``.windsurf/hooks.json``; snake_case
  events, flat entries without matcher or timeout; docs.windsurf.com cascade/hooks; high).
  Stdin: ``agent_action_name``, ``trajectory_id``, ``execution_id``, ``timestamp``,
  ``tool_info`` (``file_path``; ``command_line`` and ``cwd``; ``edits``:
  CorridorSecurity/hookshot reference-cascade.md, difflore; medium-high). A pre-hook blocks with
  exit 2 and its stderr is what Cascade shows; nothing else reaches the agent, so only the
  blocking guards are registered (``--dialect windsurf``): the secret guard on
  ``pre_read_code`` and ``pre_run_command``, the commit check on ``pre_run_command``.
- **MCP** only globally: ``~/.codeium/windsurf/mcp_config.json`` ``mcpServers.msd``, strict
  JSON (docs.windsurf.com cascade/mcp; high). A local install registers none (noted).

Open: Windsurf became Devin Desktop on 2026-06-02 (Cascade replaced by Devin Local on
2026-07-01): the rebranded app still reads ``~/.codeium/windsurf/``, ``.windsurf/hooks.json``
and ``.windsurf/skills`` but prefers ``.devin/`` in projects, and Devin Local has no workflows
(a skill is its slash command) - rulesync commit c72e8f0d, docs.devin.ai cli/extensibility/
skills; a ``--devin`` runtime may be needed. Windsurf also reads ``.claude/skills`` when "Claude
Code config reading" is on: whether it then lists an msd router once is unverified.
"""

from __future__ import annotations

from pathlib import Path

from ..installer.context import Context
from ..installer.plan import ITEM, ConfigEntry, FileOp, Plan
from ..payload import HookSpec, Payload
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
from .convert import Dialect, convert_invocations, convert_text, instructions_spawn, summarize
from .markdown import document
from .shapes import (
    HookDialect,
    core_agents,
    hook_command,
    hook_files,
    hook_script_ref,
    mcp_member,
    skill_op,
    stdio_server,
)

MCP_LAUNCHER = "bin/msd-mcp"
LABEL = "Windsurf"
# the hooks whose answer Windsurf passes on: a blocking exit 2 (advice has no way to the agent)
BLOCKING = ("msd-secret-read-guard", "msd-validate-commit")
# a Claude tool in a matcher -> the Windsurf pre-hook that sees it (Grep has none)
PRE_EVENTS = {
    "Read": "pre_read_code",
    "Bash": "pre_run_command",
    "Write": "pre_write_code",
    "Edit": "pre_write_code",
}
HOOKS = HookDialect(LABEL, events={}, dialect="windsurf")


def global_root(ctx: Context) -> Path:
    return ctx.home / ".codeium" / "windsurf"


def local_root(ctx: Context) -> Path:
    return ctx.cwd / ".windsurf"


def detect(ctx: Context) -> Detection:
    return detect_by(ctx, (global_root(ctx),), ("windsurf",))


def workflows_dir(ctx: Context, root: Path) -> Path:
    return root / ("workflows" if ctx.is_local else "global_workflows")


def dialect(ref: str, workflows: str, folder: str = CORE_DIR) -> Dialect:
    return Dialect(
        LABEL,
        tools={},
        args="(the text the user typed after the workflow's name, if any)",
        spawn=instructions_spawn(
            ref, "do it yourself as {agent} (Cascade has no subagents)", folder
        ),
        file_ref=lambda path: f"`{path}` (read this file)",
        context_file="AGENTS.md",
        project_dir="the workspace root",
        flag="windsurf",
        words=(
            (
                "(Skill tool, or\nthe slash command of the same name where skills are commands)",
                f"(it is the workflow `/<name>`: read `{workflows}<name>.md` and follow it)",
            ),
            ("invoke that skill with", "run that workflow with"),
            ("four Task calls", "four steps"),
        ),
    )


def _hooks(ctx: Context, root: Path, payload: Payload, notes: list[str]) -> list[ConfigEntry]:
    """One ``{command, show_output}`` item per Windsurf pre-hook a blocking guard needs."""
    file = root / "hooks.json"
    entries: list[ConfigEntry] = []
    unused: list[str] = []
    for hook in payload.hooks:
        if hook.event is None:
            continue
        if hook.name not in BLOCKING or hook.event != "PreToolUse":
            unused.append(hook.name)
            continue
        entries += _pre_hooks(ctx, root, file, hook, notes)
    if unused:
        notes.append(
            "hooks: Windsurf hooks reach the agent only by blocking a call (exit 2), so these "
            "are not registered: " + ", ".join(unused)
        )
    return entries


def _pre_hooks(
    ctx: Context, root: Path, file: Path, hook: HookSpec, notes: list[str]
) -> list[ConfigEntry]:
    command = hook_command(ctx, hook_script_ref(ctx, root, hook.script), HOOKS)
    needs = tuple(root / "hooks" / name for name in hook.scripts())
    events: list[str] = []
    for tool in (hook.matcher or "").split("|"):
        event = PRE_EVENTS.get(tool)
        if event is None:
            notes.append(f"hooks: Windsurf has no hook before a {tool} call: {hook.name} skips it")
        elif event not in events:
            events.append(event)
    item = {"command": command, "show_output": True}
    return [
        ConfigEntry(
            file,
            "json",
            ITEM,
            ("hooks", event),
            item,
            label=f"hook {hook.name}",
            requires=needs,
            marker=command,
        )
        for event in events
    ]


def plan(ctx: Context, payload: Payload) -> Plan:
    root = ADAPTER.root(ctx)
    ref = root_ref(ctx, root)
    workflows = workflows_dir(ctx, root)
    talk = dialect(ref, f"{ref}{workflows.name}/", payload.engine_dir)
    names = [c.name for c in payload.commands] + [s.name for s in payload.skills]
    notes: list[str] = []

    def text(raw: str) -> str:
        return convert_text(raw, talk, ref, names)

    files: list[FileOp] = []
    for command in payload.commands:
        body = document({"description": command.description}, text(command.doc.body))
        files.append(FileOp(workflows / f"{command.name}.md", body.encode()))
        for field in ("argument-hint", "allowed-tools"):
            if command.doc.get(field) is not None:
                notes.append(f"workflows/{command.name}: a Windsurf workflow has no {field}")
    for skill in payload.skills:
        meta = {"name": skill.name, "description": skill.description}
        files.append(skill_op(root, "skills", skill.name, document(meta, text(skill.doc.body))))
    files += core_agents(root, payload.agents, text, payload.engine_dir)
    files += core_files(root, payload, ref, text)
    entries = _hooks(ctx, root, payload, notes)
    files += hook_files(root, payload.hooks, entries, lambda s: convert_invocations(s, talk, names))
    if ctx.platform == "win32":
        notes.append("hooks: registered as `command` only; Windsurf runs `powershell` on Windows")
    if ctx.is_local:
        notes.append(
            "mcp: Windsurf reads MCP servers only from ~/.codeium/windsurf/mcp_config.json; "
            "`msd-install --windsurf --global` registers the msd server there"
        )
    elif has_core_file(payload, MCP_LAUNCHER):
        launcher = root / CORE_DIR / MCP_LAUNCHER
        server = stdio_server(ctx, launcher)
        file = root / "mcp_config.json"
        entries.append(
            mcp_member(file, server, launcher_ref(ctx, launcher), launcher, force=ctx.force)
        )
    notes.append("agents: Cascade has no subagents: each agent's step runs in the conversation")
    cache = root / CORE_DIR / "cache"
    return Plan(
        "windsurf",
        ctx.scope,
        root,
        tuple(files),
        tuple(entries),
        dirs=(cache,),
        state_files=(cache / "msd-update-check.json",),
        notes=summarize(notes, limit=16),
    )


ADAPTER = Adapter(
    "windsurf",
    LABEL,
    global_root,
    local_root,
    detect,
    plan,
    hooks="`hooks.json` (snake_case pre-hooks, blocking guards only, exit 2)",
    sources="documentation only (no offline CLI): workflows `global_workflows/`|`workflows/` "
    "and skills (docs.windsurf.com cascade/workflows, cascade/skills; rulesync; high), hooks.json "
    "`{hooks: {pre_read_code: [{command, show_output}]}}` with stdin `agent_action_name`/"
    "`tool_info` and exit-2 blocking (docs.windsurf.com cascade/hooks, CorridorSecurity/hookshot; "
    "high/medium-high), MCP global only `~/.codeium/windsurf/mcp_config.json` (high); open: "
    "Windsurf is now Devin Desktop (June 2026; `.devin/` preferred, Devin Local has no "
    "workflows), `.claude/skills` read beside Claude Code's install",
    # PreToolUse only: one pre-hook per tool (``PRE_EVENTS``)
    hook_events={"PreToolUse": "|".join(sorted(set(PRE_EVENTS.values())))},
)
