"""The MSD Core payload as the tests see it: the name contract, file loading and text scanners.

The name lists here are the contract shared by the two content writers and the msd-tools author
(commands, routers, workflows, agents, references, templates, msd-tools subcommands). The
scanners find every cross-reference in payload text (``@~/.claude/msd-core/...`` files,
``msd-tools`` calls, spawned agents, ``/msd-*`` slash mentions) and report the dangling ones, so
each check is a plain function that tests can also feed with crafted text.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

DATA = Path(__file__).resolve().parents[2] / "src" / "msd_install" / "payload" / "data"
CORE = DATA / "core"

COMMANDS: tuple[str, ...] = (
    "help",
    "new-project",
    "map-codebase",
    "discuss-phase",
    "plan-phase",
    "execute-phase",
    "verify-work",
    "progress",
    "quick",
    "debug",
    "pause-work",
    "resume-work",
    "add-phase",
    "insert-phase",
    "remove-phase",
    "new-milestone",
    "complete-milestone",
    "add-todo",
    "check-todos",
    "settings",
    "update",
    "reapply-patches",
)
# One workflow per command (help included).
WORKFLOWS: tuple[str, ...] = COMMANDS
ROUTERS: tuple[str, ...] = (
    "msd-workflow",
    "msd-project",
    "msd-quality",
    "msd-context",
    "msd-manage",
    "msd-ideate",
)
AGENTS: tuple[str, ...] = (
    "msd-project-researcher",
    "msd-research-synthesizer",
    "msd-roadmapper",
    "msd-phase-researcher",
    "msd-planner",
    "msd-plan-checker",
    "msd-executor",
    "msd-verifier",
    "msd-codebase-mapper",
    "msd-debugger",
)
REFERENCES: tuple[str, ...] = (
    "checkpoints.md",
    "gates.md",
    "verification-patterns.md",
    "git-integration.md",
    "tdd.md",
    "planning-config.md",
    "model-profiles.md",
    "questioning.md",
)
TEMPLATES: tuple[str, ...] = (
    "roadmap.md",
    "state.md",
    "config.json",
    "project.md",
    "requirements.md",
    "context.md",
    "research.md",
    "plan.md",
    "summary.md",
    "verification.md",
    "uat.md",
    "debug.md",
    "continue-here.md",
    "todo.md",
    "codebase/stack.md",
    "codebase/architecture.md",
    "codebase/structure.md",
    "codebase/conventions.md",
    "codebase/testing.md",
    "codebase/integrations.md",
    "codebase/concerns.md",
)

# msd-tools subcommands: the contract the msd-tools author implements. A value of None means
# the subcommand takes no action word; "init" takes a workflow name instead.
MSD_TOOLS: dict[str, frozenset[str] | None] = {
    "init": None,
    "state": frozenset({"load", "get", "update", "patch", "advance-plan"}),
    "roadmap": frozenset({"analyze", "get-phase"}),
    "phase": frozenset({"list", "add", "insert", "next", "complete"}),
    "config": frozenset({"get", "set"}),
    "frontmatter": frozenset({"get", "set", "validate"}),
    "template": frozenset({"fill"}),
    "verify": frozenset({"plan-structure", "phase-completeness"}),
    "progress": None,
    "commit": None,
    "todo": frozenset({"add", "list", "done"}),
}

CLAUDE_TOOLS = frozenset(
    {
        "Read",
        "Write",
        "Edit",
        "Bash",
        "Grep",
        "Glob",
        "WebSearch",
        "WebFetch",
        "Task",
        "Agent",
        "TodoWrite",
        "NotebookEdit",
        "Skill",
    }
)

# msd-* names that are neither commands, agents nor routers but legitimately appear in text.
INFRA_NAMES = frozenset(
    {
        "msd-tools",
        "msd-core",
        "msd-install",
        "msd-mcp",
        "msd-local-patches",
        "msd-file-manifest",
        "msd-update-check",
        "msd-ctx",
    }
)

# Line budgets per workflow; anything not listed gets the default tier.
WORKFLOW_DEFAULT_LINES = 1000
WORKFLOW_LINE_BUDGET: dict[str, int] = {
    "plan-phase": 1700,
    "execute-phase": 1700,
    "new-project": 1700,
}
AGENT_MAX_CHARS = 50_000


@dataclass(frozen=True)
class Finding:
    """One dangling reference: where it is and what is wrong."""

    where: str
    problem: str

    def __str__(self) -> str:
        return f"{self.where}: {self.problem}"


def split_frontmatter(text: str) -> tuple[str | None, str]:
    """Return (frontmatter YAML, body); the frontmatter sits between the first two ``---`` lines."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n") != "---":
        return None, text
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r\n") == "---":
            return "".join(lines[1:i]), "".join(lines[i + 1 :])
    return None, text


def load_frontmatter(path: Path) -> tuple[Any, str]:
    """Parse a Markdown file's frontmatter with ruamel.yaml (safe) and return it with the body."""
    raw, body = split_frontmatter(path.read_text(encoding="utf-8"))
    if raw is None:
        return None, body
    return YAML(typ="safe").load(io.StringIO(raw)), body


def command_path(name: str) -> Path:
    return DATA / "commands" / f"msd-{name}.md"


def workflow_path(name: str) -> Path:
    return CORE / "workflows" / f"{name}.md"


def router_path(name: str) -> Path:
    return DATA / "skills" / name / "SKILL.md"


def payload_files() -> list[Path]:
    """Every content file: commands, skills, agents, workflows, references, templates."""
    roots = [
        DATA / "commands",
        DATA / "skills",
        DATA / "agents",
        CORE / "workflows",
        CORE / "references",
        CORE / "templates",
    ]
    return sorted(p for root in roots if root.is_dir() for p in root.rglob("*") if p.is_file())


def rel(path: Path) -> str:
    return path.relative_to(DATA).as_posix()


def numbered_lines(text: str) -> Iterator[tuple[int, str]]:
    return enumerate(text.splitlines(), start=1)


# --- scanners -------------------------------------------------------------------------------

_CORE_REF = re.compile(r"~/\.claude/msd-core/([A-Za-z0-9_./-]*)")
# Written into <root>/msd-core/, not shipped in the payload: by the installer (the version
# stamp, the msdcore package the launchers import) or at run time by the hooks (cache/).
INSTALL_GENERATED = frozenset({"VERSION", "lib", "cache"})


def check_core_refs(where: str, text: str, core: Path = CORE) -> list[Finding]:
    """Every ``~/.claude/msd-core/<path>`` (``@`` or not) must name a payload file or dir."""
    found = []
    for no, line in numbered_lines(text):
        for m in _CORE_REF.finditer(line):
            target = m.group(1).rstrip(".,;:")
            if target.split("/")[0] in INSTALL_GENERATED:
                continue
            if not (core / target).exists():
                found.append(Finding(f"{where}:{no}", f"msd-core/{target} does not exist"))
    return found


# An invocation is the launcher path or an inline-code span starting with msd-tools, followed
# on the same line by its arguments (prose such as "`msd-tools` keeps state" is not a call).
_TOOLS_CALL = re.compile(r"(?:bin/msd-tools|`msd-tools)[ \t]+([^\n`]*)")
# A shell word: unquoted runs and quoted strings glued together (`--var k="a b"` is one word).
_TOKEN = re.compile(r"(?:[^\s\"']+|\"[^\"]*\"|'[^']*')+")
_PLACEHOLDER = re.compile(r"\{\{\s*([a-z0-9_]+)\s*\}\}")
# msd-tools fills `date` itself when it is not passed.
AUTOMATIC_VARS = frozenset({"date"})
_SHELL_STOP = frozenset({"|", "||", "&&", ";", ">", ">>", "2>&1", "2>/dev/null"})


def _is_placeholder(token: str) -> bool:
    return token == "" or token[0] in "<[{$" or token in {"...", "…"}


def _tokens(args: str) -> list[str]:
    out = []
    for raw in _TOKEN.findall(args):
        if raw in _SHELL_STOP:
            break
        out.append(raw.strip("\"'").rstrip(");"))
    while out and out[0].startswith("--cwd"):
        out = out[1:] if "=" in out[0] else out[2:]
    return out


def template_exists(name: str, core: Path = CORE) -> bool:
    """A template may be named with its file name (``plan.md``) or without ``.md``."""
    base = core / "templates"
    return (base / name).is_file() or (base / f"{name}.md").is_file()


def template_vars(name: str, core: Path = CORE) -> frozenset[str]:
    base = core / "templates"
    path = base / name if (base / name).is_file() else base / f"{name}.md"
    return frozenset(_PLACEHOLDER.findall(path.read_text(encoding="utf-8")))


def check_template_vars(name: str, args: list[str], core: Path = CORE) -> str | None:
    """`--var` keys must be placeholders of the template; a real call (with --out or --var)
    must give every placeholder except the automatic ones."""
    given = {args[i + 1].split("=", 1)[0] for i, a in enumerate(args[:-1]) if a == "--var"}
    wanted = template_vars(name, core)
    unknown = sorted(given - wanted)
    if unknown:
        return f"template {name!r} has no placeholder for {unknown}"
    missing = sorted(wanted - given - AUTOMATIC_VARS)
    if missing and ("--out" in args or given):
        return f"template {name!r} call misses --var for {missing}"
    return None


def check_tools_args(tokens: list[str], core: Path = CORE) -> str | None:
    """Return the problem with one msd-tools call's arguments, or None if it is in the contract."""
    if not tokens or _is_placeholder(tokens[0]):
        return None
    sub = tokens[0]
    if sub not in MSD_TOOLS:
        return f"unknown msd-tools subcommand {sub!r}"
    actions = MSD_TOOLS[sub]
    arg = tokens[1] if len(tokens) > 1 else ""
    if sub == "init":
        if not arg:
            return "msd-tools init needs a workflow name"
        if not _is_placeholder(arg) and arg not in WORKFLOWS:
            return f"msd-tools init names unknown workflow {arg!r}"
        return None
    if actions is None:
        return None
    if not arg:
        return f"msd-tools {sub} needs one of {sorted(actions)}"
    if _is_placeholder(arg):
        return None
    if arg not in actions:
        return f"unknown msd-tools action {sub} {arg!r}"
    if sub != "template":
        return None
    if len(tokens) < 3:
        return "msd-tools template fill needs a template name"
    if _is_placeholder(tokens[2]):
        return None
    if not template_exists(tokens[2], core):
        return f"template {tokens[2]!r} does not exist"
    return check_template_vars(tokens[2], tokens[3:], core)


def joined_lines(text: str) -> list[tuple[int, str]]:
    """Lines numbered from 1, with shell continuations (trailing backslash) joined."""
    out: list[tuple[int, str]] = []
    pending: tuple[int, str] | None = None
    for no, line in numbered_lines(text):
        if pending is not None:
            no, line = pending[0], pending[1] + " " + line.lstrip()
            pending = None
        if line.endswith("\\"):
            pending = (no, line[:-1])
        else:
            out.append((no, line))
    if pending is not None:
        out.append(pending)
    return out


def check_tools_calls(where: str, text: str, core: Path = CORE) -> list[Finding]:
    found = []
    for no, line in joined_lines(text):
        for m in _TOOLS_CALL.finditer(line):
            problem = check_tools_args(_tokens(m.group(1)), core)
            if problem:
                found.append(Finding(f"{where}:{no}", problem))
    return found


_NAME = r"msd-[a-z0-9]+(?:-[a-z0-9]+)*"
_QUANT = r"(?:(?:an?|the|one|two|three|four|\d+|parallel|another|fresh|new|up\s+to)\s+)*"
_AGENT_MENTIONS = (
    re.compile(rf"subagent_type\s*[:=]\s*[\"'`]?({_NAME})"),
    re.compile(rf"\b[Ss]pawn(?:s|ed|ing)?\s+{_QUANT}[`\"']?({_NAME})"),
    re.compile(rf"`({_NAME})`\s+(?:sub)?agents?\b"),
)


def check_agent_mentions(where: str, text: str, agents_dir: Path) -> list[Finding]:
    """Wherever an agent is meant (subagent_type, "spawn msd-x", "`msd-x` agent") it must exist."""
    found = []
    for no, line in numbered_lines(text):
        for pattern in _AGENT_MENTIONS:
            for m in pattern.finditer(line):
                name = m.group(1)
                if not (agents_dir / f"{name}.md").is_file():
                    found.append(Finding(f"{where}:{no}", f"agent {name} does not exist"))
    return found


_SLASH = re.compile(rf"(?<![\w.~/-])/({_NAME})")


def check_slash_mentions(where: str, text: str, commands_dir: Path) -> list[Finding]:
    """Every ``/msd-x`` slash mention must be an installed command."""
    found = []
    for no, line in numbered_lines(text):
        for m in _SLASH.finditer(line):
            if not (commands_dir / f"{m.group(1)}.md").is_file():
                found.append(Finding(f"{where}:{no}", f"/{m.group(1)} is not a command"))
    return found


_ANY_NAME = re.compile(rf"(?<![\w-])({_NAME})(?![\w])")


def known_names(hooks_dir: Path) -> frozenset[str]:
    hooks = {p.stem for p in hooks_dir.glob("msd-*.py")} if hooks_dir.is_dir() else set()
    return frozenset(
        {f"msd-{c}" for c in COMMANDS} | set(AGENTS) | set(ROUTERS) | INFRA_NAMES | hooks
    )


def check_vocabulary(where: str, text: str, vocabulary: frozenset[str]) -> list[Finding]:
    """Every ``msd-*`` word is a command, agent, router, hook or piece of infrastructure."""
    found = []
    for no, line in numbered_lines(text):
        for m in _ANY_NAME.finditer(line):
            if m.group(1) not in vocabulary:
                found.append(Finding(f"{where}:{no}", f"unknown name {m.group(1)}"))
    return found
