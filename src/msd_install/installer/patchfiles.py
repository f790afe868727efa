"""A patch set's files on disk, for ``--reapply``: the saved base (only while it still hashes
as ``patch.json`` says), the first symlink on the way to one of its files (a set is never
read, written or removed through one), a conflicted merge in its ``conflicts/`` that cannot
be read (that set alone is left as it is) and the steps that remove a set (only what it
names).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .conflicted import aside
from .fs import kind_of, sha256_bytes
from .manifestcheck import PATCHES_DIR
from .patches import MAX_COPY, PATCH_FILE, PatchEntry, PatchSet, read_bounded
from .steps import Remove, RemoveDirIfEmpty, Step


def saved_base(root: Path, patch_set: PatchSet, entry: PatchEntry) -> bytes | None:
    """The saved base, only if it still hashes as the patch set says."""
    if entry["base"] is None or not os.path.lexists(patch_set.directory / entry["base"]):
        return None
    data = read_bounded(root, patch_set.directory / entry["base"], MAX_COPY)
    return data if sha256_bytes(data) == entry["base_sha256"] else None


def linked(patch_set: PatchSet, *rels: str | None) -> str | None:
    """The first folder on the way to the set's files ``rels`` (an entry's saved copies, its
    conflicted merge) that is a symlink (named as a line), or None: a set is never read,
    written or removed through one, wherever it leads (a ``user/`` linked back to the root
    would have --done remove msd's merged file)."""
    for rel in rels:
        probe = patch_set.directory
        for part in [] if rel is None else rel.split("/")[:-1]:
            probe = probe / part
            try:
                if stat.S_ISLNK(os.lstat(probe).st_mode):
                    inner = probe.relative_to(patch_set.directory).as_posix()
                    return f"{PATCHES_DIR}/{patch_set.name}/{inner} is a symlink"
            except (FileNotFoundError, NotADirectoryError):
                break
    return None


def damaged(patch_set: PatchSet) -> tuple[Path, str] | None:
    """The first conflicted merge in the set's ``conflicts/`` that ``--reapply`` cannot read
    (a symlink, a FIFO, a device, a folder, a file over 8 MiB, or one behind a file where a
    folder should be) and what it is, or None. Looked at with ``lstat`` only: never
    followed, never opened (a FIFO would block the run). One behind a symlinked folder is
    not looked at here (``linked`` names it, and it is not read)."""
    for entry in patch_set.doc["files"]:
        rel = aside(entry["path"])
        path = patch_set.directory / rel
        try:
            if linked(patch_set, rel) is not None:
                continue
            st = os.lstat(path)
        except NotADirectoryError:  # a folder on the way is a file: the merge cannot go there
            return _not_a_folder(patch_set, rel)
        except FileNotFoundError:
            continue
        except OSError as exc:  # a folder on the way this user may not look into
            where = Path(exc.filename) if exc.filename else path
            return where, f"cannot be looked at ({exc.strerror or exc}): not read"
        if stat.S_ISLNK(st.st_mode):
            return path, "is a symlink, not a plain file: not followed"
        if not stat.S_ISREG(st.st_mode):
            return path, f"is {kind_of(st.st_mode)}, not a plain file: not read"
        if st.st_size > MAX_COPY:
            return path, f"is larger than {MAX_COPY >> 20} MiB: not read"
    return None


def _not_a_folder(patch_set: PatchSet, rel: str) -> tuple[Path, str]:
    """The first of the folders on the way to ``rel`` that is something else, and what."""
    probe = patch_set.directory
    for part in rel.split("/")[:-1]:
        probe = probe / part
        try:
            st = os.lstat(probe)
        except OSError:
            break
        if not stat.S_ISDIR(st.st_mode):
            kind = "a file" if stat.S_ISREG(st.st_mode) else kind_of(st.st_mode)
            return probe, f"is {kind}, not a folder: nothing is read or written there"
    return patch_set.directory / rel, "is not reachable (a folder on the way changed): not read"


def removal(patch_set: PatchSet) -> list[Step]:
    """Remove the files the set names (and its ``patch.json``), then its folders if empty:
    never anything it does not name."""
    steps: list[Step] = []
    folders: set[Path] = {patch_set.directory}
    for entry in patch_set.doc["files"]:
        for rel in (entry["user"], entry["base"], aside(entry["path"])):
            if rel is None:
                continue
            path = patch_set.directory / rel
            # the folders of a conflicted merge you moved away go too, once empty
            folders.update(p for p in path.parents if p.is_relative_to(patch_set.directory))
            if rel == aside(entry["path"]) and not os.path.lexists(path):
                continue
            steps.append(Remove(path))
    steps.append(Remove(patch_set.directory / PATCH_FILE))
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        steps.append(RemoveDirIfEmpty(folder))
    return steps
