"""Augment Code's CLI, Auggie: ``~/.augment``, local ``<project>/.augment``.

Verified against ``@augmentcode/auggie`` 0.36.0: its bundled ``augment.mjs`` read for each rule,
and the real CLI run offline against throw-away homes (tests/e2e/test_augment_cli.py). Where
Auggie only shows something to a signed-in session, a loopback stub of Augment's API stands in
(``AUGMENT_SESSION_AUTH`` naming ``http://127.0.0.1:<port>/``; nothing leaves the machine): its
``get-models`` answer switches on the account flags for subagents and hooks, and the first
``chat-stream`` request shows what the session loaded (skills, ``sub-agent-*`` tools, MCP
tools, rules).

- **Roots.** Auggie resolves its home as ``$HOME`` (else ``%USERPROFILE%``, else the OS home)
  plus ``.augment`` for commands, skills, agents and rules; there is no environment override.
  ``--augment-cache-dir DIR`` relocates only settings.json and session data, per invocation.
  The workspace root is the git root of the current directory (else the directory itself);
  ``<workspace>/.augment`` is the local root.
- **Commands are skills** (``skills/msd-<name>/SKILL.md``): Auggie lists every skill as a
  command (``auggie command list``, ``/msd-<name>`` in the TUI) and offers it to the model
  (the ``skills`` of each request), so a command file would show the name twice. A skill
  needs ``name`` (lowercase, hyphens, <= 64) and ``description`` (1-1024 characters) or it is
  left out silently; its id is the folder name. When run with arguments, ``$ARGUMENTS``
  (also ``$1``..., ``{{x}}`` and ``{word}``) in the body is replaced by them; with none it is
  left as written (open: Claude Code would leave it empty). ``@path`` is not expanded, so file
  references become "read this file". ``argument-hint`` and ``allowed-tools`` have no
  equivalent in a skill and are dropped (noted).
- **Agents** (``agents/msd-<name>.md``): frontmatter ``name``, ``description``, ``color``
  (``red|blue|green|yellow|orange|purple|pink|cyan``), ``model`` (resolved against the
  account's model registry; anything else is ignored, so Claude tiers are dropped and the
  agent uses the session's model), and ``tools`` (allowlist) or ``disabled_tools``
  (denylist). Auggie's tool names change with the model and the account (``view``,
  ``str-replace-editor``, ``save-file``, ``launch-process``... or the compact ``read``,
  ``edit``, ``write``, ``bash``...), so an allowlist could leave an agent with no tools: the
  Claude allowlist becomes ``disabled_tools`` naming both sets for what the agent must not
  do. An agent is started through its own tool ``sub-agent-<name>`` with ``action="run"``,
  ``name`` (unique in the session, no spaces) and ``instruction``; the model is the agent
  file's, never per call. Subagents exist only where Augment enabled them for the account.
- **Shared folders.** Auggie also reads ``~/.claude/{commands,skills,agents}``,
  ``~/.agents/...`` and the same under the workspace, in the order ``~/.augment``,
  ``<ws>/.augment``, ``~/.claude``, ``<ws>/.claude``, ``~/.agents``, ``<ws>/.agents``, and keeps
  the first item of each name (skills by ``name``, agents by file name, commands before
  skills). With Claude Code installed too, every msd item is listed once, from ``.augment``.
- **settings.json** (JSONC: comments and trailing commas accepted), user ``~/.augment`` and
  project ``<ws>/.augment/settings.json`` (both read; ``mcpServers`` merged by name).
  ``mcpServers.msd`` = ``{"type": "stdio", command, args, env}``; Auggie joins command and
  args with spaces and runs them with ``/bin/sh -c``, so they are shell-quoted where needed
  (a space in a path broke the server otherwise). ``hooks`` are Claude-shaped
  with events ``PreToolUse``, ``PostToolUse``, ``SessionStart`` (no status line), matchers are
  *unanchored* regexes over Auggie's tool names (anchored here), ``timeout`` is in
  **milliseconds**, the command runs without a shell when it has no shell characters (else
  ``bash -c``), from the workspace root with ``AUGMENT_PROJECT_DIR`` set. A PreToolUse exit 2
  blocks the call and its reason reaches the agent; ``additionalContext`` reaches the agent
  only after a call (PostToolUse, appended to the tool result), a ``systemMessage`` only the
  user. So the blocking guards run on PreToolUse, the prompt guard after the write, and the
  hooks that advise the agent before a call or at session start are left out (noted). Hooks
  run only where Augment enabled them for the account.
- **Context files.** Auggie reads both ``AGENTS.md`` and ``CLAUDE.md`` at the workspace root as
  rules (both in the ``rules`` of a request), so the payload's "``./CLAUDE.md`` or
  ``AGENTS.md``" stays true (``claude_compat``).
- **``--config-dir``** becomes the root, but Auggie reads skills and agents only under
  ``~/.augment`` and the workspace: the report says to run ``auggie --augment-cache-dir DIR``,
  which reads that settings.json (MCP server, hooks).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..installer.context import Context
from ..installer.plan import ConfigEntry, FileOp, Plan
from ..payload import Agent, Payload
from ._base import (
    CORE_DIR,
    Adapter,
    Detection,
    core_files,
    detect_by,
    has_core_file,
    interpreter,
    launcher_ref,
    root_ref,
)
from .convert import Dialect, Spawn, convert_model, convert_text, summarize
from .markdown import document, tools_of
from .shapes import HookDialect, env_member, hook_script_ref, mcp_member, settings_hooks, skill_op

MCP_LAUNCHER = "bin/msd-mcp"
COLORS = ("red", "blue", "green", "yellow", "orange", "purple", "pink", "cyan")
# every Auggie tool that does what a Claude tool does (default set, then the compact set); the
# rest (task list, codebase retrieval, sub-agents) is Auggie's own and left to every agent
FILE_WRITE = ("save-file", "str-replace-editor", "apply_patch", "remove-files", "write", "edit")
TOOLS: dict[str, tuple[str, ...]] = {
    "Read": ("view", "read", "ls"),
    "Write": FILE_WRITE,
    "Edit": FILE_WRITE,
    "MultiEdit": FILE_WRITE,
    "Bash": (
        "launch-process",
        "read-process",
        "write-process",
        "kill-process",
        "list-processes",
        "bash",
    ),
    "Grep": ("grep-search", "grep"),
    "Glob": ("find",),
    "WebFetch": ("web-fetch",),
    "WebSearch": ("web-search",),
}
# Auggie 0.36.0 hands a hook's additionalContext to the agent only on PostToolUse (appended to
# the tool result); on PreToolUse and SessionStart it shows the user a systemMessage and drops
# the rest (seen with the real CLI). A PreToolUse block (exit 2) does reach the agent.
PRE_ADVICE = "Auggie shows a PreToolUse hook's advice to the user only, never to the agent"
UNUSED_HOOKS = {
    "msd-context-monitor": "it reads the context bridge a status line writes, and Auggie has none",
    "msd-session-state": "Auggie shows a SessionStart hook's output to the user only, never to "
    "the agent",
    "msd-read-guard": PRE_ADVICE,
    "msd-workflow-guard": PRE_ADVICE,
}
# advice that still makes sense once the tool has run: the agent gets it with the tool result
AFTER_THE_CALL = {"msd-prompt-guard": "PostToolUse"}


def global_root(ctx: Context) -> Path:
    return ctx.home / ".augment"


def local_root(ctx: Context) -> Path:
    return ctx.cwd / ".augment"


def detect(ctx: Context) -> Detection:
    return detect_by(ctx, (global_root(ctx), local_root(ctx)), ("auggie",))


def _spawn(spawn: Spawn) -> str:
    """``sub-agent-<agent>(action, name, instruction)``; the instance name comes from the
    description ("Plan phase <N>" -> "plan-phase-<N>"): unique per call, no spaces."""
    words = re.split(r"(<[^>]*>)", spawn.description or spawn.agent)
    name = "".join(w if w.startswith("<") else w.lower() for w in words)
    name = re.sub(r"[^a-z0-9<>_A-Z]+", "-", name).strip("-")
    return (
        f'sub-agent-{spawn.agent}(\n  action="run",\n  name="{name}",\n'
        f'  instruction="{spawn.prompt}"\n)'
    )


def dialect(ref: str) -> Dialect:
    return Dialect(
        "Augment Code",
        tools={name: names[0] if names else None for name, names in TOOLS.items()},
        spawn=_spawn,
        file_ref=lambda path: f"`{path}` (read this file)",
        context_file="CLAUDE.md",
        project_dir="the workspace root",
        flag="augment",
        words=(
            (
                "(Skill tool, or\nthe slash command of the same name where skills are commands)",
                f"(read its\n`{ref}skills/<name>/SKILL.md`, listed among your skills, and follow "
                "it)",
            ),
            ("with the Edit tool", "with the `str-replace-editor` tool"),
            ("with the Write tool", "with the `save-file` tool"),
            ("the Write/Edit tools", "the `save-file`/`str-replace-editor` tools"),
            ("four Task calls", "four sub-agent calls"),
            ("Glob/Grep", "`grep-search`/`view`"),
            ("(WebFetch on", "(`web-fetch` on"),
        ),
    )


DIALECT = dialect("~/.augment/")  # for the notes of convert_model (no root in them)

HOOKS = HookDialect(
    "Augment Code",
    # the events Augment's hooks page names (runtime-contracts.md; it lists more with "...")
    events={e: e for e in ("PreToolUse", "PostToolUse", "Stop", "SessionStart", "SessionEnd")},
    tools={
        "Read": "view|read",
        "Write": "save-file|write",
        "Edit": "str-replace-editor|edit",
        "Bash": "launch-process|bash",
        "Grep": "grep-search|grep",
    },
    timeout_scale=1000,
    dialect="augment",
    anchored=True,
)


def _agent(root: Path, agent: Agent, text: Callable[[str], str], notes: list[str]) -> FileOp:
    """The agent in Auggie's frontmatter; its Claude allowlist becomes ``disabled_tools``."""
    where = f"agents/{agent.name}.md"
    meta: dict[str, Any] = {"name": agent.name, "description": agent.description}
    color = agent.doc.get("color")
    if color in COLORS:
        meta["color"] = color
    elif color is not None:
        notes.append(f"{where}: colour {color!r} is not one of Auggie's: dropped")
    model, more = convert_model(agent.doc.get("model"), DIALECT, where)
    notes += more
    if model:
        meta["model"] = model
    granted = tools_of(agent.doc)
    for tool in granted:
        if tool not in TOOLS:
            notes.append(f"{where}: tool {tool!r} is not in the Augment Code table: dropped")
    allowed = {n for t in granted for n in TOOLS.get(t, ())}
    denied = [n for t, ns in TOOLS.items() if t not in granted for n in ns if n not in allowed]
    if denied:
        meta["disabled_tools"] = list(dict.fromkeys(denied))
    body = document(meta, text(agent.doc.body))
    return FileOp(root / "agents" / f"{agent.name}.md", body.encode())


def _mcp_entry(ctx: Context, settings: Path, root: Path) -> ConfigEntry:
    """``mcpServers.msd``. Auggie's settings loader joins ``command`` and ``args`` with spaces
    and runs the line with ``/bin/sh -c``, so each word is shell-quoted where it needs it (a
    space in the home directory); ordinary paths stay as they are."""
    path = root / CORE_DIR / MCP_LAUNCHER
    launcher = shlex.quote(launcher_ref(ctx, path))
    server: dict[str, Any] = {
        "type": "stdio",
        "command": shlex.quote(interpreter(ctx)),
        "args": ["-I", "-S", launcher],
        **env_member(ctx),
    }
    return mcp_member(settings, server, launcher, path, fmt="jsonc", force=ctx.force)


def plan(ctx: Context, payload: Payload) -> Plan:
    root = ADAPTER.root(ctx)
    ref = root_ref(ctx, root)
    talk = dialect(ref)
    names = [c.name for c in payload.commands] + [s.name for s in payload.skills]

    def text(raw: str) -> str:
        return convert_text(raw, talk, ref, names)

    notes: list[str] = []
    files: list[FileOp] = []
    for command in payload.commands:
        meta = {"name": command.name, "description": command.description}
        body = document(meta, text(command.doc.body))
        files.append(skill_op(root, "skills", command.name, body))
        for field in ("argument-hint", "allowed-tools"):
            if command.doc.get(field) is not None:
                notes.append(f"skills/{command.name}: an Auggie skill has no {field}: dropped")
    for skill in payload.skills:
        meta = {"name": skill.name, "description": skill.description}
        files.append(skill_op(root, "skills", skill.name, document(meta, text(skill.doc.body))))
    for agent in payload.agents:
        files.append(_agent(root, agent, text, notes))
    for hook in payload.hooks:
        files.append(FileOp(root / "hooks" / hook.script, hook.content, 0o755))
    files += core_files(root, payload, ref, text)
    settings = root / "settings.json"
    hooks = tuple(
        replace(h, event=AFTER_THE_CALL.get(h.name, h.event))
        for h in payload.hooks
        if h.name not in UNUSED_HOOKS
    )
    entries, hook_notes = settings_hooks(
        ctx,
        root,
        settings,
        hooks,
        HOOKS,
        script_ref=lambda script: hook_script_ref(ctx, root, script, "AUGMENT_PROJECT_DIR"),
        fmt="jsonc",
    )
    notes += hook_notes
    notes += [f"hooks: {name} not registered: {why}" for name, why in UNUSED_HOOKS.items()]
    notes += [
        f"hooks: {name} runs on {event} ({PRE_ADVICE}), so the agent gets its advice with the "
        "tool result"
        for name, event in AFTER_THE_CALL.items()
    ]
    if has_core_file(payload, MCP_LAUNCHER):
        entries.append(_mcp_entry(ctx, settings, root))
    notes += _notices(ctx)
    cache = root / CORE_DIR / "cache"
    return Plan(
        "augment",
        ctx.scope,
        root,
        tuple(files),
        tuple(entries),
        dirs=(cache,),
        state_files=(cache / "msd-update-check.json",),
        notes=summarize(notes, limit=16),
    )


def _notices(ctx: Context) -> list[str]:
    out = [
        "workflows: Auggie starts an agent through its sub-agent-<name> tool with the model of "
        "the agent file; the workflows' per-call model choice is not passed",
        "account: Auggie offers custom subagents and runs settings hooks only where Augment has "
        "enabled them for your account",
    ]
    if ctx.config_dir is not None and not ctx.is_local:
        out.append(
            f"--config-dir: Auggie reads skills and agents only from ~/.augment and the "
            f"workspace's .augment; run `auggie --augment-cache-dir {ctx.config_dir}` to use "
            "this settings.json (MCP server, hooks)"
        )
    return out


ADAPTER = Adapter(
    "augment",
    "Augment Code",
    global_root,
    local_root,
    detect,
    plan,
    hooks="`hooks` in `settings.json` (Claude-style events, Auggie tool names, timeouts in ms)",
    claude_compat=("CLAUDE.md",),
    hook_events=HOOKS.events,
)
