"""OpenAI Codex CLI: ``~/.codex`` (or ``$CODEX_HOME``), local ``<project>/.codex``.

Verified with the real ``codex`` 0.171.0 against throw-away homes (tests/e2e/test_codex_cli.py)
and in openai/codex's source:

* **Skills, not prompts.** Custom prompts are gone, so each of the 22 commands is a skill
  ``skills/msd-<name>/SKILL.md`` beside the 6 router skills (frontmatter ``name`` and
  ``description``; Codex takes the name from the frontmatter). Users invoke a skill by naming it
  with ``$`` (``$msd-progress --bar``); Codex lists skills to the model with their paths and the
  model reads the file, so nothing substitutes arguments: ``$ARGUMENTS`` becomes ``ARGUMENTS``,
  defined in each command as the text after ``$msd-<name>``. Skills in ``<proj>/.codex/skills``
  are read even in an untrusted project. Codex also reads ``~/.agents/skills``; msd never writes
  there (shared surface rule).
* **Agents** are TOML only: ``agents/msd-<name>.toml`` with ``name``, ``description`` and
  ``developer_instructions``; a file without ``developer_instructions`` or that does not parse
  is dropped silently, so the e2e suite checks every role in ``codex debug prompt-input``.
  Codex agent files have no tool list (tools, Claude model tiers and colours are dropped with a
  note). Project agents load only in a **trusted** project.
* **Subagents**: the model-visible tool is ``spawn_agent``, in one of two shapes chosen by the
  model's metadata: v2 for OpenAI's current models (``agent_type``, ``task_name``, ``message``,
  ``fork_turns``, ...; ``wait_agent(timeout_ms)``) and v1 otherwise (``agent_type``,
  ``message``, ``fork_context``; ``wait_agent(targets)``), both seen in real requests. The result
  arrives as a message, awaited with ``wait_agent``; ``agent_type`` takes the agent file's
  ``name``. MSD gives every agent a fresh context: ``fork_turns="none"`` (v1's default).
* **MCP**: ``[mcp_servers.msd]`` in ``config.toml`` of the root (the user's tables, comments and
  order untouched). ``<proj>/.codex/config.toml`` is read only in a trusted project.
* **Hooks**: ``hooks.json`` next to the config layer, Claude's shape; the ``hooks`` feature is
  stable and on by default in 0.171 (``codex_hooks`` is only a legacy alias), so no feature flag
  is written. Hook stdin is Claude's (``tool_name``, ``tool_input``, ``cwd``, ...); the shell tool
  is named ``Bash`` and file edits ``apply_patch`` (``Write``/``Edit`` are matcher aliases;
  ``tool_input`` is ``{"command": <patch>}``); there is no Read or Grep tool (reads go through
  the shell). Exit 2 + stderr blocks, ``hookSpecificOutput.additionalContext`` advises. Codex
  runs a hook only after the user has reviewed and trusted it (``/hooks``; the TUI asks at
  start): msd-install never writes that trust, it says so in the report. No project-dir variable
  is set for hooks, so commands name their scripts by absolute path.
* **Roots**: ``CODEX_HOME``, when set, must exist (codex itself refuses to start otherwise):
  msd-install refuses too, with one line, rather than create a directory a typo may have named.

How it was verified (tests/e2e/test_codex_cli.py): ``codex mcp list --json``; ``codex debug
prompt-input`` (skills list, ``spawn_agent`` roles); ``codex app-server`` ``skills/list`` and
``hooks/list`` (per-file errors, warnings, trust status) and ``mcpServerStatus/list`` on a
thread in the project (Codex starts our server and lists its tools); ``codex exec`` against a
loopback Responses stub with ``--dangerously-bypass-hook-trust`` (hooks really run: a shell read
of ``.env`` is blocked, ``apply_patch`` edits reach the prompt guard and phase boundary).

Open points: Codex keys a hook's trust by its position in ``hooks.json``, so a hook the user
adds after ours must be trusted again once ours are removed; a skill installed in both scopes
is listed twice (user and project copies; the local report says so); Claude model tiers are not
mapped to OpenAI models or reasoning efforts (agents use the session's model).
"""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import UsageError
from ..installer.context import Context
from ..installer.plan import ConfigEntry, FileOp, Plan
from ..payload import Agent, Command, Payload
from . import tomltext
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
    hook_script_ref,
    mcp_member,
    settings_hooks,
    stdio_server,
)

MCP_LAUNCHER = "bin/msd-mcp"
ENV = "CODEX_HOME"


def global_root(ctx: Context) -> Path:
    return ctx.env_path(ENV) or ctx.home / ".codex"


def local_root(ctx: Context) -> Path:
    return ctx.cwd / ".codex"


def detect(ctx: Context) -> Detection:
    return detect_by(ctx, (global_root(ctx), local_root(ctx)), ("codex",))


def _task_name(spawn: Spawn) -> str:
    """A ``task_name`` (lowercase letters, digits, underscores) that keeps the payload's
    ``<placeholders>`` for the model to fill in: "Plan phase <N>" -> ``plan_phase_<n>``."""
    words = re.findall(r"<[^<>\n]+>|[A-Za-z0-9]+", spawn.description or spawn.agent)
    name = "_".join(word.lower() for word in words)
    return name or spawn.agent.replace("-", "_")


def spawn(call: Spawn) -> str:
    """A workflow's ``Task(...)`` as Codex's ``spawn_agent`` call, then the wait for its answer.

    Codex offers one of two tool sets by model: v2 (``task_name`` required, ``fork_turns``
    defaulting to the whole history, ``wait_agent(timeout_ms)``) or v1 (``fork_context``
    defaulting to a fresh start, ``wait_agent(targets)``). The call is written for v2 with a
    note that maps it onto v1; the Claude model tier is not passed (see the notes).
    """
    return (
        f'spawn_agent(\n  agent_type="{call.agent}",\n  task_name="{_task_name(call)}",\n'
        f'  fork_turns="none",\n  message="{call.prompt}"\n)\n'
        '# task_name and fork_turns="none" (a fresh context) only where spawn_agent has them.\n'
        "# Once this step's agents are spawned, wait_agent (targets: their ids, where it asks)\n"
        f"# until {call.agent}'s final answer has arrived: that answer is its result."
    )


def _file_ref(path: str) -> str:
    bare = path.rstrip(".:")
    return f"`{bare}`{path[len(bare) :]}"


DIALECT = Dialect(
    "Codex",
    tools={
        "Read": "exec_command",
        "Write": "apply_patch",
        "Edit": "apply_patch",
        "MultiEdit": "apply_patch",
        "Bash": "exec_command",
        "Glob": "exec_command",
        "Grep": "exec_command",
        "Task": "spawn_agent",
        "WebSearch": "web_search",
        "WebFetch": None,
        "TodoWrite": None,
        "AskUserQuestion": "request_user_input",
        "NotebookEdit": None,
        "Skill": None,
    },
    models={},  # Claude tiers name no Codex model: every agent uses the session's model
    args="ARGUMENTS",
    spawn=spawn,
    invoke=lambda name: f"${name}",
    file_ref=_file_ref,
    context_file="AGENTS.md",
    project_dir="the project directory",
    words=(
        ("<execution_context>\n", "<execution_context>\nRead these files first:\n"),
        (
            " (Skill tool, or\nthe slash command of the same name where skills are commands)",
            "",
        ),
        (
            "invoke that skill with the user's arguments",
            "use that skill (open its SKILL.md from your skills list) with the user's arguments",
        ),
    ),
    flag="codex",
)

# Claude's names: every event of Codex's hooks schema (schemas/codex-hooks.json)
EVENTS = (
    "SessionStart", "PreToolUse", "PermissionRequest", "PostToolUse", "PreCompact", "PostCompact",
    "UserPromptSubmit", "SubagentStart", "SubagentStop", "Stop",
)  # fmt: skip
HOOKS = HookDialect(
    "Codex",
    events={e: e for e in EVENTS},
    # Codex's hook tool names; Read and Grep have none (reads go through the shell)
    tools={e: "apply_patch" for e in ("Write", "Edit", "MultiEdit")} | {"Bash": "Bash"},
)
# registered for Claude, pointless in Codex (the reason goes into the install report)
SKIPPED_HOOKS = {
    "msd-read-guard": "Codex's apply_patch always quotes the lines it changes, and reads go "
    "through the shell, which the guard cannot see",
}


def _names(payload: Payload) -> list[str]:
    return [c.name for c in payload.commands] + [s.name for s in payload.skills]


def _command_skill(command: Command, ref: str, names: list[str]) -> tuple[str, list[str]]:
    where = f"skills/{command.name}/SKILL.md"
    body = command.doc.body.replace(
        "\n$ARGUMENTS\n",
        f"\nARGUMENTS = the text the user wrote after `${command.name}` in their message "
        "(empty when nothing follows it).\n",
    )
    description = command.description
    hint = command.doc.get("argument-hint")
    if isinstance(hint, str) and hint.strip():
        description = f"{description} (arguments: {hint.strip()})"
    notes = []
    if tools_of(command.doc, "allowed-tools"):
        notes.append(f"{where}: Codex skills have no tool list: allowed-tools not carried over")
    meta = {"name": command.name, "description": description}
    return document(meta, convert_text(body, DIALECT, ref, names)), notes


def _agent_toml(agent: Agent, ref: str, names: list[str]) -> tuple[str, list[str]]:
    where = f"agents/{agent.name}.toml"
    _tools, notes = convert_tools(agent.tools, DIALECT, where)
    notes.append(f"{where}: Codex agent files have no tool list: agents get the session's tools")
    _model, more = convert_model(agent.doc.get("model"), DIALECT, where)
    notes += more
    if agent.doc.get("color"):
        notes.append(f"{where}: Codex agents have no colour: color dropped")
    body = convert_text(agent.doc.body, DIALECT, ref, names).lstrip("\n")
    text = tomltext.document(
        {"name": agent.name, "description": agent.description, "developer_instructions": body}
    )
    return text, notes


def _hooks(ctx: Context, root: Path, payload: Payload) -> tuple[list[ConfigEntry], list[str]]:
    notes = [f"hooks: {name} not used: {why}" for name, why in SKIPPED_HOOKS.items()]
    hooks = tuple(h for h in payload.hooks if h.name not in SKIPPED_HOOKS)
    entries, more = settings_hooks(
        ctx,
        root,
        root / "hooks.json",
        hooks,
        HOOKS,
        script_ref=lambda script: hook_script_ref(ctx, root, script),
        schema="codex-hooks",
    )
    return entries, notes + more


def _hook_files(
    root: Path, payload: Payload, entries: list[ConfigEntry], names: list[str]
) -> list[FileOp]:
    """The scripts of registered hooks and their helpers (never a script nothing runs); the
    commands their messages suggest are named the Codex way (``$msd-progress``)."""
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
        root / "config.toml",
        server,
        launcher_ref(ctx, launcher),
        launcher,
        fmt="toml",
        path=("mcp_servers",),
        force=ctx.force,
    )


def _check_home(ctx: Context) -> None:
    home = ctx.env_path(ENV)
    if ctx.is_local or ctx.config_dir is not None or home is None or home.is_dir():
        return
    raise UsageError(
        f"{ENV} is set to {home}, which does not exist (codex itself refuses to start then)",
        hint=f"create that directory or unset {ENV}",
    )


def _trust_notes(ctx: Context, root: Path, hooks: int) -> list[str]:
    notes = [
        f"hooks: Codex runs the {hooks} msd hooks only after you review and trust them: it asks "
        "when it starts (or use /hooks); msd-install does not trust them for you"
    ]
    if ctx.is_local:
        notes.append(
            f"Codex reads {root.name}/config.toml (the msd MCP server), hooks.json and agents/ "
            f"only in a trusted project: trust {ctx.cwd} when Codex asks; msd-install does not "
            "write that trust entry (skills work either way)"
        )
        notes.append(
            "Codex lists a skill of the user's and the project's with the same name twice: with "
            "msd also installed globally for Codex, each msd skill shows up twice"
        )
    return notes


def plan(ctx: Context, payload: Payload) -> Plan:
    _check_home(ctx)
    root = ADAPTER.root(ctx)
    ref = root_ref(ctx, root)
    names = _names(payload)
    notes: list[str] = []
    files: list[FileOp] = []
    for command in payload.commands:
        text, more = _command_skill(command, ref, names)
        files.append(FileOp(root / "skills" / command.name / "SKILL.md", text.encode()))
        notes += more
    for skill in payload.skills:
        meta = {"name": skill.name, "description": skill.description}
        text = document(meta, convert_text(skill.doc.body, DIALECT, ref, names))
        files.append(FileOp(root / "skills" / skill.name / "SKILL.md", text.encode()))
    for agent in payload.agents:
        text, more = _agent_toml(agent, ref, names)
        files.append(FileOp(root / "agents" / f"{agent.name}.toml", text.encode()))
        notes += more
    entries, more = _hooks(ctx, root, payload)
    hooks = len(entries)
    notes += more
    files += _hook_files(root, payload, entries, names)
    files += core_files(root, payload, ref, lambda text: convert_text(text, DIALECT, ref, names))
    if has_core_file(payload, MCP_LAUNCHER):
        entries.append(_mcp_entry(ctx, root))
    cache = root / CORE_DIR / "cache"
    return Plan(
        "codex",
        ctx.scope,
        root,
        tuple(files),
        tuple(entries),
        dirs=(cache,),
        state_files=(cache / "msd-update-check.json",),
        notes=summarize(notes) + tuple(_trust_notes(ctx, root, hooks)),
    )


ADAPTER = Adapter(
    "codex",
    "OpenAI Codex CLI",
    global_root,
    local_root,
    detect,
    plan,
    hooks="`hooks.json` beside `config.toml` (Claude's shape, Codex tool names); "
    "Codex runs them once the user has trusted them",
    env_override=ENV,
    invoke=DIALECT.invoke,
    sources="verified with the real `codex` 0.171.0 (mcp list --json, debug prompt-input, "
    "app-server skills/list, hooks/list and mcpServerStatus/list, exec against a loopback "
    "Responses stub) and openai/codex's source; open: hook trust is keyed by position in "
    "hooks.json, a skill installed in both scopes is listed twice, Claude model tiers are not "
    "mapped",
    hook_events=HOOKS.events,
)
