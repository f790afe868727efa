"""The MSD Core payload: package data parsed once into typed, runtime-neutral objects.

Source format is Claude-Code-native (Markdown + YAML frontmatter). Adapters convert these
objects into each runtime's own format; nothing here knows about any runtime.
Layout of ``payload/data``: ``commands/*.md``, ``agents/*.md``, ``skills/<name>/SKILL.md``,
``hooks/*.py`` + ``hooks/hooks.json``, ``core/**`` (becomes ``<root>/msd-core/``). The
stdlib runtime package ``msd_install.msdcore`` is shipped as ``msd-core/lib/msdcore/``.
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

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
    # False: a pack's helper that is no script (data, text, a module it imports): installed
    # 0644 (``runtimes.packs``); a registered hook and every file of MSD Core's are 0755
    executable: bool = True

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
    """The document ``text``: its first line ``---``, the frontmatter up to the next line that
    is ``---`` (either may have blanks around it), the body after it. Only the frontmatter's
    lines are looked at: an agent's body is hundreds of lines."""
    first = text.find("\n")
    if (text if first < 0 else text[:first]).strip() != "---":
        raise PayloadError(f"payload file {relpath} has no frontmatter")
    start = pos = first + 1  # where the frontmatter's first line starts
    end = first  # where the line before ``pos`` ends (-1: it is the last line)
    while end >= 0:
        end = text.find("\n", pos)
        if (text[pos:] if end < 0 else text[pos:end]).strip() == "---":
            break
        pos = end + 1
    else:
        raise PayloadError(f"payload file {relpath}: frontmatter is not closed")
    block = text[start : pos - 1]  # empty when the closing line comes right after
    meta = fast_parse(block)
    if meta is None:
        try:
            meta = slow_parse(block)
        except (yaml_error(), ValueError, RecursionError) as exc:
            why = "nested too deeply" if isinstance(exc, RecursionError) else exc
            raise PayloadError(f"payload file {relpath}: bad frontmatter: {why}") from None
    if not isinstance(meta, dict):
        raise PayloadError(f"payload file {relpath}: frontmatter is not a mapping")
    body = "" if end < 0 else text[end + 1 :]
    return Document(relpath, tuple(meta.items()), body, text)


def _data() -> Traversable:
    return files(__name__).joinpath("data")


# where a payload file is read from: its path, when the package is a folder (every pip or
# pipx install), else the Traversable (a package inside a zip)
Source: TypeAlias = "str | Traversable"


def _files(node: Traversable) -> list[tuple[str, Source]]:
    """Every file under ``node`` (relative name, where to read it), in ``_walk``'s order.

    A folder is listed with ``os.scandir``: its entries tell a folder from a file without a
    ``stat`` each, and no ``Path`` is made per entry (a third of reading the payload)."""
    if isinstance(node, Path):
        return _scan(os.fspath(node), "")
    return list(_walk(node))


def _scan(folder: str, prefix: str) -> list[tuple[str, Source]]:
    with os.scandir(folder) as listing:
        children = sorted(listing, key=lambda entry: entry.name)
    out: list[tuple[str, Source]] = []
    for child in children:
        if child.name == "__pycache__" or child.name.endswith((".pyc", ".pyo")):
            continue
        if child.is_dir():
            out.extend(_scan(child.path, f"{prefix}{child.name}/"))
        else:
            out.append((f"{prefix}{child.name}", child.path))
    return out


def _walk(node: Traversable, prefix: str = "") -> list[tuple[str, Traversable]]:
    """``_files`` of any Traversable: the files under ``node``, by name at each level."""
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


def _bytes(item: Source) -> bytes:
    if isinstance(item, str):
        with open(item, "rb", buffering=0) as handle:  # one read to the end: no buffer
            return handle.read()
    return item.read_bytes()


def _text(item: Source) -> str:
    """The file's text as ``read_text(encoding="utf-8")`` gives it: universal newlines (each
    ``\\r\\n`` and lone ``\\r`` read as ``\\n``), done on the whole text at once."""
    if not isinstance(item, str):
        return item.read_text(encoding="utf-8")
    text = _bytes(item).decode("utf-8")
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def _markdown(data: Traversable, folder: str) -> list[Document]:
    node = data.joinpath(folder)
    if not node.is_dir():
        return []
    return [
        split_frontmatter(f"{folder}/{rel}", _text(item))
        for rel, item in _files(node)
        if rel.endswith(".md")
    ]


def _str(doc: Document, key: str) -> str:
    value = doc.get(key)
    if not isinstance(value, str) or not value.strip():
        raise PayloadError(f"payload file {doc.relpath}: missing '{key}'")
    return value


_BLOCK_START = re.compile(r"^# >>> ([a-z-]+)\b.*>>>$", re.M)


def assemble_hook(source: str, blocks: Traversable, read: dict[str, str] | None = None) -> str:
    """Fill each ``# >>> NAME ... >>>`` / ``# <<< NAME <<<`` pair with ``blocks/NAME.pyblock``.

    Hooks share code (stdin with a timeout, the runtime dialects, a shell splitter) but each is
    installed as one file run as ``python -I -S <file>``: it cannot import anything of ours.
    So the shared code is kept once, in ``hooks/_blocks/``, and inlined here at install time.
    ``read``: the blocks already read (by name), filled in: each is read once per payload.
    """
    read = {} if read is None else read
    out: list[str] = []
    pos = 0
    for match in _BLOCK_START.finditer(source):
        name = match.group(1)
        end_marker = f"# <<< {name} <<<"
        end = source.find(end_marker, match.end())
        if end < 0:
            raise PayloadError(f"hook block {name} is not closed")
        if name not in read:
            block = blocks.joinpath(f"{name}.pyblock")
            if not block.is_file():
                raise PayloadError(f"hook block {name} is not in the payload")
            read[name] = block.read_text(encoding="utf-8")
        out += [source[pos : match.end()], "\n", read[name]]
        pos = end
    out.append(source[pos:])
    return "".join(out)


def _hooks(data: Traversable) -> tuple[HookSpec, ...]:
    folder = data.joinpath("hooks")
    registry = folder.joinpath("hooks.json")
    if not registry.is_file():
        return ()
    specs: list[HookSpec] = []
    blocks, read = folder.joinpath("_blocks"), dict[str, str]()
    for item in json.loads(registry.read_text(encoding="utf-8"))["hooks"]:
        script = folder.joinpath(item["script"])
        if not script.is_file():
            raise PayloadError(f"hooks.json names {item['script']}, which is not in the payload")
        text = assemble_hook(script.read_text(encoding="utf-8"), blocks, read)
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


def _tree(node: Traversable, suffix: str = "") -> tuple[DataFile, ...]:
    """The files under ``node`` whose names end in ``suffix``, with their bytes."""
    return tuple(
        DataFile(rel, _bytes(item), rel.startswith("bin/"))
        for rel, item in _files(node)
        if rel.endswith(suffix)
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
        _tree(lib, ".py"),
    )
