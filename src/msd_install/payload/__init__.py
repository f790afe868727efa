"""The MSD Core payload: package data parsed once into typed, runtime-neutral objects.

Source format is Claude-Code-native (Markdown + YAML frontmatter). Adapters convert these
objects into each runtime's own format; nothing here knows about any runtime.
Layout of ``payload/data``: ``commands/*.md``, ``agents/*.md``, ``skills/<name>/SKILL.md``,
``hooks/*.py`` + ``hooks/hooks.json``, ``core/**`` (becomes ``<root>/msd-core/``). The
stdlib runtime package ``msd_install.msdcore`` is shipped as ``msd-core/lib/msdcore/``.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from ..errors import PayloadError
from ..pkgfiles import files
from . import hookcode
from .frontmatter import fast_parse, slow_parse, yaml_error

if TYPE_CHECKING:  # importlib.resources costs ~7 ms of imports (``pkgfiles``)
    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:  # pragma: no cover
        from importlib.abc import Traversable

PLACEHOLDER_ROOT = "~/.claude/"  # how payload text names the install root; rewritten per runtime


@dataclass(frozen=True)
class Document:
    """A Markdown file with YAML frontmatter."""

    relpath: str
    meta: tuple[tuple[str, Any], ...]
    body: str
    raw: str

    def get(self, key: str, default: Any = None) -> Any:
        return dict(self.meta).get(key, default)


@dataclass(frozen=True)
class Command:
    name: str
    description: str
    doc: Document


@dataclass(frozen=True)
class Agent:
    name: str
    description: str
    tools: tuple[str, ...]
    doc: Document


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    doc: Document
    # a pack's skill may bring more files (scripts, references), installed beside SKILL.md
    files: tuple[DataFile, ...] = ()


@dataclass(frozen=True)
class HookSpec:
    name: str
    script: str
    event: str | None  # Claude event name; None = helper file, never registered
    matcher: str | None  # Claude tool-name regex
    timeout: int | None
    content: bytes
    requires: tuple[str, ...] = ()  # helper scripts it runs or imports (hooks.json "requires")
    # the program that runs the script: "" for msd's Python (``-I -S``), else a pack hook's
    # interpreter ("python3", "bash", "node"...), found on the PATH (payload/packhooks.py)
    runner: str = ""
    source: str = ""  # a pack's hook: the file in the pack (``hooks/lint/check.sh``), for notes
    # the matcher of an event that is not about a tool (SessionStart's ``startup``, PreCompact's
    # ``manual``): kept where the runtime has one there (``HookDialect.event_matchers``), else
    # the hook is not registered (it would run on every such event)
    when: str | None = None

    def scripts(self) -> tuple[str, ...]:
        """This hook's script and every helper it needs, all under ``<root>/hooks/``."""
        return (self.script, *self.requires)


@dataclass(frozen=True)
class DataFile:
    relpath: str  # relative to its tree (core/ or the msdcore package)
    content: bytes
    executable: bool = False

    @property
    def is_text(self) -> bool:
        return self.relpath.endswith((".md", ".json", ".txt", ".toml", ".yaml", ".yml"))


@dataclass(frozen=True)
class Payload:
    commands: tuple[Command, ...]
    agents: tuple[Agent, ...]
    skills: tuple[Skill, ...]
    hooks: tuple[HookSpec, ...]
    core: tuple[DataFile, ...]
    lib: tuple[DataFile, ...]
    # a pack (``--payload DIR``): its name, which prefixes everything it installs and names
    # its manifest; empty for MSD Core
    namespace: str = ""
    engine_dir: str = "msd-core"  # where ``core`` goes under the root (a pack: ``<pack>``)
    notes: tuple[str, ...] = ()  # a pack's warnings (``payload/pack.py``), shown with each run


def split_frontmatter(relpath: str, text: str) -> Document:
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        raise PayloadError(f"payload file {relpath} has no frontmatter")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise PayloadError(f"payload file {relpath}: frontmatter is not closed") from None
    block = "\n".join(lines[1:end])
    meta = fast_parse(block)
    if meta is None:
        try:
            meta = slow_parse(block)
        except yaml_error() as exc:
            raise PayloadError(f"payload file {relpath}: bad frontmatter: {exc}") from None
    if not isinstance(meta, dict):
        raise PayloadError(f"payload file {relpath}: frontmatter is not a mapping")
    body = "\n".join(lines[end + 1 :])
    return Document(relpath, tuple(meta.items()), body, text)


def _data() -> Traversable:
    return files(__name__).joinpath("data")


def _walk(node: Traversable, prefix: str = "") -> list[tuple[str, Traversable]]:
    out: list[tuple[str, Traversable]] = []
    for child in sorted(node.iterdir(), key=lambda c: c.name):
        if child.name == "__pycache__" or child.name.endswith((".pyc", ".pyo")):
            continue
        rel = f"{prefix}{child.name}"
        if child.is_dir():
            out.extend(_walk(child, rel + "/"))
        else:
            out.append((rel, child))
    return out


def _markdown(data: Traversable, folder: str) -> list[Document]:
    node = data.joinpath(folder)
    if not node.is_dir():
        return []
    return [
        split_frontmatter(f"{folder}/{rel}", item.read_text(encoding="utf-8"))
        for rel, item in _walk(node)
        if rel.endswith(".md")
    ]


def _str(doc: Document, key: str) -> str:
    value = doc.get(key)
    if not isinstance(value, str) or not value.strip():
        raise PayloadError(f"payload file {doc.relpath}: missing '{key}'")
    return value


_BLOCK_START = re.compile(r"^# >>> ([a-z-]+)\b.*>>>$", re.M)


def assemble_hook(source: str, blocks: Traversable) -> str:
    """Fill each ``# >>> NAME ... >>>`` / ``# <<< NAME <<<`` pair with ``blocks/NAME.pyblock``.

    Hooks share code (stdin with a timeout, the runtime dialects, a shell splitter) but each is
    installed as one file run as ``python -I -S <file>``: it cannot import anything of ours.
    So the shared code is kept once, in ``hooks/_blocks/``, and inlined here at install time.
    """
    out: list[str] = []
    pos = 0
    for match in _BLOCK_START.finditer(source):
        name = match.group(1)
        end_marker = f"# <<< {name} <<<"
        end = source.find(end_marker, match.end())
        if end < 0:
            raise PayloadError(f"hook block {name} is not closed")
        block = blocks.joinpath(f"{name}.pyblock")
        if not block.is_file():
            raise PayloadError(f"hook block {name} is not in the payload")
        out += [source[pos : match.end()], "\n", block.read_text(encoding="utf-8")]
        pos = end
    out.append(source[pos:])
    return "".join(out)


def _hooks(data: Traversable) -> tuple[HookSpec, ...]:
    folder = data.joinpath("hooks")
    registry = folder.joinpath("hooks.json")
    if not registry.is_file():
        return ()
    specs: list[HookSpec] = []
    for item in json.loads(registry.read_text(encoding="utf-8"))["hooks"]:
        script = folder.joinpath(item["script"])
        if not script.is_file():
            raise PayloadError(f"hooks.json names {item['script']}, which is not in the payload")
        text = assemble_hook(script.read_text(encoding="utf-8"), folder.joinpath("_blocks"))
        specs.extend(hook_specs(item, text.encode("utf-8")))
    return tuple(specs)


def hook_specs(item: dict[str, Any], source: bytes) -> tuple[HookSpec, ...]:
    """The hook a ``hooks.json`` entry names, with its script's ``source``: a registered hook
    is a launcher and its code, kept compiled (payload/hookcode.py)."""
    spec = HookSpec(
        item["name"],
        item["script"],
        item.get("event"),
        item.get("matcher"),
        item.get("timeout"),
        source,
        tuple(item.get("requires", ())),
    )
    return hookcode.split(spec) if spec.event else (spec,)


def entries(
    commands: list[Document], agents: list[Document], skills: list[Document]
) -> tuple[tuple[Command, ...], tuple[Agent, ...], tuple[Skill, ...]]:
    """The commands, agents and skills of these parsed documents (skills: their SKILL.md)."""
    return (
        tuple(Command(_str(d, "name"), _str(d, "description"), d) for d in commands),
        tuple(
            Agent(
                _str(d, "name"),
                _str(d, "description"),
                tuple(t.strip() for t in str(d.get("tools", "")).split(",") if t.strip()),
                d,
            )
            for d in agents
        ),
        tuple(Skill(_str(d, "name"), _str(d, "description"), d) for d in skills),
    )


def _tree(node: Traversable) -> tuple[DataFile, ...]:
    return tuple(
        DataFile(rel, item.read_bytes(), rel.startswith("bin/")) for rel, item in _walk(node)
    )


@cache
def load() -> Payload:
    """The bundled payload, parsed once per process."""
    return load_tree(_data())


def load_tree(data: Traversable) -> Payload:
    """The payload in ``data`` (laid out like ``payload/data``), with msd_install's msdcore."""
    commands, agents, skills = entries(
        _markdown(data, "commands"),
        _markdown(data, "agents"),
        [d for d in _markdown(data, "skills") if d.relpath.endswith("/SKILL.md")],
    )
    core = data.joinpath("core")
    lib = files("msd_install").joinpath("msdcore")
    return Payload(
        commands,
        agents,
        skills,
        _hooks(data),
        _tree(core) if core.is_dir() else (),
        tuple(f for f in _tree(lib) if f.relpath.endswith(".py")),
    )
