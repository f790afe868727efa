"""Content conversion from the payload's Claude vocabulary into one runtime's own terms.

The payload is written for Claude Code. Every other runtime module declares a ``Dialect``: pure
data (a tool-name table, a model table, its argument placeholder, how a workflow spawns an
agent, how a user invokes a command, which context file it reads). ``convert_text`` applies it
to any Markdown text (commands, skills, agents, workflows, references), and the frontmatter
helpers convert the fields that differ. Nothing is dropped silently: every tool, model or field
without an equivalent becomes a ``note`` that the adapter puts in its plan (and so in the
install report).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from ..payload import PLACEHOLDER_ROOT
from .literals import Literals


@dataclass(frozen=True)
class Spawn:
    """One ``Task(subagent_type=..., model=..., description=..., prompt=...)`` call."""

    agent: str
    description: str
    prompt: str
    model: str  # the payload's model expression ("<init JSON models.msd-planner>") or ""


def claude_spawn(spawn: Spawn) -> str:
    """The payload's own form (Claude Code's Task tool)."""
    model = f'  model="{spawn.model}",\n' if spawn.model else ""
    return (
        f'Task(\n  subagent_type="{spawn.agent}",\n{model}'
        f'  description="{spawn.description}",\n  prompt="{spawn.prompt}"\n)'
    )


def instructions_spawn(ref: str, how: str, folder: str = "msd-core") -> Callable[[Spawn], str]:
    """A spawn for runtimes without agent files: the agent's instructions live in
    ``<ref><folder>/agents/<agent>.md`` (``folder``: the payload's ``engine_dir``, a pack's
    own folder for its agents); ``how`` says how this runtime runs the step (a subagent it
    starts, or the agent itself in the same conversation)."""

    def render(spawn: Spawn) -> str:
        step = f'Step "{spawn.description}": ' if spawn.description else ""
        return (
            f"{step}{how.format(agent=spawn.agent)}.\n"
            f"  instructions: read {ref}{folder}/agents/{spawn.agent}.md and follow it exactly\n"
            f'  task: "{spawn.prompt}"'
        )

    return render


@dataclass(frozen=True)
class Dialect:
    runtime: str  # the runtime's label, for notes ("Gemini CLI")
    # Claude tool name -> the runtime's name; None: no equivalent (dropped with a note)
    tools: Mapping[str, str | None]
    # Claude model tier (opus/sonnet/haiku/inherit) -> the runtime's value; None: leave the
    # runtime's default model (the field is dropped, with a note)
    models: Mapping[str, str | None] = field(default_factory=dict)
    args: str = "$ARGUMENTS"  # the placeholder the runtime substitutes in a command
    spawn: Callable[[Spawn], str] = claude_spawn  # how a workflow starts an agent
    invoke: Callable[[str], str] = lambda name: f"/{name}"  # how the user runs command ``name``
    file_ref: Callable[[str], str] = lambda path: f"@{path}"  # an ``@path`` file reference
    context_file: str = "AGENTS.md"  # what ``CLAUDE.md`` becomes
    project_dir: str = "the project directory"  # what ``$CLAUDE_PROJECT_DIR`` becomes
    words: tuple[tuple[str, str], ...] = ()  # further literal rewrites, applied last
    flag: str = "claude"  # the runtime's msd-install flag (``--claude`` in the payload)


# rewrites every runtime but Claude Code needs (the payload speaks of Claude as the agent)
NOT_CLAUDE_WORDS = (("Claude's discretion", "the agent's discretion"),)


CLAUDE_ONLY_TOOLS = (
    "Read",
    "Write",
    "Edit",
    "MultiEdit",
    "Bash",
    "Glob",
    "Grep",
    "Task",
    "WebFetch",
    "WebSearch",
    "TodoWrite",
    "AskUserQuestion",
    "NotebookEdit",
    "Skill",
)

# Task( ... ) with keyword arguments, as the payload's workflows write it (inside ``` fences)
_TASK = re.compile(r"Task\((?<!\wTask\()\s*\n(?P<body>(?:[^\n]*\n){1,80}?)\s*\)", re.M)
_FIELD = re.compile(
    r'(?P<key>subagent_type|model|description|prompt)="(?P<value>.*?)"(?=,?\s*$)', re.S | re.M
)
_INLINE_TASK = re.compile(r'Task\((?<!\wTask\()(?P<body>(?:\s*\w+="[^"\n]*",?)+)\s*\)')
_INLINE_FIELD = re.compile(r'(?P<key>\w+)="(?P<value>[^"\n]*)"')
# the path ends before sentence punctuation: "see @x/tdd.md: first" names x/tdd.md. Each
# pattern starts with its literal ("@", "/msd-", "Task(") and checks what precedes it right
# after it (``(?<![\w@`]@)`` is ``(?<![\w@`])@``): the regex engine then jumps from one "@"
# to the next instead of trying a lookbehind at every character (~30x faster; the same
# matches: tests/runtimes/test_convert_patterns.py)
_FILE_REF = re.compile(
    r"@(?<![\w@`]@)(?P<path>(?:~/|\.{1,2}/|/|\.[A-Za-z])[^\s)\]`'\"<>,;]*[^\s)\]`'\"<>,;.:])"
)
_INVOKE = re.compile(r"/(?P<name>msd-(?<![\w/.~-]/msd-)[a-z][a-z0-9-]*)\b")


def spawns(text: str) -> list[tuple[int, int, Spawn]]:
    """Every Task(...) call in ``text``: (start, end, parsed call)."""
    found: list[tuple[int, int, Spawn]] = []
    # both patterns need "Task("; most files have none (a missing "(" is found ~10x faster)
    if "(" not in text or "Task(" not in text:
        return found
    matches = [(m, _FIELD) for m in _TASK.finditer(text)]
    matches += [(m, _INLINE_FIELD) for m in _INLINE_TASK.finditer(text)]
    for match, field_re in sorted(matches, key=lambda pair: pair[0].start()):
        fields = {m.group("key"): m.group("value") for m in field_re.finditer(match.group("body"))}
        if "subagent_type" not in fields or "prompt" not in fields:
            continue
        if found and match.start() < found[-1][1]:
            continue
        found.append(
            (
                match.start(),
                match.end(),
                Spawn(
                    fields["subagent_type"],
                    fields.get("description", ""),
                    fields["prompt"],
                    fields.get("model", ""),
                ),
            )
        )
    return found


def convert_text(text: str, dialect: Dialect, ref: str, commands: Iterable[str] = ()) -> str:
    """The payload text in the runtime's terms (``ref``: how the text names the install root)."""
    if dialect.spawn is not claude_spawn:
        out: list[str] = []
        pos = 0
        for start, end, spawn in spawns(text):
            out += [text[pos:start], dialect.spawn(spawn)]
            pos = end
        out.append(text[pos:])
        text = "".join(out)
    chain = _literals(dialect, ref)
    known: dict[str, bool] = {}  # needle -> absent from the text as it is now
    text = chain.run(text, 0, 1, known)  # PLACEHOLDER_ROOT
    if "@" in text:
        changed = _FILE_REF.sub(lambda m: dialect.file_ref(m.group("path")), text)
        if changed != text:  # may hold any needle: found again where needed
            text = changed
            known.clear()
    text = chain.run(text, 1, 2, known)  # $ARGUMENTS
    changed = convert_invocations(text, dialect, commands)
    if changed != text:
        text = changed
        known.clear()
    return chain.run(text, 2, len(chain), known)


def literal_pairs(dialect: Dialect, ref: str) -> list[tuple[str, str]]:
    """The literal rewrites of ``convert_text`` in their order: the root, ``$ARGUMENTS`` (the
    ``@path`` references come between them), then, after the ``/msd-x`` invocations, the rest
    (``tests/runtimes/test_convert_fast.py`` keeps the plain chain of replaces as reference)."""
    pairs = [
        (PLACEHOLDER_ROOT, ref),
        ("$ARGUMENTS", dialect.args),
        ("$CLAUDE_PROJECT_DIR", dialect.project_dir),
    ]
    if dialect.context_file != "CLAUDE.md":
        pairs.append(("CLAUDE.md", dialect.context_file))
        # "`./CLAUDE.md` or `AGENTS.md`" must not become "`./AGENTS.md` or `AGENTS.md`"
        same = f"`./{dialect.context_file}` or `{dialect.context_file}`"
        pairs.append((same, f"`{dialect.context_file}`"))
    if dialect.flag != "claude":
        pairs.append(("--claude", f"--{dialect.flag}"))
        pairs += NOT_CLAUDE_WORDS
    pairs += dialect.words
    return pairs


# (dialect, ref) -> its compiled chain; keyed by identity (a Dialect holds functions and
# dicts), the dialect kept alive with its entry so that its id cannot be reused meanwhile
_CHAINS: dict[tuple[int, str], tuple[Dialect, Literals]] = {}
# the same chain for a dialect built again (some adapters build theirs for each plan)
_COMPILED: dict[tuple[tuple[str, str], ...], Literals] = {}


def _literals(dialect: Dialect, ref: str) -> Literals:
    entry = _CHAINS.get((id(dialect), ref))
    if entry is not None and entry[0] is dialect:
        return entry[1]
    if len(_CHAINS) >= 64:
        _CHAINS.clear()
        _COMPILED.clear()
    pairs = tuple(literal_pairs(dialect, ref))
    chain = _COMPILED.get(pairs)
    if chain is None:
        chain = _COMPILED[pairs] = Literals(pairs)
    _CHAINS[(id(dialect), ref)] = (dialect, chain)
    return chain


_LAST_NAMES: list[tuple[object, int, frozenset[str]]] = []


def _name_set(commands: Iterable[str]) -> frozenset[str] | set[str]:
    """``commands`` as a set, built once per list: adapters pass the same list of every
    command name for each of their files, and rebuilding it per file made an install
    quadratic in the number of commands."""
    if isinstance(commands, (set, frozenset)):
        return commands
    if isinstance(commands, (list, tuple)):
        for owner, size, names in _LAST_NAMES:
            if owner is commands and size == len(commands):
                return names
        names = frozenset(commands)
        _LAST_NAMES[:] = [(commands, len(commands), names), *_LAST_NAMES[:3]]
        return names
    return set(commands)


def convert_invocations(text: str, dialect: Dialect, commands: Iterable[str]) -> str:
    """``/msd-x`` (one of ``commands``) as the runtime's user invocation; nothing else changes,
    so it is safe on any text, hook scripts' messages included."""
    if "/" not in text or "/msd-" not in text:  # what _INVOKE needs (a "/" is found fastest)
        return text
    names = _name_set(commands)
    return _INVOKE.sub(
        lambda m: dialect.invoke(m.group("name")) if m.group("name") in names else m.group(0),
        text,
    )


def convert_tools(
    names: Iterable[str], dialect: Dialect, where: str
) -> tuple[list[str], list[str]]:
    """Tool names in the runtime's vocabulary, and a note for each that has no equivalent."""
    out: list[str] = []
    notes: list[str] = []
    for name in names:
        if name not in dialect.tools:
            notes.append(f"{where}: tool {name!r} is not in the {dialect.runtime} table: dropped")
            continue
        native = dialect.tools[name]
        if native is None:
            notes.append(
                f"{where}: {dialect.runtime} has no equivalent of the {name} tool: dropped"
            )
        elif native not in out:
            out.append(native)
    return out, notes


def convert_model(tier: object, dialect: Dialect, where: str) -> tuple[str | None, list[str]]:
    """The runtime's model for a Claude tier, or None (the runtime's default) with a note."""
    if not isinstance(tier, str) or not tier:
        return None, []
    if tier in dialect.models and dialect.models[tier] is not None:
        return dialect.models[tier], []
    return None, [
        f"{where}: model {tier!r} is a Claude model tier: {dialect.runtime} uses its default model"
    ]


def summarize(notes: Iterable[str], limit: int = 12) -> tuple[str, ...]:
    """Notes deduplicated; repeats of the same message about many files are folded."""
    seen: dict[str, list[str]] = {}
    for note in notes:
        where, _, what = note.partition(": ")
        seen.setdefault(what or note, []).append(where)
    lines = []
    for what, wheres in seen.items():
        if len(wheres) == 1:
            lines.append(f"{wheres[0]}: {what}")
        else:
            lines.append(f"{what} ({len(wheres)} files, e.g. {wheres[0]})")
    return tuple(lines[:limit]) + (
        (f"... and {len(lines) - limit} more notes",) if len(lines) > limit else ()
    )
