"""Claude Code: ``~/.claude`` (or ``$CLAUDE_CONFIG_DIR``), local ``./.claude``.

Commands are installed as **skills** (``skills/msd-<name>/SKILL.md``), in both scopes. Why:
Claude Code has merged custom commands into skills (a skill wins on a name clash); a skill is
still typed as ``/msd-<name>`` and, unlike a command, is also offered to the model, which the
two-stage router skills rely on. Its id is the folder name, so names cannot collide with the
user's ``commands/*.md``. (Verified with the real CLI: ``~/.claude/skills/<n>/SKILL.md`` and
``<proj>/.claude/skills/<n>/SKILL.md`` are both read; see shared/design/real-clients.md.)

Agents go to ``agents/msd-<name>.md``; hook scripts to ``hooks/msd-<name>.py``, registered in
``settings.json`` with ``-I -S``: the resolved interpreter and an absolute quoted path for
global installs, ``python3`` and ``"$CLAUDE_PROJECT_DIR"/.claude/hooks/...`` for local ones,
which are committed (docs/explanation/portable-installs.md). Engine files live under
``msd-core/``. The MCP server is registered in ``~/.claude.json`` (user scope;
``$CLAUDE_CONFIG_DIR/.claude.json`` when that is set) or the project's ``.mcp.json``.
"""

from __future__ import annotations

from pathlib import Path

from ..installer.context import Context
from ..installer.plan import ConfigEntry, FileOp, Plan
from ..payload import Payload
from ._base import (
    CORE_DIR,
    Adapter,
    Detection,
    core_files,
    detect_by,
    has_core_file,
    launcher_ref,
    rewrite,
    root_ref,
)
from .shapes import (
    HookDialect,
    hook_script_ref,
    hooks_off,
    mcp_member,
    settings_hooks,
    stdio_server,
)

SCHEMA = "claude-code-settings"
MCP_LAUNCHER = "bin/msd-mcp"


def global_root(ctx: Context) -> Path:
    return ctx.env_path("CLAUDE_CONFIG_DIR") or ctx.home / ".claude"


def local_root(ctx: Context) -> Path:
    return ctx.cwd / ".claude"


def detect(ctx: Context) -> Detection:
    return detect_by(ctx, (global_root(ctx), local_root(ctx)), ("claude",))


LABEL = "Claude Code"
# every hook event Claude Code has: the keys of ``hooks`` in its settings schema
# (schemas/claude-code-settings.json); msd's own hooks use three of them, a pack any
EVENTS = (
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "Notification",
    "UserPromptSubmit", "Stop", "StopFailure", "SubagentStart", "SubagentStop", "PreCompact",
    "PostCompact", "Elicitation", "ElicitationResult", "TeammateIdle", "TaskCompleted", "Setup",
    "InstructionsLoaded", "CwdChanged", "FileChanged", "ConfigChange", "WorktreeCreate",
    "WorktreeRemove", "SessionStart", "SessionEnd", "PostToolBatch", "TaskCreated",
    "PermissionDenied", "UserPromptExpansion", "MessageDisplay", "DirectoryAdded",
)  # fmt: skip
DIALECT = HookDialect(
    LABEL,
    events={e: e for e in EVENTS},
    event_matchers=frozenset(("SessionStart", "PreCompact")),
    status_line=True,
)


def _hooks(ctx: Context, root: Path, payload: Payload) -> list[ConfigEntry]:
    entries, _notes = settings_hooks(
        ctx,
        root,
        root / "settings.json",
        payload.hooks,
        DIALECT,
        script_ref=lambda script: hook_script_ref(ctx, root, script, "CLAUDE_PROJECT_DIR"),
        schema=SCHEMA,
    )
    return entries


def _mcp_file(ctx: Context, root: Path) -> Path:
    if ctx.is_local:
        return ctx.cwd / ".mcp.json"
    if ctx.config_dir is not None or ctx.env_path("CLAUDE_CONFIG_DIR") is not None:
        return root / ".claude.json"
    return ctx.home / ".claude.json"


def _mcp_entry(ctx: Context, root: Path) -> ConfigEntry:
    launcher = root / CORE_DIR / MCP_LAUNCHER
    server = {"type": "stdio", **stdio_server(ctx, launcher)}
    return mcp_member(
        _mcp_file(ctx, root), server, launcher_ref(ctx, launcher), launcher, force=ctx.force
    )


def plan(ctx: Context, payload: Payload) -> Plan:
    root = ADAPTER.root(ctx)
    ref = root_ref(ctx, root)
    files: list[FileOp] = []
    for command in payload.commands:
        files.append(
            FileOp(
                root / "skills" / command.name / "SKILL.md", rewrite(command.doc.raw, ref).encode()
            )
        )
    for skill in payload.skills:
        files.append(
            FileOp(root / "skills" / skill.name / "SKILL.md", rewrite(skill.doc.raw, ref).encode())
        )
    for agent in payload.agents:
        files.append(
            FileOp(root / "agents" / f"{agent.name}.md", rewrite(agent.doc.raw, ref).encode())
        )
    for hook in payload.hooks:
        files.append(FileOp(root / "hooks" / hook.script, hook.content, 0o755))
    files += core_files(root, payload, ref)
    entries = _hooks(ctx, root, payload)
    if has_core_file(payload, MCP_LAUNCHER):
        entries.append(_mcp_entry(ctx, root))
    cache = root / CORE_DIR / "cache"
    return Plan(
        "claude",
        ctx.scope,
        root,
        tuple(files),
        tuple(entries),
        dirs=(cache,),
        state_files=(cache / "msd-update-check.json",),
        config_names=(root / "settings.json", _mcp_file(ctx, root)),
        watches=hooks_off(LABEL, root / "settings.json", ("disableAllHooks",), True, entries),
    )


ADAPTER = Adapter(
    "claude",
    LABEL,
    global_root,
    local_root,
    detect,
    plan,
    hooks="`hooks` in `settings.json` (Claude dialect), `statusLine`",
    hook_events=DIALECT.events,
    env_override="CLAUDE_CONFIG_DIR",
    sources="verified with the real `claude` 2.1.332 (doctor, mcp list, the stream-json init "
    "line through a loopback model stub)",
)
