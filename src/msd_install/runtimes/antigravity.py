"""Google Antigravity 2.0 (IDE and ``agy`` CLI): ``~/.gemini/config``, local ``<project>/.agent``.

No offline CLI exists (shared/design/real-clients.md "No offline CLI"): every fact comes from
documentation and from third parties who ran ``agy``; sources and confidence per fact (also in
``ADAPTER.sources``):

- **Global root ``~/.gemini/config``**: Antigravity 2.0's customization root shared by the IDE
  and the CLI (``skills/``, ``hooks.json``, ``mcp_config.json``); the 1.x path
  ``~/.gemini/antigravity/mcp_config.json`` is no longer read (rulesync antigravity-ide-mcp.ts,
  cua.ai antigravity-cli, jcodemunch-mcp 1.108.89, safe-chains agy.rs "per
  agy-customizations/docs/json_configs.md"; high). It sits under ``~/.gemini`` beside Gemini
  CLI's root, but no file or directory is shared with a Gemini install: Gemini CLI reads
  ``~/.gemini/{settings.json,commands,skills,agents}``, msd's Antigravity files are all under
  ``~/.gemini/config``, with its own manifest.
- **Local root ``.agent/``**, not ``.agents/``: both are Antigravity customization roots
  (``.agents/``, ``.agent/``, ``_agents/``, ``_agent/``; skillsaw antigravity.md, measured
  against ``agy`` 1.1.25: ``.agent/`` "no other tool reads"), while ``.agents/skills`` is read
  by seven other runtimes, where msd never writes (shared-surface rule 1). Medium-high.
- **Workflows** (slash commands ``/msd-<name>``, Markdown with ``description``, 12,000
  characters at most) hold the 22 commands locally (``<root>/workflows/``). Globally they are
  skills: the IDE's global workflows folder ``~/.gemini/antigravity/global_workflows/``
  (rulesync 2.0, juejin 1.x; high) lies outside the global root ``~/.gemini/config``, and an
  install root has exactly one manifest that owns only files inside it. The 6 routers are
  skills ``skills/msd-<name>/SKILL.md`` (antigravity.google/docs/skills; high).
- **Agents** have no file format we could verify: their instructions are
  ``msd-core/agents/<name>.md`` and a workflow asks Antigravity for a subagent that reads them.
- **Hooks** ``hooks.json`` ``{"msd": {"PreToolUse": [{matcher, hooks: [{type, command,
  timeout}]}]}}`` (top-level keys are hook names; strict JSON; timeout in whole seconds;
  skillsaw antigravity-hooks-valid, rulesync antigravity-hooks.ts; high). Stdin is protojson:
  ``toolCall.name`` (``run_command``, ``view_file``, ``grep_search``, ``write_to_file``,
  ``replace_file_content``), ``toolCall.args`` (``CommandLine``, ``AbsolutePath``,
  ``TargetFile``...), ``workspacePaths``, ``conversationId``; the answer is ``{"decision":
  "deny"|"allow"|"ask", "reason"}`` and a missing decision makes ``agy`` ask the user
  (safe-chains HARNESS-BEHAVIORS.md, verified live with agy 1.1.2; medium-high). Nothing
  reaches the agent except a deny, so only the blocking guards are registered
  (``--dialect antigravity``); the matcher is an anchored regex (tanaike's guide: regex
  matching; medium).
- **MCP** ``mcp_config.json`` ``mcpServers.msd`` ``{command, args, env}``, strict JSON (a
  syntax error stops ``agy``; skillsaw antigravity-mcp-valid; high).

Open: the CLI's own global workflows folder (``~/.gemini/antigravity-cli/global_workflows``,
rulesync only) is not written; which of ``.agents/`` and ``.agent/`` wins when a project has
both; whether Antigravity also reads ``~/.gemini/skills`` (one third party says so: Gemini
CLI's msd skills would then show beside these).
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
from .convert import Dialect, convert_invocations, convert_text, instructions_spawn, summarize
from .markdown import document
from .shapes import (
    HookDialect,
    core_agents,
    hook_files,
    hook_script_ref,
    mcp_member,
    settings_hooks,
    skill_op,
    stdio_server,
)

MCP_LAUNCHER = "bin/msd-mcp"
LABEL = "Google Antigravity"
GROUP = "msd"  # our named hook in hooks.json
# the hooks whose answer Antigravity passes on: a deny (advice has no way to the agent)
BLOCKING = ("msd-secret-read-guard", "msd-validate-commit")
HOOKS = HookDialect(
    LABEL,
    events={"PreToolUse": "PreToolUse"},
    tools={
        "Read": "view_file",
        "Grep": "grep_search",
        "Bash": "run_command",
        "Write": "write_to_file",
        "Edit": "replace_file_content|multi_replace_file_content",
    },
    dialect="antigravity",
    anchored=True,
)


def global_root(ctx: Context) -> Path:
    return ctx.home / ".gemini" / "config"


def local_root(ctx: Context) -> Path:
    return ctx.cwd / ".agent"


def detect(ctx: Context) -> Detection:
    gemini = ctx.home / ".gemini"
    dirs = (gemini / "config", gemini / "antigravity", gemini / "antigravity-cli")
    return detect_by(ctx, dirs, ("agy", "antigravity"))


def dialect(ref: str, workflows: str | None, folder: str = CORE_DIR) -> Dialect:
    """``workflows``: where the commands are workflows (local installs), or None where they are
    skills (global installs)."""
    router = "(Skill tool, or\nthe slash command of the same name where skills are commands)"
    words: tuple[tuple[str, str], ...] = (
        (router, "(it is one of your skills: load it and follow it)"),
        ("four Task calls", "four subagents"),
    )
    if workflows is not None:
        words = (
            (router, f"(it is the workflow `/<name>`: read `{workflows}<name>.md` and follow it)"),
            ("invoke that skill with", "run that workflow with"),
            words[1],
        )
    return Dialect(
        LABEL,
        tools={},
        args="(the text the user typed after the workflow's name, if any)",
        spawn=instructions_spawn(ref, "start a subagent that works as {agent}", folder),
        file_ref=lambda path: f"`{path}` (read this file)",
        context_file="AGENTS.md",
        project_dir="the workspace root",
        flag="antigravity",
        words=words,
    )


def plan(ctx: Context, payload: Payload) -> Plan:
    root = ADAPTER.root(ctx)
    ref = root_ref(ctx, root)
    # local: the 22 commands are workflows (<root>/workflows, slash commands); global: skills,
    # because the IDE's global workflows folder (~/.gemini/antigravity/global_workflows) lies
    # outside this root, and one manifest owns one root
    talk = dialect(ref, f"{ref}workflows/" if ctx.is_local else None, payload.engine_dir)
    names = [c.name for c in payload.commands] + [s.name for s in payload.skills]
    notes: list[str] = []

    def text(raw: str) -> str:
        return convert_text(raw, talk, ref, names)

    files: list[FileOp] = []
    for command in payload.commands:
        if ctx.is_local:
            body = document({"description": command.description}, text(command.doc.body))
            files.append(FileOp(root / "workflows" / f"{command.name}.md", body.encode()))
        else:
            meta = {"name": command.name, "description": command.description}
            body = document(meta, text(command.doc.body))
            files.append(skill_op(root, "skills", command.name, body))
        kind = "workflow" if ctx.is_local else "skill"
        for field in ("argument-hint", "allowed-tools"):
            if command.doc.get(field) is not None:
                notes.append(f"{command.name}: an Antigravity {kind} has no {field}")
    for skill in payload.skills:
        meta = {"name": skill.name, "description": skill.description}
        files.append(skill_op(root, "skills", skill.name, document(meta, text(skill.doc.body))))
    files += core_agents(root, payload.agents, text, payload.engine_dir)
    files += core_files(root, payload, ref, text)
    hooks = tuple(h for h in payload.hooks if h.name in BLOCKING)
    unused = [h.name for h in payload.hooks if h.event and h.name not in BLOCKING]
    if unused:
        notes.append(
            "hooks: Antigravity passes a hook's answer to the agent only when it denies a call, "
            "so these are not registered: " + ", ".join(unused)
        )
    entries, more = settings_hooks(
        ctx,
        root,
        root / "hooks.json",
        hooks,
        HOOKS,
        script_ref=lambda script: hook_script_ref(ctx, root, script),
        prefix=(GROUP,),
    )
    notes += more
    files += hook_files(root, payload.hooks, entries, lambda s: convert_invocations(s, talk, names))
    if has_core_file(payload, MCP_LAUNCHER):
        launcher = root / CORE_DIR / MCP_LAUNCHER
        server = stdio_server(ctx, launcher)
        file = root / "mcp_config.json"
        entries.append(
            mcp_member(file, server, launcher_ref(ctx, launcher), launcher, force=ctx.force)
        )
    notes += _notices(ctx)
    cache = root / CORE_DIR / "cache"
    return Plan(
        "antigravity",
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
        "agents: Antigravity starts subagents on request; each reads its instructions from "
        "msd-core/agents/ and the workflows' per-call Claude model choice is not passed",
    ]
    if ctx.is_local:
        out.append(
            "local: installed in .agent/ (an Antigravity-only folder): msd never writes into "
            ".agents/, which other runtimes read too"
        )
    else:
        out.append(
            "commands: installed as skills in ~/.gemini/config/skills (the global workflows "
            "folders ~/.gemini/antigravity/global_workflows and the agy CLI's lie outside the "
            "install root); a local install makes them workflows"
        )
    return out


ADAPTER = Adapter(
    "antigravity",
    LABEL,
    global_root,
    local_root,
    detect,
    plan,
    hooks="`hooks.json` named group `msd` (PreToolUse, blocking guards only, `decision` JSON)",
    sources="documentation and third parties who ran agy (no offline CLI): global root "
    "`~/.gemini/config` for skills, hooks.json and mcp_config.json (rulesync, cua.ai, "
    "safe-chains agy.rs; high), local `.agent/` not the shared `.agents/` (skillsaw, measured "
    "with agy 1.1.25; medium-high), commands as workflows locally and as skills globally "
    "(the IDE's global workflows folder lies outside the root; rulesync, juejin), hooks.json "
    "named groups, strict JSON (skillsaw "
    "antigravity-hooks-valid; high), protojson stdin `toolCall`/`workspacePaths` and "
    "`{decision}` answers, silence = ask the user (safe-chains HARNESS-BEHAVIORS, agy 1.1.2; "
    "medium-high); open: the agy CLI's global workflows folder, `.agents/` vs `.agent/` "
    "precedence, whether `~/.gemini/skills` (Gemini CLI's) is read too",
    hook_events=HOOKS.events,
)
