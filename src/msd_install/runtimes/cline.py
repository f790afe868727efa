"""Cline (CLI 3.x): ``$CLINE_DIR`` or ``~/.cline``; local ``<project>/.cline``.

Verified with the real ``cline`` 3.0.65 (npm; its bundled code and the CLI run offline against
throw-away homes: ``cline config skills|agents|hooks|workflows|mcp|rules --json``, and a full
run through a loopback OpenAI-compatible stub whose saved requests show the tools, skills and
subagents a session loaded). See tests/e2e/test_cline_cli.py.

- **Roots.** ``CLINE_DIR`` (default ``~/.cline``; ``cline --config DIR`` sets the same) holds
  ``skills/``, ``agents/``, ``hooks/``, ``workflows/``, ``rules/``. A project is read from
  ``<project>/.cline/{skills,agents,hooks,workflows,rules}`` (and the legacy ``.clinerules/``),
  so a local install lives entirely in ``<project>/.cline``: nothing goes to ``.clinerules/``
  or the project root, and ``.cline/msd-core`` is read as nothing (Cline reads only the
  subfolders of ``.cline`` that hold a ``managed.json``). ``--config-dir`` is the root; Cline
  reads it when started as ``cline --config DIR`` (the report says so).
- **Commands are skills** (``skills/msd-<name>/SKILL.md``, ``name`` + ``description``), like
  the 6 routers: Cline lists every skill as a slash command and offers it to the model through
  its ``skills`` tool (``skill``, ``args``), which is how a router reaches a command. A
  workflow file would be a second, model-invisible ``/msd-<name>`` (rule 3), so none is
  written. A skill is called with ``<command-args>``; ``@path`` is not expanded in a skill, and
  ``read_files`` neither expands ``~`` nor takes a path relative to anything but the workspace,
  so file references become absolute paths (global) or workspace-relative ones (local).
- **Agents** are YAML files (``agents/msd-<name>.yaml``; ``.md`` is ignored): a ``---`` block
  with ``name``, ``description``, ``tools`` (Cline's tool names: ``read_files``, ``editor``,
  ``run_commands``, ``search_codebase``, ``fetch_web_content``...), optional ``modelId``,
  ``providerId``, ``maxIterations``, ``skills``, then the system prompt. Each becomes the tool
  ``subagent_msd_<name>`` with one argument, ``prompt``; Claude's model tiers and colours have
  no equivalent and are dropped (noted).
- **Hooks**: one executable per event named after it (case-insensitive; extension none, .sh,
  .py, .js, ...; several files for one event all run) in ``hooks/``. Cline runs a file by its
  shebang, gives it ``{hookName: "tool_call"|"tool_result", taskId, workspaceRoots,
  tool_call|tool_result: {name, input, output}}`` on stdin and reads ``{cancel, errorMessage,
  contextModification}`` from stdout. msd writes ``PreToolUse.sh`` and ``PostToolUse.sh``
  (the user's own ``PreToolUse`` keeps running beside them): each starts
  ``hooks/msd-cline-hooks.py`` (``cline_dispatch``) with that event's hooks and the Cline tools
  each applies to, which runs them with ``--dialect cline`` and merges their answers. A cancel
  ends Cline's run (its file hooks cannot skip one call). TaskStart and UserPromptSubmit hooks
  run in the background with their output ignored, so the SessionStart hooks are not used.
- **MCP** (global only: Cline has no project MCP file): ``mcpServers.msd`` (``command``,
  ``args``, ``env``) in ``$CLINE_MCP_SETTINGS_PATH``, else ``$CLINE_DATA_DIR/settings/
  cline_mcp_settings.json``, else ``<root>/data/settings/cline_mcp_settings.json``; strict JSON
  (a comment or a trailing comma makes Cline drop the file). Cline starts the server from the
  workspace and names its tools ``msd__<tool>``.
- **Side by side with Claude Code**: Cline reads nothing of ``.claude/`` (skills, agents,
  ``.mcp.json``), so each msd item is listed once.
- **Both scopes installed**: Cline lists each skill once (it keeps the global copy) and each
  agent once (it keeps the project's copy), and runs the hook files of both; a global launcher
  then leaves the answer to the project's (``cline_dispatch``), so no advice comes twice.

Open: Windows (Cline runs a ``.sh`` hook with ``bash``); the workflows' per-call model choice
(a subagent uses its file's model, else the session's).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..installer.context import Context
from ..installer.plan import ConfigEntry, FileOp, Plan
from ..payload import Agent, Command, Payload
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
from .cline_hooks import TOOLS, hook_files
from .convert import Dialect, Spawn, convert_model, convert_text, convert_tools, summarize
from .markdown import document
from .shapes import mcp_member, skill_op, stdio_server

LABEL = "Cline"
MCP_LAUNCHER = "bin/msd-mcp"
MCP_FILE = "cline_mcp_settings.json"


def global_root(ctx: Context) -> Path:
    return ctx.env_path("CLINE_DIR") or ctx.home / ".cline"


def local_root(ctx: Context) -> Path:
    return ctx.cwd / ".cline"


def detect(ctx: Context) -> Detection:
    return detect_by(ctx, (global_root(ctx),), ("cline",))


def subagent_tool(agent: str) -> str:
    """Cline's tool for an agent file, computed as Cline 3.0.65 does: ``subagent_`` + the name
    in lowercase letters, digits and single underscores (``msd-planner`` ->
    ``subagent_msd_planner``), cut to 64 characters with a hash of the name when longer."""
    slug: list[str] = []
    gap = True
    for char in agent.strip().lower():
        if not (char.isascii() and char.isalnum()):
            if not gap:
                slug.append("_")
                gap = True
            continue
        slug.append(char)
        gap = False
    name = "".join(slug[:-1] if gap else slug) or "agent"
    tool = f"subagent_{name}"
    if len(tool) <= 64:
        return tool
    digest = _fnv36(agent)[:6]
    return f"subagent_{name[: max(1, 64 - 9 - len(digest) - 1)]}_{digest}"[:64]


def _fnv36(text: str) -> str:
    """32-bit FNV-1a over UTF-16 code units, in base 36 (JavaScript's ``toString(36)``)."""
    value = 2166136261
    units = text.encode("utf-16-le")
    for i in range(0, len(units), 2):
        value = ((value ^ int.from_bytes(units[i : i + 2], "little")) * 16777619) & 0xFFFFFFFF
    digits = ""
    while True:
        value, rest = divmod(value, 36)
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"[rest] + digits
        if not value:
            return digits


def _spawn(spawn: Spawn) -> str:
    return f'{subagent_tool(spawn.agent)}(\n  prompt="{spawn.prompt}"\n)'


def _file_ref(home: Path) -> Callable[[str], str]:
    """``@path`` as a path ``read_files`` takes: ``~`` spelled out (it does not expand it)."""

    def ref(path: str) -> str:
        bare = path.rstrip(".:")
        full = (home / bare[2:]).as_posix() if bare.startswith("~/") else bare
        return f"`{full}`{path[len(bare) :]}"

    return ref


def dialect(ctx: Context) -> Dialect:
    return Dialect(
        LABEL,
        tools={
            "Read": "read_files",
            "Write": "editor",
            "Edit": "editor",
            "MultiEdit": "editor",
            "Bash": "run_commands",
            "Grep": "search_codebase",
            "Glob": "run_commands",  # Cline itself maps list_files onto run_commands
            "WebFetch": "fetch_web_content",
            "AskUserQuestion": "ask_question",
            "Skill": "skills",
            "Task": None,  # a subagent cannot start another subagent in Cline
            "WebSearch": None,
            "TodoWrite": None,
            "NotebookEdit": None,
        },
        args="<command-args>",
        spawn=_spawn,
        file_ref=_file_ref(ctx.home),
        context_file="AGENTS.md",
        project_dir="the workspace root",
        flag="cline",
        words=(
            ("<execution_context>\n", "<execution_context>\nRead these files first:\n"),
            ("<required_reading>\n", "<required_reading>\nRead these files first:\n"),
            (
                "(Skill tool, or\nthe slash command of the same name where skills are commands)",
                "(the `skills`\ntool: its name as `skill`, the arguments as `args`)",
            ),
            ("with the Write/Edit tools", "with the `editor` tool"),
            ("with the Write tool", "with the `editor` tool"),
            ("with the Edit tool", "with the `editor` tool"),
            ("four Task calls", "four subagent calls"),
            ("(Grep imports)", "(`search_codebase` for imports)"),
            ("(Grep for imports", "(`search_codebase` for imports"),
            ("| Grep for imports", "| `search_codebase` for imports"),
            ("(Grep/Glob)", "(`search_codebase`)"),
            ("(Glob/Grep)", "(`search_codebase`)"),
            ("with Glob/Grep first", "with `search_codebase` first"),
            (" / Glob |", " |"),
            ("(WebFetch on", "(`fetch_web_content` on"),
            ("**WebSearch**", "**A web search** (where your model offers one)"),
        ),
    )


def _command(command: Command, text: Callable[[str], str]) -> tuple[str, list[str]]:
    body = command.doc.body.replace(
        "\n$ARGUMENTS\n",
        "\nArguments: the text in `<command-args>` (none when that tag is absent).\n",
    )
    description = command.description
    hint = command.doc.get("argument-hint")
    if isinstance(hint, str) and hint.strip():
        description = f"{description} (arguments: {hint.strip()})"
    notes = []
    if command.doc.get("allowed-tools"):
        notes.append(
            f"skills/{command.name}: Cline skills have no tool list: allowed-tools dropped"
        )
    meta = {"name": command.name, "description": description}
    return document(meta, text(body)), notes


def _agent(agent: Agent, talk: Dialect, text: Callable[[str], str]) -> tuple[str, list[str]]:
    """The agent as Cline's YAML agent file: frontmatter, then the system prompt."""
    where = f"agents/{agent.name}.yaml"
    meta: dict[str, Any] = {"name": agent.name, "description": agent.description}
    tools, notes = convert_tools(agent.tools, talk, where)
    if agent.tools:  # no list: every tool, in Cline as in Claude Code
        meta["tools"] = tools
    _model, more = convert_model(agent.doc.get("model"), talk, where)
    notes += more
    if agent.doc.get("color") is not None:
        notes.append(f"{where}: {LABEL} agents have no colour: color dropped")
    return document(meta, text(agent.doc.body).lstrip("\n")), notes


def mcp_settings(ctx: Context, root: Path) -> Path:
    """Where Cline reads its MCP servers, as Cline resolves it."""
    explicit = ctx.env_path("CLINE_MCP_SETTINGS_PATH")
    if explicit is not None:
        return explicit
    data = ctx.env_path("CLINE_DATA_DIR") or root / "data"
    return data / "settings" / MCP_FILE


def _mcp_entry(ctx: Context, root: Path) -> ConfigEntry:
    launcher = root / CORE_DIR / MCP_LAUNCHER
    server = stdio_server(ctx, launcher)
    return mcp_member(
        mcp_settings(ctx, root), server, launcher_ref(ctx, launcher), launcher, force=ctx.force
    )


def _notices(ctx: Context, root: Path) -> list[str]:
    out = [
        "workflows: a Cline subagent runs on its agent file's model (else the session's); the "
        "workflows' per-call model choice is not passed",
    ]
    if ctx.is_local:
        out.append(
            "mcp: Cline reads MCP servers only from its global cline_mcp_settings.json, so a "
            "project install registers none; `msd-install --cline --global` adds the msd server"
        )
    elif ctx.config_dir is not None:
        out.append(f"--config-dir: start Cline as `cline --config {root}` to use this install")
    return out


def plan(ctx: Context, payload: Payload) -> Plan:
    root = ADAPTER.root(ctx)
    ref = root_ref(ctx, root)
    talk = dialect(ctx)
    names = [c.name for c in payload.commands] + [s.name for s in payload.skills]

    def text(raw: str) -> str:
        return convert_text(raw, talk, ref, names)

    notes: list[str] = []
    files: list[FileOp] = []
    for command in payload.commands:
        body, more = _command(command, text)
        files.append(skill_op(root, "skills", command.name, body))
        notes += more
    for skill in payload.skills:
        meta = {"name": skill.name, "description": skill.description}
        files.append(skill_op(root, "skills", skill.name, document(meta, text(skill.doc.body))))
    for agent in payload.agents:
        body, more = _agent(agent, talk, text)
        files.append(FileOp(root / "agents" / f"{agent.name}.yaml", body.encode()))
        notes += more
    hooks, more = hook_files(ctx, root, payload.hooks)
    files += hooks
    notes += more
    files += core_files(root, payload, ref, text)
    entries: list[ConfigEntry] = []
    if has_core_file(payload, MCP_LAUNCHER) and not ctx.is_local:
        entries.append(_mcp_entry(ctx, root))
    cache = root / CORE_DIR / "cache"
    return Plan(
        "cline",
        ctx.scope,
        root,
        tuple(files),
        tuple(entries),
        dirs=(cache,),
        state_files=(cache / "msd-update-check.json",),
        notes=summarize(notes, limit=16) + tuple(_notices(ctx, root)),
    )


ADAPTER = Adapter(
    "cline",
    LABEL,
    global_root,
    local_root,
    detect,
    plan,
    hooks="`hooks/PreToolUse.sh`, `hooks/PostToolUse.sh`: one launcher per event that runs the "
    "msd hooks for it (Cline's `{cancel, contextModification}` answers)",
    env_override="CLINE_DIR",
    sources="verified with the real `cline` 3.0.65 (`cline config skills|agents|hooks|mcp "
    "--json`, its bundled code, a full run against a loopback OpenAI-compatible stub); open: "
    "Windows hooks, per-call subagent models, a hook cancel ends the whole run",
    hook_events=TOOLS.events,
)
