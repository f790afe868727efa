"""Uninstall resolution: the manifest, and only the manifest, says what to take away.

A file is removed only if its bytes still hash to what we wrote (a file the user changed is
kept and reported); a config entry only if it is still ours; backups are put back; the
directories we created go once empty; the pristine store goes with the manifest, last. The
local patches an upgrade saved (``msd-local-patches/``) are the user's: kept, each named.
No name patterns, ever.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from . import bytecode
from .configdoc import fmt_of
from .configedit import check_writable, invert, open_doc, refused
from .confine import is_regular_file, leads_out, read_plain, read_plain_stat, real_target
from .fs import Known, read_file_stat, sha256_bytes
from .manifest import FOREIGN_CONFIG, Manifest
from .manifestcheck import BACKUPS_DIR, PATCHES_DIR, STORE_NAME
from .report import Result
from .steps import Remove, RemoveDirIfEmpty, Step, Write

if TYPE_CHECKING:
    from .registry import SharedFiles


def resolve_uninstall(
    manifest: Manifest,
    result: Result,
    fence: Path | None = None,
    *,
    shared: SharedFiles | None = None,
) -> list[Step]:
    """``fence``: the project of a --local run, out of which nothing is changed. ``shared``:
    the config files msd created that one uninstall hands on to another (trusted manifests
    only; ``SharedFiles``)."""
    steps: list[Step] = []
    shared = shared if shared is not None and manifest.trusted else None
    # Config first: an unparsable file must stop the run before anything is removed.
    for record in manifest.config:
        path = manifest.abs(record["file"])
        if not manifest.trusted and path.is_symlink():
            result.add("skip", path, f"a symlink, not written through: {FOREIGN_CONFIG}")
            continue
        if leads_out(fence, path):
            result.add("skip", path, "leads out of the project (a symlink): not written through")
            continue
        got = read_file_stat(path)
        if got is None:
            result.add("skip", path, "already gone")
            continue
        raw, st = got
        doc = open_doc(path, raw, record["fmt"])
        try:
            doc, kept = invert(doc, record["ops"])
        except ValueError as exc:  # an editor refused a splice it could not verify
            raise refused(path, exc) from None
        for note in kept:
            result.add("skip", path, note)
        # a foreign manifest's "created" is only believed once it really took entries out
        changed = doc.text.encode() != raw
        emptied = manifest.trusted or changed
        real = os.path.realpath(path)
        handed_on = shared is not None and shared.held.get(real) == (st.st_dev, st.st_ino)
        created = record["created"] or (handed_on and changed)
        if created and fmt_of(record["fmt"]).is_empty(doc.text) and emptied:
            # through a (once dangling) symlink we created the target: remove that, keep the
            # link; only if it is still the file read here (a setting written since stays)
            steps.append(Remove(real_target(path), Known(raw, sha256_bytes(raw), st)))
            result.add("remove", real_target(path))
        elif changed:
            check_writable(path)
            steps.append(Write(path, doc.text.encode(), None, expect=raw, in_place=True))
            result.add("update", path, "msd entries removed")
            if shared is not None and (record["created"] or handed_on):
                if shared.elsewhere(real):  # another install's entries: it goes with theirs
                    shared.handed.append(path)
                else:  # what is left is the user's own: their file from now on
                    shared.dropped.append(real)
        else:
            result.add("identical", path)
    backups = {b["path"]: b for b in manifest.backups}
    if backups:  # only then: resolve imports the whole install side
        from .resolve import restore_steps
    restored: set[str] = set()
    paths = []
    for rel, file in sorted(manifest.files.items()):
        path = manifest.abs(rel)
        if leads_out(fence, path.parent):  # as an install leaves it: never through that link
            result.add("skip", path, "leads out of the project (a symlink): kept")
            continue
        paths.append(path)
        got = read_plain_stat(path)
        current = None if got is None else got[0]
        ours = got is not None and sha256_bytes(got[0]) == file["sha256"]
        if current is None and os.path.lexists(path):  # a link, a FIFO...: never msd's
            result.add("skip", path, "not a plain file (yours): kept")
        elif current is not None and not ours:
            result.add("skip", path, "modified by you: kept")
        elif file.get("adopted"):
            result.add("skip", path, "it was yours before msd-install: kept")
        elif rel in backups and (restore := restore_steps(manifest, backups[rel])):
            steps.extend(restore)
            restored.add(backups[rel].get("backup", ""))
            result.add("restore", path)
        elif ours and got is not None:  # read and hashed once: the removal checks it is
            steps.append(Remove(path, Known(got[0], file["sha256"], got[1])))  # still it
            result.add("remove", path)
    for rel in manifest.state:
        path = manifest.abs(rel)
        if not leads_out(fence, path.parent) and is_regular_file(path):
            steps.append(Remove(path))
            result.add("remove", path, "written by msd at run time")
    # Python's caches of the ``.py`` files we installed are ours too (installer/bytecode.py)
    steps.extend(bytecode.removal(paths, result))
    if os.path.lexists(manifest.root / PATCHES_DIR):  # only then: patches imports the merge
        from .patches import kept as kept_patches

        for path, why in kept_patches(manifest.root):
            result.add("skip", path, why)
    for path in _left_backups(manifest.root, restored):
        result.add("skip", path, "yours, kept aside by an earlier --force: not put back, kept")
    store = manifest.root / STORE_NAME
    data = read_plain(store)
    if data is not None and manifest.pristine and sha256_bytes(data) == manifest.pristine:
        steps.append(Remove(store))
        result.add("remove", store, "msd's copy of the files it installed")
    steps.append(Remove(manifest.path))
    result.add("remove", manifest.path)
    root = manifest.root
    for rel in sorted(manifest.dirs, key=_depth, reverse=True):
        path = manifest.abs(rel)
        if leads_out(fence, path.parent) or (fence is not None and path.is_symlink()):
            continue  # a link of yours (out of the project) where msd made a folder: yours
        if path != root and not root.is_relative_to(path):  # root and above: after the lock
            steps.append(RemoveDirIfEmpty(path))
    return steps


def _left_backups(root: Path, restored: set[str]) -> list[Path]:
    """Files under ``msd-backups/`` this uninstall does not put back (a record lost with a
    damaged manifest, a file of msd's you changed since): named, never silently left."""
    top = root / BACKUPS_DIR
    if top.is_symlink() or not top.is_dir():
        return []
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames.sort()
        base = Path(dirpath)
        for name in sorted(filenames) + [d for d in dirnames if (base / d).is_symlink()]:
            if (base / name).relative_to(root).as_posix() not in restored:
                out.append(base / name)
    return out


def _depth(rel: str) -> tuple[int, str]:
    return (len(Path(rel).parts), rel)
