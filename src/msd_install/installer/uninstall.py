"""Uninstall resolution: the manifest, and only the manifest, says what to take away.

A file is removed only if its bytes still hash to what we wrote (a file the user changed is
kept and reported); a config entry only if it is still ours; backups are put back; the
directories we created go once empty; the manifest goes last. No name patterns, ever.
"""

from __future__ import annotations

from pathlib import Path

from .configedit import EMPTY_FILE, check_writable, invert, open_doc
from .fs import real_target, sha256_bytes
from .manifest import Manifest
from .report import Result
from .resolve import restore_steps
from .steps import Remove, RemoveDirIfEmpty, Step, Write


def resolve_uninstall(manifest: Manifest, result: Result) -> list[Step]:
    steps: list[Step] = []
    # Config first: an unparsable file must stop the run before anything is removed.
    for record in manifest.config:
        path = manifest.abs(record["file"])
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            result.add("skip", path, "already gone")
            continue
        doc = open_doc(path, raw, record["fmt"])
        doc, kept = invert(doc, record["ops"])
        for note in kept:
            result.add("skip", path, note)
        if record["created"] and doc.text == EMPTY_FILE:
            # through a (once dangling) symlink we created the target: remove that, keep the link
            steps.append(Remove(real_target(path)))
            result.add("remove", real_target(path))
        elif doc.text.encode() != raw:
            check_writable(path)
            steps.append(Write(path, doc.text.encode(), None, expect=raw))
            result.add("update", path, "msd entries removed")
        else:
            result.add("identical", path)
    backups = {b["path"]: b for b in manifest.backups}
    for rel, file in sorted(manifest.files.items()):
        path = manifest.abs(rel)
        try:
            current = None if path.is_symlink() else path.read_bytes()
        except FileNotFoundError:
            current = None
        ours = current is not None and sha256_bytes(current) == file["sha256"]
        if path.is_symlink() or (current is not None and not ours):
            result.add("skip", path, "modified by you: kept")
        elif file.get("adopted"):
            result.add("skip", path, "it was yours before msd-install: kept")
        elif rel in backups and (restore := restore_steps(manifest, backups[rel])):
            steps.extend(restore)
            result.add("restore", path)
        elif ours:
            steps.append(Remove(path))
            result.add("remove", path)
    for rel in manifest.state:
        path = manifest.abs(rel)
        if path.is_file():
            steps.append(Remove(path))
            result.add("remove", path, "written by msd at run time")
    steps.extend(_bytecode_caches(manifest, result))
    steps.append(Remove(manifest.path))
    result.add("remove", manifest.path)
    root = manifest.root
    for rel in sorted(manifest.dirs, key=_depth, reverse=True):
        path = manifest.abs(rel)
        if path != root and not root.is_relative_to(path):  # root and above: after the lock
            steps.append(RemoveDirIfEmpty(path))
    return steps


def _bytecode_caches(manifest: Manifest, result: Result) -> list[Step]:
    """Python's ``__pycache__`` files compiled from modules we installed are ours too.

    The MCP server and msd-tools import the installed ``msdcore`` package, so the interpreter
    leaves ``__pycache__/<module>.<tag>.pyc`` next to our files. They are derived from our
    files alone; only those, matched by module name, are removed (never a whole directory).
    """
    steps: list[Step] = []
    caches: set[Path] = set()
    for rel in sorted(manifest.files):
        if not rel.endswith(".py"):
            continue
        source = manifest.abs(rel)
        cache = source.parent / "__pycache__"
        for compiled in sorted(cache.glob(f"{source.stem}.*.pyc")):
            if compiled.name.split(".")[0] == source.stem:
                steps.append(Remove(compiled))
                result.add("remove", compiled, "compiled from an msd file")
                caches.add(cache)
    steps.extend(RemoveDirIfEmpty(c) for c in sorted(caches))
    return steps


def _depth(rel: str) -> tuple[int, str]:
    return (len(Path(rel).parts), rel)
