"""Claude Code: ``~/.claude`` (or ``$CLAUDE_CONFIG_DIR``), local ``./.claude``.

Commands are installed as **skills** (``skills/msd-<name>/SKILL.md``), in both scopes. Why:
Claude Code has merged custom commands into skills (a skill wins on a name clash); a skill is
still typed as ``/msd-<name>`` and, unlike a command, is also offered to the model, which the
two-stage router skills rely on. Its id is the folder name, so names cannot collide with the
user's ``commands/*.md``. (Verified with the real CLI: ``~/.claude/skills/<n>/SKILL.md`` and
``<proj>/.claude/skills/<n>/SKILL.md`` are both read; see shared/design/real-clients.md.)

Agents go to ``agents/msd-<name>.md``; hook scripts to ``hooks/msd-<name>.py``, registered in
``settings.json`` with the resolved interpreter and ``-I -S``: an absolute quoted path for
global installs, ``"$CLAUDE_PROJECT_DIR"/.claude/hooks/...`` for local ones (the variable
exists only in Claude Code). Engine files live under ``msd-core/``. The MCP server is
registered in ``~/.claude.json`` (user scope; ``$CLAUDE_CONFIG_DIR/.claude.json`` when that is
set) or the project's ``.mcp.json``.
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
    core_files,
    has_core_file,
    python_command,
    quoted,
    rewrite,
    root_ref,
)

SCHEMA = "claude-code-settings"
MCP_LAUNCHER = "bin/msd-mcp"


def global_root(ctx: Context) -> Path:
    return ctx.env_path("CLAUDE_CONFIG_DIR") or ctx.home / ".claude"


def local_root(ctx: Context) -> Path:
    return ctx.cwd / ".claude"


def detect(ctx: Context) -> bool:
    return global_root(ctx).is_dir() or local_root(ctx).is_dir()


def _hook_script(ctx: Context, root: Path, script: str) -> str:
    if ctx.is_local:
        return f'"$CLAUDE_PROJECT_DIR"/.claude/hooks/{script}'
    return quoted(root / "hooks" / script)


def _hook_entry(ctx: Context, root: Path, hook: HookSpec, settings: Path) -> ConfigEntry:
    script = root / "hooks" / hook.script
    command: dict[str, Any] = {
        "type": "command",
        "command": python_command(ctx, _hook_script(ctx, root, hook.script)),
    }
    if hook.event == "statusLine":
        return ConfigEntry(
            settings,
            "json",
            MEMBER,
            (),
            command,
            key="statusLine",
            policy=IF_ABSENT,
            force=ctx.force_statusline,
            schema=SCHEMA,
            label=f"statusLine {hook.name}",
            requires=(script,),
            marker=command["command"],
        )
    if hook.timeout:
        command["timeout"] = hook.timeout
    group: dict[str, Any] = {}
    if hook.matcher:
        group["matcher"] = hook.matcher
    group["hooks"] = [command]
    assert hook.event is not None
    return ConfigEntry(
        settings,
        "json",
        ITEM,
        ("hooks", hook.event),
        group,
        schema=SCHEMA,
        label=f"hook {hook.name}",
        requires=(script,),
        marker=command["command"],
    )


def _mcp_entry(ctx: Context, root: Path) -> ConfigEntry:
    server: dict[str, Any] = {
        "type": "stdio",
        "command": str(ctx.interpreter),
        "args": ["-I", "-S", str(root / CORE_DIR / MCP_LAUNCHER)],
        "env": {"MSD_AUDIT_LOG": str(ctx.audit_log())},
    }
    if ctx.is_local:
        file = ctx.cwd / ".mcp.json"
    elif ctx.config_dir is not None or ctx.env_path("CLAUDE_CONFIG_DIR") is not None:
        file = root / ".claude.json"
    else:
        file = ctx.home / ".claude.json"
    return ConfigEntry(
        file,
        "json",
        MEMBER,
        ("mcpServers",),
        server,
        key="msd",
        force=ctx.force,
        label="MCP server msd",
        requires=(root / CORE_DIR / MCP_LAUNCHER,),
        marker=str(root / CORE_DIR / MCP_LAUNCHER),
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
    settings = root / "settings.json"
    entries = [_hook_entry(ctx, root, h, settings) for h in payload.hooks if h.event]
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
    )


ADAPTER = Adapter("claude", "Claude Code", global_root, local_root, detect, plan)
