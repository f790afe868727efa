"""Hermes Agent (Nous Research): ``$HERMES_HOME`` or ``~/.hermes``; global scope only.

Verified with ``hermes-agent`` 0.19.0 from PyPI (its own code and CLI, see
shared/design/real-clients.md "Hermes Agent"):

- Everything lives under ``$HERMES_HOME`` (``hermes_constants.get_hermes_home``); Hermes reads
  no project directory except context files (``.hermes.md``/``HERMES.md``/``AGENTS.md``), so
  there is no ``--local`` install.
- Skills: ``skills/<category>/<name>/SKILL.md`` with ``name`` and ``description``; each skill
  is also the slash command ``/<name>``, and the text the user types after it is appended as
  "the instruction the user provided" (no placeholder is substituted). So the 22 commands and
  the 6 routers are all skills, in the category ``msd`` (``skills/msd/DESCRIPTION.md``).
- No agent files: subagents are started with the ``delegate_task`` tool (``goal``,
  ``context``). Our agents' instructions are installed as ``msd-core/agents/<name>.md`` and a
  workflow's spawn says "delegate_task ... read and follow msd-core/agents/<name>.md".
- ``config.yaml``: ``mcp_servers.msd`` (command, args, env) and shell hooks under ``hooks:``
  with snake_case events (``pre_tool_call``; Claude names are dropped silently), a regex
  ``matcher`` over Hermes tool names (``terminal``, ``read_file``, ``write_file``, ``patch``,
  ``search_files``) matched with ``fullmatch``, ``timeout`` in seconds, the command shlex-split
  without a shell. A hook blocks a tool call with ``{"decision": "block", "reason": ...}`` on
  stdout; it cannot add context to a tool call, so only the blocking guards are registered.
  Hermes runs a shell hook only after the user approved it (a prompt on first use,
  ``--accept-hooks``, ``HERMES_ACCEPT_HOOKS=1`` or ``hooks_auto_accept``): msd never approves
  for the user, and the install report says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..installer.context import GLOBAL, Context
from ..installer.plan import FileOp, Plan
from ..payload import Payload
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
from .convert import Dialect, Spawn, convert_text, summarize
from .markdown import document, meta_of
from .shapes import HookDialect, env_member, hook_script_ref, mcp_member, settings_hooks, skill_op

MCP_LAUNCHER = "bin/msd-mcp"
CATEGORY = "msd"
# hooks that only add context or messages: Hermes shell hooks cannot do that on these events
ADVISORY = {
    "msd-context-monitor",
    "msd-check-update",
    "msd-session-state",
    "msd-prompt-guard",
    "msd-workflow-guard",
    "msd-read-guard",
    "msd-read-injection-scanner",
    "msd-phase-boundary",
}


def global_root(ctx: Context) -> Path:
    return ctx.env_path("HERMES_HOME") or ctx.home / ".hermes"


def detect(ctx: Context) -> Detection:
    return detect_by(ctx, (global_root(ctx),), ("hermes",))


def _spawn(ref: str, folder: str) -> Any:
    def render(spawn: Spawn) -> str:
        goal = f"{spawn.description}: {spawn.prompt}" if spawn.description else spawn.prompt
        return (
            "delegate_task(\n"
            f'  goal="{goal}",\n'
            f'  context="You are {spawn.agent}. First read {ref}{folder}/agents/'
            f'{spawn.agent}.md and follow it exactly."\n)'
        )

    return render


def dialect(ref: str, folder: str = CORE_DIR) -> Dialect:
    return Dialect(
        "Hermes Agent",
        tools={
            "Read": "read_file",
            "Write": "write_file",
            "Edit": "patch",
            "MultiEdit": "patch",
            "Bash": "terminal",
            "Grep": "search_files",
            "Glob": "search_files",
            "Task": "delegate_task",
            "WebFetch": None,
            "WebSearch": None,
            "TodoWrite": None,
        },
        args="the instruction the user typed after the command",
        spawn=_spawn(ref, folder),
        invoke=lambda name: f"/{name}",
        file_ref=lambda path: f"`{path}` (read it)",
        context_file="AGENTS.md",
        flag="hermes",
    )


HOOKS = HookDialect(
    "Hermes Agent",
    events={"PreToolUse": "pre_tool_call"},
    tools={
        "Read": "read_file",
        "Write": "write_file",
        "Edit": "patch",
        "Bash": "terminal",
        "Grep": "search_files",
    },
    dialect="hermes",
    nested=False,
)


def plan(ctx: Context, payload: Payload) -> Plan:
    root = ADAPTER.root(ctx)
    ref = root_ref(ctx, root)
    talk = dialect(ref, payload.engine_dir)
    names = [c.name for c in payload.commands] + [s.name for s in payload.skills]

    def text(raw: str) -> str:
        return convert_text(raw, talk, ref, names)

    # a pack's skills are a category of their own, named for the pack
    category = payload.namespace or CATEGORY
    about = (
        f"Skills of the {payload.namespace} pack.\n"
        if payload.namespace
        else "MSD Core: spec-driven project workflow (plan, execute, verify phases).\n"
    )
    files: list[FileOp] = [FileOp(root / "skills" / category / "DESCRIPTION.md", about.encode())]
    skills = [(c.name, c.description, c.doc.body) for c in payload.commands]
    skills += [(s.name, s.description, s.doc.body) for s in payload.skills]
    for name, description, body in skills:
        meta = {"name": name, "description": description}
        files.append(skill_op(root, f"skills/{category}", name, document(meta, text(body))))
    notes: list[str] = []
    for agent in payload.agents:
        meta = meta_of(agent.doc)
        header = f"# {agent.name}\n\n{meta.get('description', '')}\n"
        files.append(
            FileOp(
                root / payload.engine_dir / "agents" / f"{agent.name}.md",
                (header + text(agent.doc.body)).encode(),
            )
        )
    files += core_files(root, payload, ref, text)
    hooks = tuple(h for h in payload.hooks if h.name not in ADVISORY or h.event is None)
    for hook in payload.hooks:
        files.append(FileOp(root / "hooks" / hook.script, hook.content, 0o755))
    config = root / "config.yaml"
    entries, hook_notes = settings_hooks(
        ctx,
        root,
        config,
        hooks,
        HOOKS,
        script_ref=lambda script: hook_script_ref(ctx, root, script),
        fmt="yaml",
    )
    notes += hook_notes
    unused = sorted(h.name for h in payload.hooks if h.name in ADVISORY and h.event)
    if unused:
        notes.append(
            "hooks: Hermes shell hooks cannot add context to the agent's turn, so these "
            "advisory hooks are not registered: " + ", ".join(unused)
        )
    if entries:
        notes.append(
            "hooks: Hermes runs a shell hook only after you approve it (it asks on first use; "
            "or `hermes hooks`/--accept-hooks); msd does not approve hooks for you"
        )
    if has_core_file(payload, MCP_LAUNCHER):
        launcher = root / CORE_DIR / MCP_LAUNCHER
        server = {
            "command": interpreter(ctx),
            "args": launcher_args(ctx, launcher),
            **env_member(ctx),
        }
        entries.append(
            mcp_member(
                config,
                server,
                launcher_ref(ctx, launcher),
                launcher,
                fmt="yaml",
                path=("mcp_servers",),
                force=ctx.force,
            )
        )
    cache = root / CORE_DIR / "cache"
    return Plan(
        "hermes",
        ctx.scope,
        root,
        tuple(files),
        tuple(entries),
        dirs=(cache,),
        state_files=(cache / "msd-update-check.json",),
        notes=summarize(notes),
    )


ADAPTER = Adapter(
    "hermes",
    "Hermes Agent",
    global_root,
    global_root,
    detect,
    plan,
    hooks="`hooks:` in `config.yaml` (snake_case events; blocking guards only; you approve them)",
    env_override="HERMES_HOME",
    scopes=(GLOBAL,),
    sources="verified with hermes-agent 0.19.0 (its code; `hermes skills list`, `hooks list`, "
    "`hooks test`, `mcp test`); no project scope exists in Hermes",
    hook_events=HOOKS.events,
)
