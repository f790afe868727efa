"""Trae (ByteDance's IDE): ``~/.trae``, local ``<project>/.trae``.

No offline CLI exists (shared/design/real-clients.md "No offline CLI"): every fact comes from
documentation; sources and confidence per fact (also in ``ADAPTER.sources``):

- **Skills only**: Trae has no command files, so the 22 commands and the 6 routers are skills
  ``skills/msd-<name>/SKILL.md`` (``name``, ``description``; docs.trae.ai skills via the
  w3cschool mirror, juejin 7619769543519780890; high for projects, medium for ``~/.trae/skills``:
  older docs say skills work per project and in SOLO mode only).
- **Rule** (local only): ``.trae/rules/msd-core.md`` with ``description``/``globs``/
  ``alwaysApply`` frontmatter; our own file, so the user's ``project_rules.md`` is never
  touched (Trae reads every ``.trae/rules/*.md``; older builds only ``project_rules.md``, then
  ours is simply unused). User rules live in Trae's settings, not in files: none globally.
  Sources: Trae docs summarised at illegalcreed.github.io (2026), agentconfig trae-rules,
  trae-rules-mcp; medium-high.
- **No agent files** we could verify (custom agents are made in Trae's UI): the instructions
  are ``msd-core/agents/<name>.md`` and a workflow's spawn says "do this step as <agent>".
- **No hooks**: Trae runs no user command hooks (TRAE Enterprise has HTTP hooks set by an
  administrator: docs.trae.cn enterprise_automate-actions-with-hooks); none are installed.
- **MCP** ``mcpServers.msd`` ``{command, args, env}``, strict JSON: locally ``.trae/mcp.json``
  (read only after "Enable Project MCP" in Settings > MCP), globally Trae's user file
  ``<app data>/Trae/User/mcp.json`` (macOS ``~/Library/Application Support``, Windows
  ``%APPDATA%``, Linux ``~/.config``; several installers agree: memorix, brokre,
  superpowers-mcp; medium-high). Trae hands MCP tools to an agent only when the server is added
  to that agent, and its stdio ``command`` may not contain spaces; the report says both.

Open: Trae CN (``~/.trae-cn``, ``Trae CN/User/mcp.json``) is not targeted; global skills.
"""

from __future__ import annotations

from pathlib import Path

from ..installer.context import Context
from ..installer.plan import FileOp, Plan
from ..payload import Payload
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
from .convert import Dialect, convert_text, instructions_spawn, summarize
from .markdown import document
from .shapes import core_agents, mcp_member, skill_op, stdio_server

MCP_LAUNCHER = "bin/msd-mcp"
LABEL = "Trae"
# written by hand: the glob stays unquoted, as Trae's and Cursor's rule parsers expect it
RULE = """\
---
description: "How MSD Core keeps this project's planning state in .planning/"
globs: .planning/**
alwaysApply: false
---

# MSD Core

This project is planned and built with MSD Core. Its state lives in `.planning/`
(`PROJECT.md`, `ROADMAP.md`, `STATE.md`, one folder per phase); the msd skills (`msd-progress`,
`msd-plan-phase`, `msd-execute-phase`, ...) and `{ref}msd-core/workflows/` say how each step is
done.

- Use the `msd-progress` skill to see where the project stands before working on it.
- Change `.planning/` files through the msd workflows, which keep `STATE.md` and the roadmap
  consistent; do not rewrite them by hand.
"""


def global_root(ctx: Context) -> Path:
    return ctx.home / ".trae"


def local_root(ctx: Context) -> Path:
    return ctx.cwd / ".trae"


def detect(ctx: Context) -> Detection:
    return detect_by(ctx, (global_root(ctx), app_dir(ctx)), ("trae",))


def app_dir(ctx: Context) -> Path:
    """Trae's application data (``User/mcp.json`` lives there), per platform."""
    if ctx.platform == "darwin":
        return ctx.home / "Library" / "Application Support" / "Trae"
    if ctx.platform == "win32":
        return (ctx.env_path("APPDATA") or ctx.home / "AppData" / "Roaming") / "Trae"
    return (ctx.env_path("XDG_CONFIG_HOME") or ctx.home / ".config") / "Trae"


def mcp_file(ctx: Context, root: Path) -> Path:
    if ctx.is_local or ctx.config_dir is not None:
        return root / "mcp.json"
    return app_dir(ctx) / "User" / "mcp.json"


DIALECT_WORDS = (
    (
        "(Skill tool, or\nthe slash command of the same name where skills are commands)",
        "(it is one of your skills: load it and follow it)",
    ),
    ("four Task calls", "four steps"),
)


def dialect(ref: str, folder: str = CORE_DIR) -> Dialect:
    return Dialect(
        LABEL,
        tools={},
        args="(the text the user wrote with the request, if any)",
        spawn=instructions_spawn(ref, "do it yourself as {agent}", folder),
        file_ref=lambda path: f"`{path}` (read this file)",
        context_file="AGENTS.md",
        project_dir="the workspace root",
        flag="trae",
        words=DIALECT_WORDS,
    )


def plan(ctx: Context, payload: Payload) -> Plan:
    root = ADAPTER.root(ctx)
    ref = root_ref(ctx, root)
    talk = dialect(ref, payload.engine_dir)
    names = [c.name for c in payload.commands] + [s.name for s in payload.skills]
    notes: list[str] = []

    def text(raw: str) -> str:
        return convert_text(raw, talk, ref, names)

    files: list[FileOp] = []
    for command in payload.commands:
        meta = {"name": command.name, "description": command.description}
        files.append(skill_op(root, "skills", command.name, document(meta, text(command.doc.body))))
        for field in ("argument-hint", "allowed-tools"):
            if command.doc.get(field) is not None:
                notes.append(f"skills/{command.name}: a Trae skill has no {field}: dropped")
    for skill in payload.skills:
        meta = {"name": skill.name, "description": skill.description}
        files.append(skill_op(root, "skills", skill.name, document(meta, text(skill.doc.body))))
    files += core_agents(root, payload.agents, text, payload.engine_dir)
    if ctx.is_local:
        files.append(FileOp(root / "rules" / "msd-core.md", RULE.format(ref=ref).encode()))
    else:
        notes.append("rules: Trae keeps user rules in its settings, not in files: none installed")
    files += core_files(root, payload, ref, text)
    entries = []
    if has_core_file(payload, MCP_LAUNCHER):
        launcher = root / CORE_DIR / MCP_LAUNCHER
        server = stdio_server(ctx, launcher)
        file = mcp_file(ctx, root)
        entries.append(
            mcp_member(file, server, launcher_ref(ctx, launcher), launcher, force=ctx.force)
        )
        notes += _mcp_notes(ctx, server["command"])
    notes.append(
        "hooks not installed: Trae runs no user command hooks (TRAE Enterprise's HTTP hooks "
        "are set by an administrator)"
    )
    notes.append("agents: Trae has no agent files: each agent's step runs in the conversation")
    cache = root / CORE_DIR / "cache"
    return Plan(
        "trae",
        ctx.scope,
        root,
        tuple(files),
        tuple(entries),
        dirs=(cache,),
        state_files=(cache / "msd-update-check.json",),
        notes=summarize(notes, limit=16),
    )


def _mcp_notes(ctx: Context, command: str) -> list[str]:
    out = ["mcp: Trae gives an agent the msd tools once you add the msd server to that agent"]
    if ctx.is_local:
        out.append("mcp: Trae reads .trae/mcp.json after you turn on Settings > MCP > Enable "
                   "Project MCP; msd does not change Trae's settings for you")  # fmt: skip
    if " " in command:
        out.append(
            f"mcp: Trae does not start an MCP command containing a space ({command}); "
            "install msd-install with a Python whose path has none"
        )
    return out


ADAPTER = Adapter(
    "trae",
    LABEL,
    global_root,
    local_root,
    detect,
    plan,
    hooks="none (Trae runs no user command hooks)",
    sources="documentation only (no offline CLI): skills `.trae/skills`, `~/.trae/skills` "
    "(Trae docs via w3cschool, juejin; high for projects, medium globally), rule "
    "`.trae/rules/msd-core.md` with description/globs/alwaysApply (Trae docs summary 2026, "
    "trae-rules-mcp; medium-high), MCP `.trae/mcp.json` and `<app data>/Trae/User/mcp.json` "
    "mcpServers, strict JSON (installers memorix, brokre, superpowers-mcp; medium-high), no "
    "hooks (docs.trae.cn: enterprise HTTP hooks only); open: global skills, Trae CN",
)
