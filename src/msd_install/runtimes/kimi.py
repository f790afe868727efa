"""Kimi Code CLI: ``$KIMI_CODE_HOME`` or ``~/.kimi-code``; local ``<project>/.kimi-code``.

The maintained CLI is npm ``@moonshot-ai/kimi-code`` (binary ``kimi``, Node >= 22.19); the
legacy PyPI ``kimi-cli`` and its ``~/.kimi`` are not read by it. Verified against 2.1.0: its
bundled ``dist/main.mjs`` read for each rule, and the real CLI run offline against throw-away
homes (tests/e2e/test_kimi_cli.py): ``kimi doctor config``, ``kimi acp`` (``/mcp``,
``available_commands_update``) and a loopback OpenAI-style stub model (``KIMI_MODEL_NAME``,
``KIMI_MODEL_BASE_URL``, ...: the saved requests show the skills, the ``Agent`` tool's agent
types and what a hook answered).

- **Skills are the commands.** Kimi has no command files; every skill with ``name`` and
  ``description`` (both required, else skipped with a log warning only) is the slash command
  ``/skill:<name>`` (``/<name>`` resolves too) and a tool for the model (``Skill``). So the 22
  commands and the 6 routers are ``skills/msd-<name>/SKILL.md`` (user: ``$KIMI_CODE_HOME/
  skills``; project: ``<git root>/.kimi-code/skills``, read without trust). ``$ARGUMENTS`` is
  replaced by what the user typed; ``$1``, ``$2``... and ``$ARGUMENTS[n]`` are too, so no
  installed skill may contain them (tested). ``@path`` is not expanded: file references become
  "read these files". ``argument-hint`` goes into the description, ``allowed-tools`` is
  dropped (a Kimi skill has no tool list).
- **Agents** (``agents/msd-<name>.md``; project ``<git root>/.kimi-code/agents``): frontmatter
  ``name`` (kebab-case), ``description``, ``tools`` (allowlist in Kimi's names, which are
  Claude's for files and shell: ``Read``, ``Write``, ``Edit``, ``Bash``, ``Glob``, ``Grep``,
  ``WebSearch``; ``FetchURL`` for WebFetch, ``TodoList``, ``Agent``). No model or colour
  fields: Claude tiers and colours are dropped (noted). The body is the agent's whole system
  prompt and a template: ``${name}`` is substituted, so none may appear (tested). A workflow
  starts one with ``Agent(subagent_type, description, prompt)``; its ``model`` takes Kimi
  model aliases, so the payload's Claude tier is not passed.
- **MCP**: ``mcp.json`` ``{"mcpServers": {"msd": {command, args, env}}}``, strict JSON. One
  invalid entry or a syntax error makes Kimi drop the whole file (only its log says so).
  Project servers come from ``<cwd>/.kimi-code/mcp.json`` and ``<git root>/.mcp.json``
  (Claude Code's file) and only in a trusted folder; later layers win by name (user <
  ``.mcp.json`` < ``.kimi-code/mcp.json``), and a broken ``.mcp.json`` drops every server,
  the user's included. msd never trusts a folder; the report says so.
- **Hooks**: ``[[hooks]]`` tables in ``$KIMI_CODE_HOME/config.toml`` (the only config file:
  there is no project config, so a local install has no hooks), keys ``event`` (Claude's
  names), ``matcher`` (an *unanchored* regex over tool names, anchored here), ``command``
  (run with a shell, in the session's cwd), ``timeout`` (1-600 s); any other key is an error.
  Input is Claude's (``hook_event_name``, ``session_id``, ``cwd``, ``tool_name``,
  ``tool_input`` with Kimi's argument names: ``path``, ``command``, ``cwd``); exit 2 +
  stderr, or ``permissionDecision: deny``, blocks a tool call. Kimi discards everything else a
  hook prints on PreToolUse, PostToolUse and SessionStart, so only the blocking guards are
  registered (``--dialect kimi``: a Bash call may carry its own ``cwd``).

Open: ``KIMI_CODE_HOME`` relocates everything, so ``--config-dir DIR`` works only when Kimi
runs with ``KIMI_CODE_HOME=DIR`` (noted); Kimi reads project skills and agents from the git
root but the project MCP file from the directory it starts in.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..installer.context import Context
from ..installer.plan import ITEM, ConfigEntry, FileOp, Plan
from ..payload import Agent, Command, HookSpec, Payload
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
from .convert import (
    Dialect,
    Spawn,
    convert_invocations,
    convert_model,
    convert_text,
    convert_tools,
    summarize,
)
from .markdown import document, tools_of
from .shapes import (
    HookDialect,
    hook_command,
    hook_script_ref,
    matcher,
    mcp_member,
    skill_op,
    stdio_server,
)

LABEL = "Kimi Code CLI"
ENV = "KIMI_CODE_HOME"
MCP_LAUNCHER = "bin/msd-mcp"
# the tools Kimi names as Claude Code does (verified in its bundled tool registry)
SHARED_TOOLS = ("Read", "Write", "Edit", "Bash", "Glob", "Grep", "WebSearch", "AskUserQuestion")
# hooks whose only effect is what they print: Kimi 2.1.0 drops it (it reads a PreToolUse hook
# only for a block, and runs PostToolUse and SessionStart hooks without reading their output)
SILENCED = {
    "PreToolUse": "Kimi reads a PreToolUse hook's output only to block the call",
    "PostToolUse": "Kimi ignores what a PostToolUse hook prints",
    "SessionStart": "Kimi ignores what a SessionStart hook prints",
}
BLOCKING = ("msd-secret-read-guard", "msd-validate-commit")


def global_root(ctx: Context) -> Path:
    return ctx.env_path(ENV) or ctx.home / ".kimi-code"


def local_root(ctx: Context) -> Path:
    return ctx.cwd / ".kimi-code"


def detect(ctx: Context) -> Detection:
    return detect_by(ctx, (global_root(ctx),), ("kimi",))


def _spawn(call: Spawn) -> str:
    """Kimi's ``Agent`` tool; ``model`` would name a Kimi model alias, so it is left out, and
    ``description`` (required, shown in the UI) falls back to the agent's name."""
    return (
        f'Agent(\n  subagent_type="{call.agent}",\n'
        f'  description="{call.description or call.agent}",\n  prompt="{call.prompt}"\n)'
    )


def _file_ref(path: str) -> str:
    bare = path.rstrip(".:")
    return f"`{bare}`{path[len(bare) :]}"


DIALECT = Dialect(
    LABEL,
    tools={
        **{name: name for name in SHARED_TOOLS},
        "MultiEdit": "Edit",
        "Task": "Agent",
        "WebFetch": "FetchURL",
        "TodoWrite": "TodoList",
        "Skill": "Skill",
        "NotebookEdit": None,
    },
    models={},  # Claude tiers name no Kimi model alias: agents use the configured default
    args="$ARGUMENTS",
    spawn=_spawn,
    invoke=lambda name: f"/skill:{name}",
    file_ref=_file_ref,
    context_file="AGENTS.md",
    flag="kimi",
    words=(
        ("<execution_context>\n", "<execution_context>\nRead these files first:\n"),
        (
            "the slash command of the same name where skills are commands",
            "the `/skill:<name>` command",
        ),
        ("four Task calls", "four Agent calls"),
        ("(WebFetch on", "(FetchURL on"),
    ),
)

# Claude's names: every event of Kimi's hooks reference (runtime-contracts.md)
EVENTS = (
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "Stop", "StopFailure",
    "SessionStart", "SessionEnd", "SubagentStart", "SubagentStop", "PreCompact", "PostCompact",
    "Notification",
)  # fmt: skip
HOOKS = HookDialect(
    LABEL,
    events={e: e for e in EVENTS},
    tools={name: name for name in ("Read", "Write", "Edit", "Bash", "Grep")},
    dialect="kimi",
    anchored=True,  # "Read" alone would also match ReadMediaFile
)


def _names(payload: Payload) -> list[str]:
    return [c.name for c in payload.commands] + [s.name for s in payload.skills]


def _command_skill(command: Command, text: Any) -> tuple[str, list[str]]:
    description = command.description
    hint = command.doc.get("argument-hint")
    if isinstance(hint, str) and hint.strip():
        description = f"{description} (arguments: {hint.strip()})"
    notes = []
    if tools_of(command.doc, "allowed-tools"):
        notes.append(
            f"skills/{command.name}: a Kimi skill has no tool list: allowed-tools not carried over"
        )
    meta = {"name": command.name, "description": description}
    return document(meta, text(command.doc.body)), notes


def _agent(root: Path, agent: Agent, text: Any, notes: list[str]) -> FileOp:
    where = f"agents/{agent.name}.md"
    meta: dict[str, Any] = {"name": agent.name, "description": agent.description}
    granted = tools_of(agent.doc)
    if granted:  # no list: every tool, in Kimi as in Claude Code
        meta["tools"], more = convert_tools(granted, DIALECT, where)
        notes += more
    _model, more = convert_model(agent.doc.get("model"), DIALECT, where)
    notes += more
    if agent.doc.get("color"):
        notes.append(f"{where}: Kimi agents have no colour: color dropped")
    return FileOp(
        root / "agents" / f"{agent.name}.md", document(meta, text(agent.doc.body)).encode()
    )


def _hook_entries(
    ctx: Context, root: Path, hooks: tuple[HookSpec, ...], notes: list[str]
) -> list[ConfigEntry]:
    """One ``[[hooks]]`` table ``{event, matcher, command, timeout}`` per blocking hook."""
    entries: list[ConfigEntry] = []
    for hook in hooks:
        if not hook.event:
            continue
        if hook.name not in BLOCKING:
            why = SILENCED.get(hook.event, f"Kimi has no {hook.event} setting")
            if hook.event in HOOKS.events and hook.event not in SILENCED:
                why = "only blocking guards are registered in Kimi"
            notes.append(f"hooks: {hook.name} not registered: {why}")
            continue
        command = hook_command(ctx, hook_script_ref(ctx, root, hook.script), HOOKS, hook.runner)
        item: dict[str, Any] = {"event": HOOKS.events[hook.event]}
        found, more = matcher(hook.matcher, HOOKS)
        notes += more
        if hook.matcher and found is None:
            notes.append(f"hooks: {hook.name} matches no Kimi tool: not used")
            continue
        if found:
            item["matcher"] = found
        item["command"] = command
        if hook.timeout:
            item["timeout"] = hook.timeout
        entries.append(
            ConfigEntry(
                root / "config.toml", "toml", ITEM, ("hooks",), item, label=f"hook {hook.name}",
                requires=tuple(root / "hooks" / name for name in hook.scripts()), marker=command,
            )
        )  # fmt: skip
    return entries


def _hook_files(
    root: Path, payload: Payload, entries: list[ConfigEntry], names: list[str]
) -> list[FileOp]:
    """The scripts the registered hooks run and import (never a script nothing runs)."""
    used = {req for entry in entries for req in entry.requires}
    return [
        FileOp(
            root / "hooks" / hook.script,
            convert_invocations(hook.content.decode("utf-8"), DIALECT, names).encode("utf-8"),
            0o755,
        )
        for hook in payload.hooks
        if root / "hooks" / hook.script in used
    ]


def _mcp_entry(ctx: Context, root: Path) -> ConfigEntry:
    launcher = root / CORE_DIR / MCP_LAUNCHER
    server = stdio_server(ctx, launcher)
    return mcp_member(
        root / "mcp.json", server, launcher_ref(ctx, launcher), launcher, force=ctx.force
    )


def _notices(ctx: Context, root: Path) -> list[str]:
    out = [
        "workflows: Kimi's Agent tool takes Kimi model aliases, so the workflows' Claude model "
        "tier is not passed: every msd agent runs on Kimi's default (or subagent) model",
    ]
    if ctx.is_local:
        out += [
            f"hooks: Kimi reads hooks only from the user's config.toml ({ENV}): a local install "
            "registers none; install msd globally for Kimi to get the secret guard",
            f"{ctx.cwd}: Kimi loads this project's .kimi-code/mcp.json (the msd MCP server) only "
            "in a trusted folder; it asks when you start `kimi` here. msd does not trust "
            "folders for you",
            "Kimi reads project skills and agents from the git root's .kimi-code/ but the MCP "
            "file from the directory it starts in: install here only if this is that root",
            "Kimi also reads this project's .mcp.json (Claude Code's) in a trusted folder: its "
            "`msd` yields to .kimi-code/mcp.json, and a syntax error in it makes Kimi drop "
            "every MCP server",
        ]
    elif ctx.config_dir is not None and ctx.env_path(ENV) != root:
        out.append(f"--config-dir: Kimi reads {root} only when started with {ENV}={root}")
    return out


def plan(ctx: Context, payload: Payload) -> Plan:
    root = ADAPTER.root(ctx)
    ref = root_ref(ctx, root)
    names = _names(payload)

    def text(raw: str) -> str:
        return convert_text(raw, DIALECT, ref, names)

    notes: list[str] = []
    files: list[FileOp] = []
    for command in payload.commands:
        skill_text, more = _command_skill(command, text)
        files.append(skill_op(root, "skills", command.name, skill_text))
        notes += more
    for skill in payload.skills:
        meta = {"name": skill.name, "description": skill.description}
        files.append(skill_op(root, "skills", skill.name, document(meta, text(skill.doc.body))))
    for agent in payload.agents:
        files.append(_agent(root, agent, text, notes))
    entries = [] if ctx.is_local else _hook_entries(ctx, root, payload.hooks, notes)
    files += _hook_files(root, payload, entries, names)
    files += core_files(root, payload, ref, text)
    if has_core_file(payload, MCP_LAUNCHER):
        entries.append(_mcp_entry(ctx, root))
    cache = root / CORE_DIR / "cache"
    return Plan(
        "kimi",
        ctx.scope,
        root,
        tuple(files),
        tuple(entries),
        dirs=(cache,),
        state_files=(cache / "msd-update-check.json",),
        notes=summarize(notes, limit=16) + tuple(_notices(ctx, root)),
    )


ADAPTER = Adapter(
    "kimi",
    LABEL,
    global_root,
    local_root,
    detect,
    plan,
    hooks="`[[hooks]]` in the user's `config.toml` (Claude event names, anchored matchers); "
    "blocking guards only, global scope only",
    env_override=ENV,
    invoke=DIALECT.invoke,
    claude_compat=(*SHARED_TOOLS, "Skill"),
    sources="verified with the real `kimi` 2.1.0 (npm @moonshot-ai/kimi-code: doctor config, "
    "acp /mcp and available_commands_update, a loopback OpenAI-style stub model) and its "
    "bundled dist/main.mjs; open: --config-dir needs KIMI_CODE_HOME, project skills come from "
    "the git root but project MCP from the start directory",
    hook_events=HOOKS.events,
)
