"""The install shape OpenCode and its fork Kilo share; ``opencode.py`` and ``kilo.py`` are data.

Both runtimes read the same file formats (verified with ``opencode`` 1.18.33 and ``kilo`` 7.7.7,
see the two modules): skills ``skills/<name>/SKILL.md``, agents ``agents/<name>.md`` whose
frontmatter is validated strictly, and MCP servers as ``mcp.<name> = {"type": "local",
"command": [...], "environment": {...}, "enabled": true}`` in a JSONC config file. Only names
differ: the config folder, the project folder, the config file names and the env override.

Commands become skills. Both runtimes list every skill as a slash command (``source: "skill"``
in the command list a client gets from ``serve``'s ``/command``), so a skill is user-invocable
and model-invocable at once; the router skills rely on the latter. Kilo lists a command and a
skill of the same name twice, and both runtimes read ``~/.claude/skills``: as commands, the
msd commands would show up twice next to a Claude Code install.
"""

from __future__ import annotations

from dataclasses import dataclass, field
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
    interpreter,
    launcher_args,
    launcher_ref,
    root_ref,
)
from .convert import Dialect, Spawn, convert_model, convert_text, convert_tools, summarize
from .markdown import document, tools_of
from .shapes import env_member, mcp_member

MCP_LAUNCHER = "bin/msd-mcp"

# Claude tool -> the permission that governs it in OpenCode/Kilo (``write`` and ``patch`` share
# ``edit``: a ``tools``/``permission`` key ``write`` is turned into ``edit`` by both CLIs)
TOOLS: dict[str, str | None] = {
    "Read": "read",
    "Write": "edit",
    "Edit": "edit",
    "MultiEdit": "edit",
    "Bash": "bash",
    "Glob": "glob",
    "Grep": "grep",
    "Task": "task",
    "WebFetch": "webfetch",
    "WebSearch": "websearch",
    "TodoWrite": "todowrite",
    "AskUserQuestion": "question",
    "NotebookEdit": None,
    "Skill": "skill",
}
# every permission an agent's Claude tool list decides; what it does not grant is denied
PERMISSIONS = ("read", "edit", "bash", "glob", "grep", "webfetch", "websearch", "task",
               "todowrite", "question", "skill")  # fmt: skip

# Claude's agent colours as ``#RRGGBB`` (Tailwind's 500 shades): a colour word such as
# ``green`` fails every command of both CLIs (``^#[0-9a-fA-F]{6}$`` or a theme word)
COLORS = {
    "red": "#EF4444",
    "orange": "#F97316",
    "yellow": "#EAB308",
    "green": "#22C55E",
    "cyan": "#06B6D4",
    "blue": "#3B82F6",
    "purple": "#A855F7",
    "pink": "#EC4899",
}


def task_spawn(call: Spawn) -> str:
    """A workflow's ``Task(...)`` as the ``task`` tool call: ``subagent_type``, ``description``
    (required) and ``prompt``; the tool takes no model (see ``MODEL_NOTE``)."""
    about = call.description or call.agent
    return (
        f'task(\n  subagent_type="{call.agent}",\n  description="{about}",\n'
        f'  prompt="{call.prompt}"\n)'
    )


MODEL_NOTE = (
    "workflows: the {rt} task tool takes no model: msd agents run on the session's model "
    "(the model profile does not apply)"
)
HOOKS_NOTE = (
    "hooks not installed: {rt} runs hooks only as JavaScript/TypeScript plugins and has no "
    "shell-hook setting; msd's hooks are Python commands"
)


@dataclass(frozen=True)
class Shape:
    """What tells OpenCode and Kilo apart."""

    name: str  # the flag, e.g. "opencode"
    label: str  # "OpenCode"
    folder: str  # under $XDG_CONFIG_HOME: "opencode"
    local_dir: str  # in the project: ".opencode"
    env: str  # the config-dir override: "OPENCODE_CONFIG_DIR"
    # config files the runtime reads in the root, in the order we prefer an existing one
    config_files: tuple[str, ...]
    new_config: str  # the file we create when none of them exists
    binaries: tuple[str, ...]
    # the runtime asks before a tool reads its own global folder (OpenCode; Kilo allows it)
    asks_for_global_reads: bool = False
    dialect: Dialect = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "dialect", _dialect(self))

    def global_root(self, ctx: Context) -> Path:
        """``$<ENV>`` (a full config directory for the runtime), else its XDG config folder."""
        return ctx.env_path(self.env) or _xdg_config(ctx) / self.folder

    def local_root(self, ctx: Context) -> Path:
        return ctx.cwd / self.local_dir

    def detect(self, ctx: Context) -> Detection:
        return detect_by(ctx, (self.global_root(ctx), self.local_root(ctx)), self.binaries)

    def config_file(self, root: Path) -> Path:
        """The config file of ``root`` that gets our MCP entry: the user's if one exists."""
        for name in self.config_files:
            if (root / name).is_file():
                return root / name
        return root / self.new_config

    def plan(self, ctx: Context, payload: Payload) -> Plan:
        root = self.adapter.root(ctx)
        ref = root_ref(ctx, root)
        names = [c.name for c in payload.commands] + [s.name for s in payload.skills]
        notes: list[str] = []
        files: list[FileOp] = []
        for command in payload.commands:
            text, more = _command_skill(command, self.dialect, ref, names)
            files.append(FileOp(root / "skills" / command.name / "SKILL.md", text.encode()))
            notes += more
        for skill in payload.skills:
            meta = {"name": skill.name, "description": skill.description}
            text = document(meta, convert_text(skill.doc.body, self.dialect, ref, names))
            files.append(FileOp(root / "skills" / skill.name / "SKILL.md", text.encode()))
        for agent in payload.agents:
            text, more = _agent(agent, self.dialect, ref, names)
            files.append(FileOp(root / "agents" / f"{agent.name}.md", text.encode()))
            notes += more
        files += core_files(
            root, payload, ref, lambda raw: convert_text(raw, self.dialect, ref, names)
        )
        entries = [self._mcp_entry(ctx, root)] if has_core_file(payload, MCP_LAUNCHER) else []
        notes += self._report(ctx, root)
        return Plan(self.name, ctx.scope, root, tuple(files), tuple(entries),
                    notes=summarize(notes, limit=20))  # fmt: skip

    def _report(self, ctx: Context, root: Path) -> list[str]:
        """What the user must know or may want to do themselves."""
        rt = self.label
        notes = [HOOKS_NOTE.format(rt=rt), MODEL_NOTE.format(rt=rt)]
        if self.asks_for_global_reads and not ctx.is_local:
            notes.append(
                f"{rt} asks before an agent reads files outside the project, msd's workflows in "
                f"{root / CORE_DIR} included; to stop the prompts, allow them in "
                f'{self.config_file(root)}: "permission": {{"external_directory": '
                f'{{"{root / CORE_DIR}/*": "allow"}}}} (msd-install does not grant it for you)'
            )
        if not ctx.is_local and ctx.config_dir is None and ctx.env_path(self.env) is not None:
            notes.append(
                f"{self.env} is set: msd went into {root}, which {rt} reads only while "
                f"{self.env} is set to it"
            )
        return notes

    def _mcp_entry(self, ctx: Context, root: Path) -> ConfigEntry:
        launcher = root / CORE_DIR / MCP_LAUNCHER
        server: dict[str, Any] = {
            "type": "local",
            "command": [interpreter(ctx), *launcher_args(ctx, launcher)],
            **env_member(ctx, "environment"),
            "enabled": True,
        }
        return mcp_member(self.config_file(root), server, launcher_ref(ctx, launcher), launcher,
                          fmt="jsonc", path=("mcp",), force=ctx.force)  # fmt: skip

    @property
    def adapter(self) -> Adapter:
        return Adapter(
            self.name,
            self.label,
            self.global_root,
            self.local_root,
            self.detect,
            self.plan,
            hooks=f"none: {self.label} runs hooks only as JS/TS plugins (no shell hooks)",
            env_override=self.env,
        )


def _xdg_config(ctx: Context) -> Path:
    """``$XDG_CONFIG_HOME`` when it is absolute (the XDG rule), else ``~/.config``."""
    raw = ctx.env.get("XDG_CONFIG_HOME", "")
    return Path(raw) if raw and Path(raw).is_absolute() else ctx.home / ".config"


def _dialect(shape: Shape) -> Dialect:
    return Dialect(
        shape.label,
        tools=TOOLS,
        models={},  # provider/model ids are the user's: Claude tiers map to none of them
        spawn=task_spawn,
        context_file="AGENTS.md",
        flag=shape.name,
        words=(
            (
                "pass that model when spawning:",
                "spawn the agent (the task tool takes no model: agents run on the session's):",
            ),
            (
                "(Skill tool, or\nthe slash command of the same name where skills are commands)",
                "(the skill tool, or\nthe slash command of the same name)",
            ),
        ),
    )


def _command_skill(
    command: Command, dialect: Dialect, ref: str, names: list[str]
) -> tuple[str, list[str]]:
    """A command as a skill: ``$ARGUMENTS`` stays (both CLIs substitute it when the skill runs
    as a slash command); the argument hint, which skills do not have, joins the description."""
    where = f"skills/{command.name}/SKILL.md"
    description = command.description
    hint = command.doc.get("argument-hint")
    if isinstance(hint, str) and hint.strip():
        description = f"{description} (arguments: {hint.strip()})"
    notes = []
    if tools_of(command.doc, "allowed-tools"):
        notes.append(f"{where}: {dialect.runtime} skills have no tool list: allowed-tools dropped")
    meta = {"name": command.name, "description": description}
    return document(meta, convert_text(command.doc.body, dialect, ref, names)), notes


def _agent(agent: Agent, dialect: Dialect, ref: str, names: list[str]) -> tuple[str, list[str]]:
    """An agent converted field by field: ``mode: subagent``; the Claude tool list as a
    ``permission`` map (granted: allow, every other known permission: deny); the colour as
    ``#RRGGBB``; the Claude model tier dropped (the session's model)."""
    where = f"agents/{agent.name}.md"
    granted, notes = convert_tools(agent.tools, dialect, where)
    writes = {t for t in agent.tools if t in ("Write", "Edit", "MultiEdit")}
    missing = sorted({"Write", "Edit"} - writes) if writes else []
    if missing:
        notes.append(
            f"{where}: {dialect.runtime} grants writing and editing files together "
            f"(permission edit): {', '.join(missing)} allowed too"
        )
    meta: dict[str, Any] = {
        "name": agent.name,
        "description": agent.description,
        "mode": "subagent",
    }
    if agent.tools:
        meta["permission"] = {p: "allow" if p in granted else "deny" for p in PERMISSIONS}
    color = agent.doc.get("color")
    if isinstance(color, str) and color:
        if color.lower() in COLORS:
            meta["color"] = COLORS[color.lower()]
        else:
            notes.append(f"{where}: colour {color!r} has no {dialect.runtime} value: dropped")
    _model, more = convert_model(agent.doc.get("model"), dialect, where)
    notes += more
    body = convert_text(agent.doc.body, dialect, ref, names)
    return document(meta, body), notes
