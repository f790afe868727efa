"""A pack's hooks: ``hooks/hooks.json`` in the Claude Code plugin format, as ``HookSpec``s.

The format (code.claude.com/docs/en/plugins-reference, "Hooks")::

    {"hooks": {"PreToolUse": [{"matcher": "Bash|Edit",
                               "hooks": [{"type": "command", "timeout": 10,
                                          "command": "${CLAUDE_PLUGIN_ROOT}/hooks/guard.py"}]}]}}

A command is ``[interpreter] ${CLAUDE_PLUGIN_ROOT}/<file of the pack>``: the interpreter one
of ``RUNNERS`` or, when absent, told by the file's extension (``.py``: ``python3``; ``.sh``:
bash; ``.js``: node). A pack's Python hook runs as ``python3 <script>`` (``python`` when
registered so; a global install names the interpreter it resolved, as for msd's hooks), never
with the ``-I -S`` of msd's own hooks: it is the pack's code, which may import from
site-packages, ``PYTHONPATH`` or the folder beside it (``runtimes/shapes._run_with``).

The whole ``hooks/`` tree is installed as ``hooks/<pack>/`` with every relative path kept
(``hooks/lib/common.sh`` -> ``hooks/<pack>/lib/common.sh``), so that a script finds its
helpers beside it as its author wrote (``$(dirname "$0")/lib/common.sh``,
``require('./lib')``, an import of ``helper.py``). Every registration becomes one
``HookSpec``, which the runtimes' existing hook machinery registers in their own dialect.
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex
from typing import Any

from . import HookSpec
from .packfiles import PackFiles

REGISTRY = "hooks/hooks.json"
# the events whose matcher names tools (Claude Code's hooks reference); other events' matchers
# (SessionStart's "startup|resume") are not tool names: ``HookSpec.when``
TOOL_EVENTS = (
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied"
)  # fmt: skip
# each registration is an entry in the runtime's config and runs on its event: a real pack
# has a handful; this bounds what one hooks.json (up to 1 MiB) can make msd plan and write
MAX_HOOKS = 100
RUNNERS = {"python": "python", "python3": "python3", "bash": "bash", "sh": "sh", "node": "node"}
BY_EXTENSION = {".py": "python3", ".sh": "bash", ".bash": "bash", ".js": "node", ".mjs": "node",
                ".cjs": "node"}  # fmt: skip
PLUGIN_ROOT = re.compile(r"^\$(\{CLAUDE_PLUGIN_ROOT\}|CLAUDE_PLUGIN_ROOT)/")
_TOOL = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_MCP = re.compile(r"mcp__[A-Za-z0-9_-]+(__[A-Za-z0-9_.*-]+)?")


def pack_hooks(
    pack: str, found: PackFiles, tools: frozenset[str], known: frozenset[str]
) -> tuple[HookSpec, ...]:
    """The pack's hook registrations (problems go to ``found.problems``); ``known``: the
    Claude event names some runtime has (``runtimes.packs``): any other is a typo."""
    if REGISTRY not in found.files:
        return ()
    text = found.text(REGISTRY)
    if text is None:
        return ()
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError) as exc:  # nested too deep for the parser
        why = exc if isinstance(exc, ValueError) else "nested too deeply"
        found.problems.append(f"{REGISTRY}: is not valid JSON ({why})")
        return ()
    events = doc.get("hooks") if isinstance(doc, dict) else None
    if not isinstance(events, dict):
        found.problems.append(f'{REGISTRY}: has no "hooks" object (Claude plugin hooks format)')
        return ()
    regs: list[tuple[str, str | None, int | None, str, str]] = []
    for event, groups in events.items():
        if event not in known:
            found.problems.append(f"{REGISTRY}: unknown event {event!r} (no runtime has it)")
            continue
        if not isinstance(groups, list):
            found.problems.append(f"{REGISTRY}: {event} is not a list of matcher groups")
            continue
        for n, group in enumerate(groups, 1):
            regs += _group(found, event, f"{event}[{n}]", group, tools)
            if len(regs) > MAX_HOOKS:
                found.problems.append(
                    f"{REGISTRY}: more than {MAX_HOOKS} hook commands (a pack's limit)"
                )
                return ()
    scripts = sorted({rel for *_, rel, _runner in regs})
    installed = {rel: _installed(pack, rel) for rel in scripts}
    helper_rels = [r for r in found.under("hooks") if r != REGISTRY and r not in installed]
    helpers = tuple(_installed(pack, rel) for rel in helper_rels)
    landing: dict[str, str] = {}  # a registered script outside hooks/ lands there too
    for rel in [*scripts, *helper_rels]:
        other = landing.setdefault(_installed(pack, rel), rel)
        if other != rel:
            found.problems.append(
                f"{rel}: installs as hooks/{_installed(pack, rel)}, as {other} does: rename one"
            )
    specs: list[HookSpec] = []
    names: set[str] = set()
    for event, match, timeout, rel, runner in regs:
        name = f"{pack}-{posixpath.splitext(_flat(rel))[0]}"
        if name in names:
            name = f"{name}-{event.lower()}"
        while name in names:
            name += "-x"
        names.add(name)
        tool, when = (match, None) if event in TOOL_EVENTS else (None, match)
        specs.append(
            HookSpec(
                name, installed[rel], event, tool, timeout, found.files[rel], helpers, runner,
                source=rel, when=when,
            )
        )  # fmt: skip
    for helper, rel in zip(helpers, helper_rels, strict=True):  # never registered, only needed
        specs.append(
            HookSpec(
                helper, helper, None, None, None, found.files[rel], source=rel,
                executable=found.executable(rel),
            )
        )  # fmt: skip
    return tuple(specs)


def _installed(pack: str, rel: str) -> str:
    """``hooks/lint/check.sh`` -> ``<pack>/lint/check.sh``: where it lands under ``hooks/``."""
    return f"{pack}/{rel.removeprefix('hooks/')}"


def _flat(rel: str) -> str:
    """``hooks/lint/check.sh`` -> ``lint-check.sh`` (the hook's name after ``<pack>-``)."""
    return rel.removeprefix("hooks/").replace("/", "-")


def _group(
    found: PackFiles, event: str, where: str, group: Any, tools: frozenset[str]
) -> list[tuple[str, str | None, int | None, str, str]]:
    at = f"{REGISTRY}: {where}"
    if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
        found.problems.append(f'{at}: is not {{"matcher": ..., "hooks": [...]}}')
        return []
    match = _matcher(found, at, group.get("matcher"), event, tools)
    out = []
    for n, hook in enumerate(group["hooks"], 1):
        here = f"{at}.hooks[{n}]"
        if not isinstance(hook, dict) or hook.get("type") != "command":
            found.problems.append(f'{here}: only {{"type": "command", ...}} hooks are supported')
            continue
        timeout = hook.get("timeout")
        if timeout is not None and (type(timeout) is not int or not 1 <= timeout <= 3600):
            found.problems.append(f"{here}: timeout must be whole seconds from 1 to 3600")
            continue
        command = _command(found, here, hook.get("command"))
        if command is not None:
            out.append((event, match, timeout, *command))
            if len(out) > MAX_HOOKS:  # over the limit already (``pack_hooks``)
                break
    return out


def _matcher(
    found: PackFiles, at: str, value: Any, event: str, tools: frozenset[str]
) -> str | None:
    if value is None or value in ("", "*"):
        return None
    if not isinstance(value, str):
        found.problems.append(f"{at}: matcher is not a string")
        return None
    if event not in TOOL_EVENTS:
        return value  # SessionStart's "startup|resume" and the like: kept as they are
    for name in value.split("|"):
        if _MCP.fullmatch(name):
            continue
        if not _TOOL.fullmatch(name):
            found.problems.append(
                f"{at}: matcher {value!r} is not a list of tool names (Read|Bash|mcp__x__y)"
            )
            return None
        if name not in tools:
            found.problems.append(f"{at}: matcher names unknown tool {name!r}")
    return value


def _command(found: PackFiles, at: str, value: Any) -> tuple[str, str] | None:
    """(the script's path in the pack, its runner), or None with a problem."""
    if not isinstance(value, str) or not value.strip():
        found.problems.append(f"{at}: has no command")
        return None
    try:
        words = shlex.split(value)
    except ValueError as exc:
        found.problems.append(f"{at}: command cannot be split into words ({exc})")
        return None
    runner: str | None = None
    if len(words) == 2 and words[0] in RUNNERS:
        runner = RUNNERS[words[0]]
        words = words[1:]
    if len(words) != 1 or not PLUGIN_ROOT.match(words[0]):
        found.problems.append(
            f"{at}: command must be [{'|'.join(RUNNERS)}] ${{CLAUDE_PLUGIN_ROOT}}/<file>, "
            f"got {value!r}"
        )
        return None
    rel = posixpath.normpath(PLUGIN_ROOT.sub("", words[0]))
    if rel.startswith("../") or rel in ("..", ".") or rel.startswith("/"):
        found.problems.append(f"{at}: command leaves the pack: {value!r}")
        return None
    if rel not in found.files:
        found.problems.append(f"{at}: runs {rel}, which is not a file of the pack")
        return None
    if rel == REGISTRY or rel.startswith(("commands/", "agents/", "skills/")):
        found.problems.append(f"{at}: runs {rel}, which is not a script")
        return None
    if runner is None:
        ext = posixpath.splitext(rel)[1]
        if ext not in BY_EXTENSION:
            found.problems.append(
                f"{at}: cannot tell the language of {rel}: put the interpreter before it "
                f"({', '.join(RUNNERS)})"
            )
            return None
        runner = BY_EXTENSION[ext]
    if found.text(rel) is None:
        return None
    return rel, runner
