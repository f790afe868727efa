"""What an adapter asks for: files to own and config entries to hold. Pure values, no I/O.

A ``Plan`` describes the *desired* state of one runtime root; the engine compares it with the
disk and the manifest (``resolve``) and only then decides what to write.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# config entry kinds
MEMBER = "member"  # an object member ``key`` at ``path`` (e.g. mcpServers.msd, statusLine)
ITEM = "item"  # an element appended to the array at ``path`` (e.g. hooks.PreToolUse[])

# what to do when a member already exists and is not ours
IF_ABSENT = "if_absent"  # leave the user's, report ``skip`` (statusLine)
CONFLICT = "conflict"  # leave the user's, report ``conflict``; --force replaces with backup


@dataclass(frozen=True)
class FileOp:
    """A file msd-install owns: written with ``content`` and ``mode``."""

    path: Path  # absolute
    content: bytes
    mode: int = 0o644


@dataclass(frozen=True)
class ConfigEntry:
    """One entry of ours inside a user's config file, added and removed by name."""

    file: Path  # absolute
    fmt: str  # "json" | "jsonc" | "json-comments" | "toml" | "yaml" (installer/configdoc.py)
    kind: str  # MEMBER | ITEM
    path: tuple[str, ...]  # the containing object (MEMBER) or array (ITEM)
    value: Any
    key: str = ""  # MEMBER only
    policy: str = CONFLICT  # MEMBER only: IF_ABSENT | CONFLICT
    force: bool = False  # replace a user's member (backing it up) instead of skipping
    schema: str | None = None  # name of a bundled JSON Schema the edited file must satisfy
    label: str = ""  # human name for reports, e.g. "hook msd-secret-read-guard"
    # files of the plan the entry points at: if one of them is not installed (a conflict),
    # the entry is not added either (never register a hook whose script is not ours)
    requires: tuple[Path, ...] = ()
    # an exact string value only our entry holds (e.g. the hook command naming our script):
    # identifies the entry after the user changed it, so it never outlives our files
    marker: str = ""

    @property
    def ident(self) -> str:
        where = ".".join(self.path)
        return f"{where}.{self.key}" if self.kind == MEMBER else f"{where}[]"


@dataclass(frozen=True)
class Plan:
    runtime: str
    scope: str
    root: Path
    files: tuple[FileOp, ...] = ()
    entries: tuple[ConfigEntry, ...] = ()
    # directories msd owns even while empty (runtime-side code writes into them)
    dirs: tuple[Path, ...] = ()
    # files the runtime side writes at run time (caches): not installed, removed on uninstall
    state_files: tuple[Path, ...] = ()
    notes: tuple[str, ...] = field(default=())
    # config files the adapter uses for this root even where this plan adds nothing to them
    # (a version without the MCP server): a manifest naming them is still accepted and cleaned
    config_names: tuple[Path, ...] = ()
    # a pack's name (``--payload DIR``): its own manifest in the root, ``msd-file-manifest.
    # <pack>.json``, so that it installs and uninstalls independently of MSD Core
    namespace: str = ""
    # values in the user's config that change what the install means to them (hooks off)
    watches: tuple[Watch, ...] = ()

    def config_files(self) -> list[Path]:
        seen: dict[Path, None] = {}
        for entry in self.entries:
            seen.setdefault(entry.file, None)
        return list(seen)

    def bounds(self) -> Bounds:
        config = frozenset((*self.config_files(), *self.config_names))
        return Bounds(config, frozenset(self.state_files))


@dataclass(frozen=True)
class Watch:
    """A setting of the user's that silences part of what we install (``disableAllHooks``):
    when ``file`` holds ``equals`` at ``path``, the run says ``note`` (never changes it: the
    setting is the user's)."""

    file: Path
    path: tuple[str, ...]
    equals: Any
    note: str


@dataclass(frozen=True)
class Bounds:
    """What a manifest of a root may name besides plain files inside the root.

    A manifest is untrusted input, so config files (which may live outside the root, like
    ``~/.claude.json``) and run-time state files (removed with no hash check) are accepted
    only if they are exactly the ones the runtime's adapter names for that root and scope.
    """

    config_files: frozenset[Path] = frozenset()
    state_files: frozenset[Path] = frozenset()
