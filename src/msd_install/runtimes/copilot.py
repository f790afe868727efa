"""GitHub Copilot CLI: ``$COPILOT_HOME`` or ``~/.copilot``; local ``<project>/.github``.

Verified with ``copilot`` 1.0.102 (``@github/copilot``) offline against throw-away homes: its
listings (``copilot skill list --json``, ``copilot mcp list --json``), a loopback OpenAI-style
stub model (``COPILOT_OFFLINE=true``, ``COPILOT_PROVIDER_BASE_URL``: the saved requests show the
loaded skills, the ``task`` tool's agents and the tools each agent gets) and hooks that recorded
their stdin; the hooks reference of github/docs for what the CLI could not show.

- ``COPILOT_HOME`` relocates everything of ``~/.copilot`` (skills, agents, hooks,
  mcp-config.json): verified.
- The CLI reads no ``.prompt.md`` (a ``/name`` in ``-p`` goes to the model as text), so the 22
  commands are **skills**: ``skills/msd-<name>/SKILL.md`` (``~/.copilot/skills``,
  ``<project>/.github/skills``), like the 6 routers. Typed as ``/msd-x args`` a skill's body
  gets ``$ARGUMENTS`` replaced by the arguments (verified in an interactive session); an
  ``@path`` in the body becomes a tagged file the model reads. ``allowed-tools`` is dropped:
  Copilot reads it as permission rules (``shell``, ``write``), not tool names.
- Agents: ``agents/msd-<name>.agent.md`` with ``name``, ``description`` and ``tools`` as
  Copilot's aliases (``read`` -> view, ``edit`` -> create+edit, ``search`` -> grep+glob,
  ``execute`` -> bash, ``agent`` -> task, ``todo``, ``web``: each verified through the tools
  a started agent was given). ``model: opus`` would be sent to the provider as the model name
  ``opus``, so Claude tiers are dropped (Copilot's default model); ``color`` is not a field.
  A workflow starts an agent with the ``task`` tool (``agent_type``, ``name``, ``description``,
  ``prompt``; all four required).
- Hooks: ``hooks/msd-hooks.json`` (``{"version": 1, "hooks": {"preToolUse": [{"type":
  "command", "bash", "matcher", "timeoutSec"}]}}``; every ``*.json`` there is loaded, so the
  name is ours alone), scripts next to it, ``--dialect copilot``: camelCase input
  (``toolName``, ``toolArgs``, ``toolResult``, ``sessionId``, ``cwd``), Copilot tool names in
  the anchored matchers (``view``, ``create``, ``edit``, ``bash``, ``grep``/``rg``), a
  ``{"permissionDecision": "deny"}`` answer blocks, ``additionalContext`` adds context. Local
  hook commands name their script through ``$COPILOT_PROJECT_DIR`` (set by the CLI).
  Entries, not a whole file, so that a hook whose script is not ours is never registered.
- MCP: ``mcp-config.json`` (JSONC: comments and trailing commas accepted) ``mcpServers.msd``
  (``"type": "local"``, ``"tools": ["*"]``); locally ``.github/mcp.json`` (strict JSON).
- Project MCP servers and hooks load only in a trusted folder (``trusted_folders`` in
  ``~/.copilot/config.json``, which the CLI manages); skills and agents load without trust.
  The install report says so; msd never trusts a folder for the user.

Side by side with Claude Code (verified): Copilot also reads ``<project>/.claude/skills``,
``.claude/commands`` and ``.claude/agents`` and lists each name once, preferring
``.github``; it reads ``<project>/.mcp.json`` **instead of** ``.github/mcp.json`` whenever that
file exists (so Claude's project server is then the one Copilot starts), and in a trusted
folder it also runs the hooks of ``<project>/.claude/settings.json``. It reads nothing of
``~/.claude``. Open: Windows (hook entries carry only ``bash``), models whose edit tool is
``apply_patch`` (free-form patch text: the edit hooks do not see those edits).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..installer.context import Context
from ..installer.plan import IF_ABSENT, ITEM, MEMBER, ConfigEntry, FileOp, Plan
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
from .convert import Dialect, Spawn, convert_model, convert_text, convert_tools, summarize
from .markdown import document, meta_of, tools_of
from .shapes import (
    HookDialect,
    hook_command,
    hook_script_ref,
    matcher,
    mcp_member,
    skill_op,
    stdio_server,
    unmatched_when,
)

MCP_LAUNCHER = "bin/msd-mcp"
HOOKS_FILE = "msd-hooks.json"
LABEL = "GitHub Copilot CLI"
# hooks that cannot work in Copilot: no msd status line (and so no context bridge for the
# monitor), and no transcript in a preToolUse input to tell an msd workflow from direct edits
UNUSABLE = {
    "msd-statusline": "what Copilot CLI's statusLine command receives is not verified",
    "msd-context-monitor": "it reads what msd's status line writes, which Copilot does not run",
    "msd-workflow-guard": "Copilot's preToolUse input has no transcript to see an msd workflow",
}


def global_root(ctx: Context) -> Path:
    return ctx.env_path("COPILOT_HOME") or ctx.home / ".copilot"


def local_root(ctx: Context) -> Path:
    return ctx.cwd / ".github"


def detect(ctx: Context) -> Detection:
    # <project>/.github is in most repositories and says nothing about Copilot
    return detect_by(ctx, (global_root(ctx),), ("copilot",))


def _spawn(spawn: Spawn) -> str:
    return (
        f'task(\n  agent_type="{spawn.agent}",\n  name="{spawn.agent.removeprefix("msd-")}",\n'
        f'  description="{spawn.description}",\n  prompt="{spawn.prompt}"\n)'
    )


DIALECT = Dialect(
    LABEL,
    tools={
        "Read": "read",
        "Write": "edit",
        "Edit": "edit",
        "MultiEdit": "edit",
        "Bash": "execute",
        "Glob": "search",
        "Grep": "search",
        "Task": "agent",
        "WebFetch": "web",
        "WebSearch": "web",
        "TodoWrite": "todo",
        "NotebookEdit": None,
        "AskUserQuestion": None,
    },
    spawn=_spawn,
    context_file="AGENTS.md",
    flag="copilot",
    words=(
        ("(Skill tool,", "(the `skill` tool,"),
        ("with the Write tool", "with the `create` or `edit` tool"),
        ("with the Edit tool", "with the `edit` tool"),
        ("(WebFetch on", "(`web_fetch` on"),
        ("**WebSearch**", "**`web_search`**"),
        ("with the Write/Edit tools", "with the `create`/`edit` tools"),
        ("four Task calls", "four `task` calls"),
        ("(Grep imports)", "(`grep` imports)"),
        ("(Grep/Glob)", "(`grep`/`glob`)"),
        ("(Glob/Grep)", "(`glob`/`grep`)"),
        ("with Glob/Grep first", "with `glob`/`grep` first"),
        ("(Grep for imports", "(`grep` for imports"),
        ("| Grep for imports", "| `grep` for imports"),
        ("/ Glob |", "/ `glob` |"),
    ),
)

HOOKS = HookDialect(
    LABEL,
    events={
        "PreToolUse": "preToolUse",
        "PostToolUse": "postToolUse",
        "SessionStart": "sessionStart",
        "SessionEnd": "sessionEnd",
        "UserPromptSubmit": "userPromptSubmitted",
        "Notification": "notification",
        "PermissionRequest": "permissionRequest",
    },
    tools={
        "Read": "view",
        "Write": "create",
        "Edit": "edit",
        "Bash": "bash",
        "Grep": "grep|rg",
        "Glob": "glob",
    },
    dialect="copilot",
)


def _agent(
    agent_meta: dict[str, Any], name: str, tools: list[str], notes: list[str]
) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "description": agent_meta.get("description", "")}
    if tools:  # no tools field: every tool, in Copilot as in Claude Code
        native, more = convert_tools(tools, DIALECT, f"agents/{name}")
        notes += more
        meta["tools"] = native
    model, more = convert_model(agent_meta.get("model"), DIALECT, f"agents/{name}")
    notes += more
    if model:
        meta["model"] = model
    if "color" in agent_meta:
        notes.append(f"agents/{name}: {LABEL} agents have no colour: color dropped")
    return meta


def _hook_entries(
    ctx: Context, root: Path, hooks: tuple[HookSpec, ...], notes: list[str]
) -> list[ConfigEntry]:
    """``hooks/msd-hooks.json``: its version, then one ``{type, bash, matcher, timeoutSec}``
    item per hook under the hook's camelCase event."""
    file = root / "hooks" / HOOKS_FILE
    entries = [
        ConfigEntry(
            file,
            "json",
            MEMBER,
            (),
            1,
            key="version",
            policy=IF_ABSENT,
            label="version of the hooks file",
        )
    ]
    for hook in hooks:
        if not hook.event:
            continue
        if hook.name in UNUSABLE:
            notes.append(f"hooks: {hook.name} not used: {UNUSABLE[hook.name]}")
            continue
        event = HOOKS.events.get(hook.event)
        if event is None:
            notes.append(f"hooks: {LABEL} has no {hook.event} event: {hook.name} not used")
            continue
        if note := unmatched_when(hook, LABEL):
            notes.append(note)
            continue
        script_ref = hook_script_ref(ctx, root, hook.script, "COPILOT_PROJECT_DIR")
        command = hook_command(ctx, script_ref, HOOKS, hook.runner)
        item: dict[str, Any] = {"type": "command", "bash": command}
        found, more = matcher(hook.matcher, HOOKS)
        notes += more
        if hook.matcher and found is None:
            notes.append(f"hooks: {hook.name} matches no {LABEL} tool: not used")
            continue
        if found:
            item["matcher"] = found
        if hook.timeout:
            item["timeoutSec"] = hook.timeout
        entries.append(
            ConfigEntry(
                file, "json", ITEM, ("hooks", event), item, label=f"hook {hook.name}",
                requires=_needs(root, hook), marker=command,
            )
        )  # fmt: skip
    return entries


def _mcp_entry(ctx: Context, root: Path) -> ConfigEntry:
    launcher = root / CORE_DIR / MCP_LAUNCHER
    server = {"type": "local", **stdio_server(ctx, launcher), "tools": ["*"]}
    # the user file is JSONC to Copilot; the workspace file must stay strict JSON
    file, fmt = (root / "mcp.json", "json") if ctx.is_local else (root / "mcp-config.json", "jsonc")
    return mcp_member(file, server, launcher_ref(ctx, launcher), launcher, fmt=fmt, force=ctx.force)


def _local_notes(ctx: Context) -> list[str]:
    project = ctx.cwd
    return [
        f"{project}: Copilot CLI loads this project's MCP server and hooks only in a trusted "
        "folder; it asks when you start `copilot` here. msd does not trust folders for you",
        f"{project / '.mcp.json'}: while this file exists Copilot CLI reads it instead of "
        ".github/mcp.json (msd's Claude Code install puts its own msd server there)",
    ]


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
        hint = command.doc.get("argument-hint")
        if isinstance(hint, str) and hint:
            meta["argument-hint"] = hint
        if command.doc.get("allowed-tools"):
            notes.append(
                f"skills/{command.name}: allowed-tools dropped: Copilot CLI reads them as "
                "permission rules, not tool names; it asks before running tools as usual"
            )
        files.append(skill_op(root, "skills", command.name, document(meta, text(command.doc.body))))
    for skill in payload.skills:
        meta = {"name": skill.name, "description": skill.description}
        files.append(skill_op(root, "skills", skill.name, document(meta, text(skill.doc.body))))
    for agent in payload.agents:
        meta = _agent(meta_of(agent.doc), agent.name, tools_of(agent.doc), notes)
        files.append(
            FileOp(
                root / "agents" / f"{agent.name}.agent.md",
                document(meta, text(agent.doc.body)).encode(),
            )
        )
    usable = {s for h in payload.hooks if h.event and h.name not in UNUSABLE for s in h.scripts()}
    files += [
        FileOp(root / "hooks" / h.script, h.content, 0o755)
        for h in payload.hooks
        if h.script in usable  # a usable hook, its code and its helpers
    ]
    files += core_files(root, payload, ref, text)
    entries = _hook_entries(ctx, root, payload.hooks, notes)
    if has_core_file(payload, MCP_LAUNCHER):
        entries.append(_mcp_entry(ctx, root))
    if ctx.platform == "win32":
        notes.append(
            "hooks: registered as `bash` commands only; on Windows Copilot CLI runs `powershell` "
            "entries, which msd does not write yet"
        )
    if ctx.is_local:
        notes += _local_notes(ctx)
    cache = root / CORE_DIR / "cache"
    return Plan(
        "copilot",
        ctx.scope,
        root,
        tuple(files),
        tuple(entries),
        dirs=(cache,),
        state_files=(cache / "msd-update-check.json",),
        notes=summarize(notes, limit=16),
    )


ADAPTER = Adapter(
    "copilot",
    LABEL,
    global_root,
    local_root,
    detect,
    plan,
    hooks="`hooks/msd-hooks.json` (Copilot CLI camelCase events, `bash` commands)",
    env_override="COPILOT_HOME",
    hook_events=HOOKS.events,
)


def _needs(root: Path, hook: HookSpec) -> tuple[Path, ...]:
    """The hook's script and its helpers: all must be installed for it to be registered."""
    return tuple(root / "hooks" / name for name in hook.scripts())
