"""The payload's shape without its bytes: what a plan needs to name its config and state files.

A manifest is checked against the config and state files the runtime's adapter names for the
root (``Plan.bounds``). An adapter names a config file for what the payload *has* (hooks, an
MCP server, commands, agents, skills), never for how many of each or for what their text
says, so its plan over this skeleton names the same files as its plan over the whole payload:
every hook (name, event, matcher, helpers), the first command, agent and skill, and the names
of the engine's files, all without their bytes. An uninstall, ``doctor`` and a pack's plan ask
for bounds without reading, parsing and converting every payload file.
``tests/runtimes/test_bounds_skeleton.py`` proves the two bounds equal for every runtime and
scope, with and without each runtime's config-dir overrides.
"""

from __future__ import annotations

import json
from functools import cache
from typing import TYPE_CHECKING

from . import (
    DataFile,
    Document,
    HookSpec,
    Payload,
    _data,
    _files,
    _text,
    entries,
    hook_specs,
    split_frontmatter,
)

if TYPE_CHECKING:
    import sys

    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:  # pragma: no cover
        from importlib.abc import Traversable


@cache
def skeleton() -> Payload:
    """The bundled payload's skeleton (``payload.load``'s data), read once per process."""
    data = _data()
    commands, agents, skills = entries(
        _first(data, "commands"), _first(data, "agents"), _first(data, "skills", "/SKILL.md")
    )
    core = data.joinpath("core")
    names = _files(core) if core.is_dir() else []
    return Payload(
        commands,
        agents,
        skills,
        _hooks(data),
        tuple(DataFile(rel, b"", rel.startswith("bin/")) for rel, _item in names),
        (),
    )


def _first(data: Traversable, folder: str, suffix: str = ".md") -> list[Document]:
    """The first document of ``folder`` (as ``load`` orders them), parsed; none if empty."""
    node = data.joinpath(folder)
    if not node.is_dir():
        return []
    for rel, item in _files(node):
        if f"{folder}/{rel}".endswith(suffix):
            return [split_frontmatter(f"{folder}/{rel}", _text(item))]
    return []


def _hooks(data: Traversable) -> tuple[HookSpec, ...]:
    """Every hook of ``hooks/hooks.json`` as ``load`` reads it, its script's bytes left out."""
    registry = data.joinpath("hooks").joinpath("hooks.json")
    if not registry.is_file():
        return ()
    specs: list[HookSpec] = []
    for item in json.loads(registry.read_text(encoding="utf-8"))["hooks"]:
        specs.extend(hook_specs(item, b""))
    return tuple(specs)
