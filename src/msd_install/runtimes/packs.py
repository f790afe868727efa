"""A pack (``--payload DIR``) through the runtimes' own adapters, in its own namespace.

No adapter knows about packs: each plans the pack's ``Payload`` as it plans MSD Core's. What
comes back is narrowed here to what is the pack's own: the files whose path names the pack
(``<pack>-x`` or the folder ``<pack>/``), the config entries that run one of those files (its
hooks). What an adapter adds for *every* payload (MSD Core's shared files such as a hook
dispatcher, the MCP server, caches) stays MSD Core's alone and is left out with a note, so
that uninstalling either never takes the other's. The plan carries the pack's name as its
namespace: the engine keeps its manifest as ``msd-file-manifest.<pack>.json``.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable
from dataclasses import replace
from functools import cache
from pathlib import Path

from ..installer.claims import refuse_claimed
from ..installer.context import Context
from ..installer.plan import MEMBER, ConfigEntry, FileOp, Plan
from ..payload import Payload, Skill
from ..payload.pack import MAX_WARNINGS, load_pack
from ._base import Adapter, rewrite, root_ref
from .adapters import ADAPTERS
from .bounds import core_bounds
from .convert import CLAUDE_ONLY_TOOLS

# the Claude Code tool names a pack may use in ``tools:``, ``allowed-tools:`` and hook matchers
# (the tables of convert.py and the runtimes translate these)
KNOWN_TOOLS = frozenset(
    (
        *CLAUDE_ONLY_TOOLS, "Agent", "LS", "NotebookRead", "BashOutput", "KillShell",
        "KillBash", "ExitPlanMode", "SlashCommand",
    )
)  # fmt: skip


@cache
def known_events() -> frozenset[str]:
    """Every hook event some runtime has (Claude's names): a pack's hook on another is a
    typo, refused; on one a runtime lacks, it is reported for that runtime."""
    return frozenset(e for name in ADAPTERS for e in ADAPTERS[name].hook_events)


def read_pack(directory: Path) -> Payload:
    """The pack in ``directory``, validated (``PackError`` lists every problem)."""
    return load_pack(directory, KNOWN_TOOLS, known_events())


def pack_plan(adapter: Adapter, ctx: Context, pack: Payload) -> Plan:
    """What ``adapter`` installs of ``pack``: its own files and hook entries only."""
    plan = adapter.plan(ctx, pack)
    root = plan.root
    files: dict[Path, FileOp] = {}
    # what an adapter says about MSD Core's own parts (its hooks, server, engine) is not news
    notes = [f"pack {pack.namespace}: recorded in its own msd-file-manifest.{pack.namespace}.json"]
    notes += [n for n in plan.notes if "msd" not in n and not _NO_EVENT.match(n)]
    notes += _hook_notes(adapter, pack)
    notes += [f"pack {pack.namespace}: warning: {n}" for n in pack.notes]
    for op in plan.files:
        if _is_packs(op.path, root, pack.namespace):
            files.setdefault(op.path, op)
        else:
            notes.append(f"{_rel(op.path, root)}: shared with MSD Core, not installed with a pack")
    ref = root_ref(ctx, root)
    for skill in pack.skills:
        for op in _skill_files(skill, files, root, pack.namespace, ref):
            files.setdefault(op.path, op)
    for hook in pack.hooks:  # adapters write hook files 0755: a pack's data helper is 0644
        at = root / "hooks" / hook.script
        if not hook.executable and at in files:
            files[at] = replace(files[at], mode=0o644)
    place = _landing(pack, files, root)
    for path, op in files.items():
        op = _placed(op, place, ref, pack.namespace, lambda p: root_ref(ctx, p))
        files[path] = _unquoted_tilde(op, ref, ctx.home)
    entries = []
    for entry in plan.entries:
        if _entry_is_packs(entry, files, root, pack.namespace):
            entries.append(entry)
        else:
            notes.append(f"{entry.label or entry.ident}: not the pack's own entry: left out")
    return replace(
        plan,
        files=tuple(files.values()),
        entries=tuple(entries),
        dirs=(),
        state_files=(),
        notes=tuple(notes),
        # MSD Core's config files are a pack's bounds too: it adds to them, never to others
        config_names=(*plan.config_names, *core_bounds(adapter, ctx).config_files),
        namespace=pack.namespace,
    )


def refuse_claims(adapters: list[Adapter], ctx: Context, pack: Payload) -> None:
    """Refuse (``UsageError``) when ``pack`` would install, in any of these runtimes, a path
    another manifest of that root lists: all roots are checked before the first is written
    (the engine checks its own root again, under the lock)."""
    for adapter in adapters:
        refuse_claimed(pack_plan(adapter, ctx, pack))


def _entry_is_packs(entry: ConfigEntry, files: dict[Path, FileOp], root: Path, pack: str) -> bool:
    """An entry that runs the pack's files (a hook), names its folder (Gemini's
    ``includeDirectories``), or is structure without a marker (the ``version`` of a hooks
    file, shared with MSD Core: ``installer/handover.py``)."""
    if entry.requires:
        return all(p in files for p in entry.requires)
    if entry.marker:
        return Path(entry.marker).is_absolute() and _is_packs(Path(entry.marker), root, pack)
    return entry.kind == MEMBER and entry.key != "msd"


def _is_packs(path: Path, root: Path, pack: str) -> bool:
    base = Path(os.path.commonpath([path, root]))
    parts = path.parts[len(base.parts) :]
    return any(p == pack or p.startswith(f"{pack}-") for p in parts)


def _skill_files(
    skill: Skill, files: dict[Path, FileOp], root: Path, pack: str, ref: str
) -> list[FileOp]:
    """A skill's further files, beside its SKILL.md wherever the adapter put it; under
    ``<root>/<pack>/skills/<name>/`` where the runtime has no skill folders."""
    homes = [p.parent for p in files if p.name == "SKILL.md" and p.parent.name == skill.name]
    homes = homes or [root / pack / "skills" / skill.name]
    out = []
    for home in homes:
        for item in skill.files:
            content = item.content
            if item.is_text:
                content = rewrite(content.decode("utf-8", "replace"), ref).encode("utf-8")
            out.append(FileOp(home / item.relpath, content, 0o755 if item.executable else 0o644))
    return out


# the files whose text names paths (the pack's Markdown and data text, converted)
TEXT = (".md", ".json", ".txt", ".toml", ".yaml", ".yml")
# an adapter's own note on an event it lacks (``shapes.settings_hooks``): said by
# ``_hook_notes`` instead, naming the pack's file
_NO_EVENT = re.compile(r"hooks: .* has no \w+ event: ")
_PLUGIN_ROOT = re.compile(r"\bCLAUDE_PLUGIN_ROOT\b")


def _hook_notes(adapter: Adapter, pack: Payload) -> list[str]:
    """A note per pack hook on an event this runtime does not have (not registered), and per
    hook file that uses ``${CLAUDE_PLUGIN_ROOT}`` itself: no runtime sets it for the hook (it
    names the pack's folder only in the pack's text, which msd rewrites)."""
    notes = []
    for hook in pack.hooks:
        where = hook.source or f"hooks/{hook.script}"
        if hook.event and not adapter.hook_events.get(hook.event):
            notes.append(
                f"pack {pack.namespace}: {where} not registered: {adapter.label} has no "
                f"{hook.event} hook event"
            )
    using = [
        hook
        for hook in {h.script: h for h in pack.hooks}.values()
        if _PLUGIN_ROOT.search(hook.content.decode("utf-8", "replace"))
    ]
    for hook in using[:MAX_WARNINGS]:  # as many as the pack's other warnings, the rest counted
        notes.append(
            f"pack {pack.namespace}: warning: {hook.source or hook.script} uses "
            "${CLAUDE_PLUGIN_ROOT}, which is not set when the runtime runs it: find the "
            "pack's files from the script's own folder instead"
        )
    if len(using) > MAX_WARNINGS:
        notes.append(
            f"pack {pack.namespace}: and {len(using) - MAX_WARNINGS} more scripts using "
            "${CLAUDE_PLUGIN_ROOT}, not shown"
        )
    return notes


def _landing(pack: Payload, files: dict[Path, FileOp], root: Path) -> dict[str, Path]:
    """Where the pack's own paths (``skills/lint/reference.md``, ``hooks/lib/common.sh``, a
    folder of them) land in this runtime, as the plan put them: a skill's files beside its
    SKILL.md, the ``hooks/`` tree as ``hooks/<pack>/`` (every path in it kept); every other
    path of the pack is an engine file under ``<root>/<pack>/`` (the default, not listed)."""
    place: dict[str, Path] = {}
    for skill in pack.skills:
        folder = skill.doc.relpath.rsplit("/", 1)[0]  # skills/<name as the pack has it>
        homes = [p.parent for p in files if p.name == "SKILL.md" and p.parent.name == skill.name]
        home = homes[0] if homes else root / pack.namespace / "skills" / skill.name
        place[folder] = home
    for hook in pack.hooks:
        if hook.source:
            place[hook.source] = root / "hooks" / hook.script
    if any(h.source for h in pack.hooks):
        place["hooks"] = root / "hooks" / pack.namespace
    return place


def _placed(
    op: FileOp, place: dict[str, Path], ref: str, pack: str, ref_of: Callable[[Path], str]
) -> FileOp:
    """``op`` with every ``<root>/<pack>/<path>`` its text names (the pack's
    ``${CLAUDE_PLUGIN_ROOT}/<path>``) pointing where that path really landed."""
    prefix = f"{ref}{pack}/"
    if not op.path.name.endswith(TEXT):  # scripts and data are copied as they are
        return op
    try:
        text = op.content.decode("utf-8")
    except UnicodeDecodeError:
        return op
    if prefix not in text:
        return op

    def landed(match: re.Match[str]) -> str:
        rel = match.group(1)
        # ``skills/lint/../../references/x.md``, ``./references/x.md``: the file they name
        tail = "/" if rel.endswith("/") else ""
        normal = posixpath.normpath(rel) + tail if rel.strip("/") else rel
        if normal == ".." or normal.startswith("../"):
            return match.group(0)  # refused when the pack was read
        rel = "" if normal in (".", "./") else normal
        parts = rel.split("/")
        for n in range(len(parts), 0, -1):
            home = place.get("/".join(parts[:n]))
            if home is not None:
                return ref_of(home).rstrip("/") + "".join(f"/{p}" for p in parts[n:])
        return prefix + rel

    pattern = re.compile(re.escape(prefix) + r"([^\s)\]`'\"<>,;]*)")
    out = pattern.sub(landed, text)
    return op if out == text else replace(op, content=out.encode("utf-8"))


def _unquoted_tilde(op: FileOp, ref: str, home: Path) -> FileOp:
    """``op`` with the ``~/<root>/`` of a global install spelled as the absolute path where it
    sits inside quotes (``"~/.claude/acme/x.sh"``, ``"~/.claude/acme/"/x.sh``): the shell does
    not expand ``~`` there. Unquoted it stays ``~/``, which never splits at a space."""
    if not ref.startswith("~/") or not op.path.name.endswith(TEXT):
        return op
    try:
        text = op.content.decode("utf-8")
    except UnicodeDecodeError:
        return op
    if ref not in text:
        return op
    absolute = home.as_posix().rstrip("/") + "/"

    def spelled(match: re.Match[str]) -> str:
        line = text[text.rfind("\n", 0, match.start()) + 1 : match.start()]
        quoted = line.endswith(('"', "'")) or len(_DOUBLE_QUOTE.findall(line)) % 2 == 1
        return absolute + match.group()[2:] if quoted else match.group()

    out = re.sub(re.escape(ref), spelled, text)
    return op if out == text else replace(op, content=out.encode("utf-8"))


# a double quote the shell sees as one (not a ``\"`` inside a TOML or JSON string)
_DOUBLE_QUOTE = re.compile(r'(?<!\\)"')


def _rel(path: Path, root: Path) -> str:
    return os.path.relpath(path, root)
