"""Shapes several runtimes share: Claude-style settings hooks, an MCP server member, skills.

A runtime module describes its differences as data (``HookDialect``: event names, tool names
for matchers, timeout unit, the ``--dialect`` the hook scripts are told) and calls these
builders; no runtime name is tested here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..installer.context import Context
from ..installer.plan import CONFLICT, IF_ABSENT, ITEM, MEMBER, ConfigEntry, FileOp, Watch
from ..payload import Agent, HookSpec
from ._base import (
    WALK_UP,
    WALK_UP_RUN,
    command_path,
    interpreter,
    launcher_args,
    project_relative,
    python_command,
    quoted,
    server_env,
)


@dataclass(frozen=True)
class HookDialect:
    runtime: str  # label for notes
    # Claude event -> the runtime's event name; missing or None: not registered (noted)
    events: Mapping[str, str | None]
    # Claude tool name (in matchers) -> the runtime's tool name(s), "|"-joined if several
    tools: Mapping[str, str] = field(default_factory=dict)
    timeout_scale: int = 1  # the runtime's timeout unit per second (Gemini: milliseconds)
    dialect: str = ""  # passed to the hook scripts as ``--dialect <name>`` ("" = Claude)
    status_line: bool = False  # the runtime has Claude's ``statusLine`` setting
    # Claude's ``{matcher, hooks: [{type, command, timeout}]}`` groups, or one flat
    # ``{matcher, command, timeout}`` entry per hook (Hermes)
    nested: bool = True
    status_line_in: tuple[str, ...] = ()  # the object holding it (Qwen: ``ui``)
    # matchers are unanchored regexes in the runtime (Gemini): wrap them in ``^(...)$`` so
    # that ``replace`` cannot match some MCP tool that merely contains the word
    anchored: bool = False
    named: bool = False  # each hook carries its ``name`` (Gemini and Qwen show and filter by it)
    # hooks that cannot work in the runtime: name -> why (noted, not registered)
    unused: Mapping[str, str] = field(default_factory=dict)
    # the (Claude) events that take a matcher not about tools (SessionStart's ``startup``,
    # PreCompact's ``manual``): a hook with one (``HookSpec.when``) elsewhere is not registered
    event_matchers: frozenset[str] = frozenset()


def unmatched_when(hook: HookSpec, runtime: str, supported: frozenset[str] = frozenset()) -> str:
    """The note on a hook whose non-tool matcher (``HookSpec.when``) the runtime cannot
    express on its event ("" when there is none, or the runtime has it): it is not
    registered, since it would run on every such event."""
    if not hook.when or hook.event in supported:
        return ""
    return (
        f"hooks: {hook.name} runs only on {hook.event} {hook.when!r}: {runtime} has no "
        "matcher there: not used"
    )


def hook_script_ref(
    ctx: Context, root: Path, script: str, project_var: str = "", *, quote_var: bool = True
) -> str:
    """How a hook command names its script, after ``<python> -I -S``.

    Global: the absolute quoted path. Local: ``"$<PROJECT_VAR>"/<rel>`` when the runtime sets
    such a variable for its hooks, else ``-c "<WALK_UP>" "<rel>"`` (the script found from the
    working directory upwards), so that a committed project names no path of this machine.
    ``quote_var=False`` for a runtime that substitutes the variable in the command text with
    an already shell-quoted path (Gemini CLI): double quotes around it would keep those
    quotes literally."""
    path = root / "hooks" / script
    rel = project_relative(ctx, path)
    if rel is None:
        return command_path(ctx, path)
    if project_var:
        var = f'"${project_var}"' if quote_var else f"${project_var}"
        return f"{var}/{rel}"
    return f'-c "{WALK_UP}" {quoted(rel)}'


def hook_command(ctx: Context, script_ref: str, dialect: HookDialect, runner: str = "") -> str:
    """The command that runs a hook script: msd's Python, or a pack hook's ``runner``."""
    command = python_command(ctx, script_ref) if not runner else _run_with(ctx, runner, script_ref)
    return f"{command} --dialect {dialect.dialect}" if dialect.dialect else command


def _run_with(ctx: Context, runner: str, script_ref: str) -> str:
    """``<runner> <script>`` for a pack hook (``python3``, ``bash``, ``node``), never with
    msd's ``-I -S``: it is the pack's code, which may need its own imports.

    Global: Python is the interpreter a global install resolved (``installer/interpreter``:
    never a version manager's shim, a venv or the Store's stub), another runner the one on
    this PATH (a runtime started from a GUI has a minimal PATH), the bare name when it is not
    found. Local: the bare name (a committed project runs elsewhere). A local script found
    by walking up (``WALK_UP``) is found by Python, which then hands over to the runner."""
    walk = f'-c "{WALK_UP}" '
    if script_ref.startswith(walk):
        return python_command(ctx, f'-c "{WALK_UP_RUN}" {runner} {script_ref.removeprefix(walk)}')
    if ctx.is_local:
        return f"{runner} {script_ref}"
    if runner in PACK_PYTHONS:
        return f"{command_path(ctx, ctx.interpreter)} {script_ref}"
    found = ctx.which(runner)
    return f"{quoted(found) if found else runner} {script_ref}"


# the runners of a pack's Python hooks (``payload/packhooks.RUNNERS``)
PACK_PYTHONS = ("python", "python3")


def matcher(claude: str | None, dialect: HookDialect) -> tuple[str | None, list[str]]:
    """A Claude tool-name matcher (``Read|Grep|Bash``) in the runtime's tool names."""
    if not claude:
        return None, []
    out: list[str] = []
    notes: list[str] = []
    for name in claude.split("|"):
        native = dialect.tools.get(name, name if not dialect.tools else None)
        if native is None:
            notes.append(f"hooks: {dialect.runtime} has no {name} tool: left out of a matcher")
            continue
        for part in native.split("|"):
            if part not in out:
                out.append(part)
    if not out:
        return None, notes
    joined = "|".join(out)
    return (f"^({joined})$" if dialect.anchored else joined), notes


def settings_hooks(
    ctx: Context,
    root: Path,
    settings: Path,
    hooks: tuple[HookSpec, ...],
    dialect: HookDialect,
    *,
    script_ref: Callable[[str], str],
    fmt: str = "json",
    schema: str | None = None,
    prefix: tuple[str, ...] = ("hooks",),
) -> tuple[list[ConfigEntry], list[str]]:
    """Claude-style ``hooks.<Event>[] = {matcher, hooks: [{type, command, timeout}]}`` entries
    (and ``statusLine`` where the runtime has it), with notes on what was left out.

    ``prefix``: the object holding the event arrays (Antigravity: a named group ``msd``)."""
    entries: list[ConfigEntry] = []
    notes: list[str] = []
    for hook in hooks:
        if not hook.event:
            continue
        if hook.name in dialect.unused:
            notes.append(f"hooks: {hook.name} not used: {dialect.unused[hook.name]}")
            continue
        needs = tuple(root / "hooks" / name for name in hook.scripts())
        command: dict[str, Any] = {
            "type": "command",
            "command": hook_command(ctx, script_ref(hook.script), dialect, hook.runner),
        }
        if hook.event == "statusLine":
            if dialect.status_line:
                entries.append(
                    ConfigEntry(
                        settings, fmt, MEMBER, dialect.status_line_in, command, key="statusLine",
                        policy=IF_ABSENT,
                        force=ctx.force_statusline, schema=schema,
                        label=f"statusLine {hook.name}", requires=needs,
                        marker=command["command"],
                    )
                )  # fmt: skip
            else:
                notes.append(f"hooks: {dialect.runtime} has no status line: {hook.name} not used")
            continue
        event = dialect.events.get(hook.event)
        if event is None:
            notes.append(
                f"hooks: {dialect.runtime} has no {hook.event} event: {hook.name} not used"
            )
            continue
        if dialect.named:
            command = {"name": hook.name, **command}
        if hook.timeout:
            command["timeout"] = hook.timeout * dialect.timeout_scale
        group: dict[str, Any] = {}
        if note := unmatched_when(hook, dialect.runtime, dialect.event_matchers):
            notes.append(note)
            continue
        if hook.when:
            group["matcher"] = hook.when
        match, more = matcher(hook.matcher, dialect)
        notes += more
        if hook.matcher and match is None:
            notes.append(f"hooks: {hook.name} matches no {dialect.runtime} tool: not used")
            continue
        if match:
            group["matcher"] = match
        if dialect.nested:
            group["hooks"] = [command]
        else:
            group.update((k, v) for k, v in command.items() if k != "type")
        entries.append(
            ConfigEntry(
                settings, fmt, ITEM, (*prefix, event), group, schema=schema,
                label=f"hook {hook.name}", requires=needs, marker=command["command"],
            )
        )  # fmt: skip
    return entries, notes


def hooks_off(
    label: str, settings: Path, path: tuple[str, ...], equals: Any, entries: list[ConfigEntry]
) -> tuple[Watch, ...]:
    """Say it when the user's settings switch off every hook: ours are installed (and removed
    again) all the same, but none of them, the secret-read guard included, runs meanwhile."""
    if not any(e.file == settings and e.path[:1] == ("hooks",) for e in entries):
        return ()
    setting = ".".join(path)
    note = (
        f"hooks: {setting} is {str(equals).lower()} in {settings.name}: {label} runs none of "
        "msd's hooks (the secret-read guard among them) until you change it"
    )
    return (Watch(settings, path, equals, note),)


def mcp_member(
    file: Path,
    server: dict[str, Any],
    marker: str,
    requires: Path,
    *,
    fmt: str = "json",
    path: tuple[str, ...] = ("mcpServers",),
    force: bool = False,
    schema: str | None = None,
) -> ConfigEntry:
    """Our server as the member ``msd`` of the runtime's server map."""
    return ConfigEntry(
        file, fmt, MEMBER, path, server, key="msd", policy=CONFLICT, force=force,
        schema=schema, label="MCP server msd", requires=(requires,), marker=marker,
    )  # fmt: skip


def skill_op(root: Path, folder: str, name: str, text: str) -> FileOp:
    """``<root>/<folder>/<name>/SKILL.md``."""
    return FileOp(root / folder / name / "SKILL.md", text.encode("utf-8"))


def stdio_server(ctx: Context, launcher: Path) -> dict[str, Any]:
    """The MCP server as most runtimes register it: ``{command, args, env}``."""
    return {"command": interpreter(ctx), "args": launcher_args(ctx, launcher)} | env_member(ctx)


def env_member(ctx: Context, key: str = "env") -> dict[str, Any]:
    """``{"env": {...}}`` where the server needs one (a global install), else nothing."""
    env = server_env(ctx)
    return {key: env} if env else {}


def hook_files(
    root: Path,
    hooks: tuple[HookSpec, ...],
    entries: list[ConfigEntry],
    text: Callable[[str], str] = lambda s: s,
) -> list[FileOp]:
    """The scripts the registered ``entries`` run, with their helpers (never a script nothing
    runs); ``text`` converts what their messages say (``/msd-x`` as the runtime's command)."""
    used = {req for entry in entries for req in entry.requires}
    return [
        FileOp(root / "hooks" / hook.script, text(hook.content.decode("utf-8")).encode(), 0o755)
        for hook in hooks
        if root / "hooks" / hook.script in used
    ]


def core_agents(
    root: Path, agents: tuple[Agent, ...], text: Callable[[str], str], folder: str = "msd-core"
) -> list[FileOp]:
    """``<folder>/agents/<name>.md`` for runtimes without agent files (``folder``: the
    payload's ``engine_dir``, so a pack's agents stay in the pack's folder): a heading, the
    agent's description and its converted instructions (``convert.instructions_spawn`` points
    there)."""
    return [
        FileOp(
            root / folder / "agents" / f"{agent.name}.md",
            f"# {agent.name}\n\n{agent.description}\n{text(agent.doc.body)}".encode(),
        )
        for agent in agents
    ]
