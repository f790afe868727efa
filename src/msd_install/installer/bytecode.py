"""The bytecode Python caches beside msd's own ``.py`` files, which are ours to remove.

The MCP server and msd-tools import the installed ``msdcore`` package, and every hook launcher
loads its hook's code through the import system (payload/hookcode.py), so the interpreter
leaves ``__pycache__/<module>.<tag>.pyc`` next to our files. Those caches are derived from our
files alone: when msd removes one of its ``.py`` files (uninstall, or an upgrade that no longer
ships it), it removes their caches too — only files named exactly like one (``<stem>.<impl>-
<version>[.opt-N].pyc``), never a whole directory, never through a link.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from .confine import is_regular_file
from .report import Result
from .steps import Remove, RemoveDirIfEmpty, Step

# what importlib.util.cache_from_source names a cache: "<stem>.cpython-311[.opt-1].pyc"
_TAG = r"\.[a-z]+-[0-9]+[a-z0-9]*(?:\.opt-[0-9]+)?\.pyc"


def caches(source: Path) -> list[Path]:
    """The cache files Python compiled from ``source`` (a ``.py`` file), sorted."""
    if source.suffix != ".py":
        return []
    folder = source.parent / "__pycache__"
    if folder.is_symlink() or not folder.is_dir():  # a linked cache is not Python's own
        return []
    name = re.compile(re.escape(source.stem) + _TAG)
    return sorted(
        p
        for p in folder.glob(f"{source.stem}.*.pyc")
        if name.fullmatch(p.name) and is_regular_file(p)
    )


def removal(sources: Iterable[Path], result: Result) -> list[Step]:
    """Steps removing the caches of ``sources``, then each ``__pycache__`` beside them that is
    left empty (Python's own folder: an empty one is never the user's)."""
    steps: list[Step] = []
    folders: set[Path] = set()
    for source in sources:
        if source.suffix != ".py":
            continue
        folder = source.parent / "__pycache__"
        if folder.is_dir() and not folder.is_symlink():  # also an empty one Python left
            folders.add(folder)
        for compiled in caches(source):
            steps.append(Remove(compiled))
            result.add("remove", compiled, "compiled from an msd file")
    steps.extend(RemoveDirIfEmpty(folder) for folder in sorted(folders))
    return steps
