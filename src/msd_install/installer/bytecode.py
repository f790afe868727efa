"""The bytecode Python caches beside msd's own ``.py`` files, which are ours to remove.

The MCP server and msd-tools import the installed ``msdcore`` package, and every hook launcher
loads its hook's code through the import system (payload/hookcode.py), so the interpreter
leaves ``__pycache__/<module>.<tag>.pyc`` next to our files. Those caches are derived from our
files alone: when msd removes one of its ``.py`` files (uninstall, or an upgrade that no longer
ships it), it removes their caches too — only files named exactly like one (``<stem>.<impl>-
<version>[.opt-N].pyc``), never a whole directory, never through a link.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path

from .report import Result
from .steps import Remove, RemoveDirIfEmpty, Step

# what importlib.util.cache_from_source names a cache: "<stem>.cpython-311[.opt-1].pyc"
_TAG = r"\.[a-z]+-[0-9]+[a-z0-9]*(?:\.opt-[0-9]+)?\.pyc"


def removal(sources: Iterable[Path], result: Result) -> list[Step]:
    """Steps removing the caches of ``sources``, then each ``__pycache__`` beside them that is
    left empty (Python's own folder: an empty one is never the user's). Each folder is
    looked at once (not through a link), however many sources it serves."""
    steps: list[Step] = []
    listed: dict[str, list[str] | None] = {}  # folder -> its plain files; None: not a folder
    for source in sources:
        text = str(source)
        if not text.endswith(".py"):
            continue
        head, _, leaf = text.rpartition(os.sep)
        stem = leaf[: -len(".py")]
        if not stem:  # ".py" itself: a name without a suffix (``Path.suffix``)
            continue
        folder = f"{head}{os.sep}__pycache__"
        if folder not in listed:
            listed[folder] = _plain_files(folder)
        names = listed[folder]
        if not names:
            continue
        name = re.compile(re.escape(stem) + _TAG)
        for compiled in sorted(n for n in names if n.startswith(stem) and name.fullmatch(n)):
            path = Path(folder, compiled)
            steps.append(Remove(path))
            result.add("remove", path, "compiled from an msd file")
    steps.extend(
        RemoveDirIfEmpty(f) for f in sorted(Path(f) for f, n in listed.items() if n is not None)
    )
    return steps


def _plain_files(folder: str) -> list[str] | None:
    """The names of the plain files in ``folder``, or None if it is not a folder (a link to
    one is not Python's own)."""
    try:
        if not stat.S_ISDIR(os.lstat(folder).st_mode):
            return None
        with os.scandir(folder) as entries:
            return [e.name for e in entries if e.is_file(follow_symlinks=False)]
    except OSError:
        return None
