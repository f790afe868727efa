"""Undo the run a journal was left by (``installer/journal.py``) before any other run acts.

Every verb (install, uninstall, ``--check``, ``doctor``) calls ``recover`` first. A journal is
only ever present while its run holds the root's lock, so one found under the lock was left
by a run that died (SIGKILL, power cut): rolling it back is simpler and safer than finishing
it, since each line says exactly what was there before.

A journal is untrusted input, like a manifest (it may come with a cloned project): it is
read bounded, every line is validated before anything is touched, every path must be inside
the root (no ``..``, no symlink component leading out of it unless this user's msd-install
wrote the root's manifest) or be one of the few files outside it a run may change (the
adapter's config files, the user's registry and the directories above them), and a backup
must hash as the line says. One problem and the journal is refused, nothing touched.

The user's registry (``installer/registry.py``) is never restored from a journal's bytes,
which could make a foreign manifest trusted: ``Registry.settle`` keeps or restores the
root's record only where the registry itself vouches for the manifest now back on disk.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ManifestError, MsdError
from . import lock, manifest
from .confine import MAX_OWN_FILE, escaping_link, is_ancestor_chain, rel_problem, show
from .dirfd import Dirs, Spot, lstat_at, open_dir_at, read_at
from .fs import fsync_dir, write_at
from .guard import Guard
from .journal import INTENT, discard
from .manifestcheck import JOURNAL_DIR, MANIFEST_NAME, PACK_MANIFEST, fold, rel_of
from .plan import Bounds
from .registry import Registry

MAX_INTENT = 8 << 20  # a real journal: ~200 lines of ~200 bytes
MAX_LINES = 50_000
_SHA256 = frozenset("0123456789abcdef")


class JournalError(MsdError):
    """A journal left in a root that msd-install will not act on."""

    exit_code = 4


@dataclass(frozen=True)
class Entry:
    op: str  # "file" | "mkdir" | "rmdir"
    path: Path
    line: dict[str, Any]


@dataclass(frozen=True)
class Found:
    verb: str
    started: str
    pid: int
    entries: list[Entry]
    manifest: str = MANIFEST_NAME  # whose run it was: MSD Core's or a pack's


def recover(
    root: Path,
    bounds: Callable[[], Bounds],
    registry: Registry,
    *,
    fence: Path | None = None,
    locked: bool = False,
    lock_timeout: float = 30.0,
) -> str | None:
    """Undo the run a journal in ``root`` was left by; one line saying so, or None.

    ``fence``: the project of a --local root (which may have been cloned): unless this user's
    msd-install wrote the root's manifest, nothing outside the project is touched and no
    symlink leading out of the root is followed. A global root is the user's own."""
    if not os.path.lexists(root / JOURNAL_DIR):
        return None
    if locked:
        return _recover(root, bounds, registry, fence)
    with lock.hold(root, lock_timeout):
        return _recover(root, bounds, registry, fence)


def _recover(
    root: Path, bounds: Callable[[], Bounds], registry: Registry, fence: Path | None
) -> str | None:
    where = root / JOURNAL_DIR
    try:
        st = os.lstat(where)
    except FileNotFoundError:
        return None  # another run recovered it while we waited for the lock
    if not stat.S_ISDIR(st.st_mode):
        raise _refused(where, "is not a directory")
    intent = where / INTENT
    raw = read_at(Spot(None, str(intent), intent), MAX_INTENT)
    if raw is None:
        if os.path.lexists(intent):
            raise _refused(intent, f"is not a plain file of at most {MAX_INTENT} bytes")
        discard(where)  # the run died before its first line: it changed nothing yet
        return None
    found = _parse(raw, intent, root, bounds(), registry.path)
    trusted = fence is None or registry.digest(root, found.manifest) is not None
    if not trusted:
        assert fence is not None
        _confined(found, root, fence, registry.path, intent)
    backups = {e.path: _backup(where, e.line) for e in found.entries if e.line.get("was") == "file"}
    _undo(root, found, backups, bounds(), registry, trusted, fence)
    discard(where)
    fsync_dir(root)
    return f"recovered: an interrupted {found.verb} of {found.started} was rolled back"


def _parse(raw: bytes, intent: Path, root: Path, bounds: Bounds, registry: Path) -> Found:
    lines = raw.split(b"\n")
    if lines[-1] != b"":  # the line being written when the run died: its change never began
        lines = lines[:-1]
    lines = [line for line in lines if line]
    if not lines or len(lines) > MAX_LINES:
        raise _refused(intent, f"has no header or more than {MAX_LINES} lines")
    docs: list[dict[str, Any]] = []
    for n, line in enumerate(lines, 1):
        try:
            doc = json.loads(line)
        except (ValueError, RecursionError):
            raise _refused(intent, f"line {n} is not JSON") from None
        if not isinstance(doc, dict):
            raise _refused(intent, f"line {n} is not an object")
        docs.append(doc)
    head = docs[0]
    if head.get("msd_journal") != 1 or head.get("verb") not in ("install", "uninstall", "reapply"):
        raise _refused(intent, "line 1 is not a journal header of this version")
    started, pid = head.get("started"), head.get("pid")
    if not isinstance(started, str) or len(started) > 40 or not isinstance(pid, int):
        raise _refused(intent, "line 1 has no start time or pid")
    name = head.get("manifest", MANIFEST_NAME)
    if name != MANIFEST_NAME and not (isinstance(name, str) and PACK_MANIFEST.fullmatch(name)):
        raise _refused(intent, "line 1 names no manifest of msd's")
    allowed = _outside(root, bounds, registry)
    entries = []
    for n, doc in enumerate(docs[1:], 2):
        why = _problem(doc, root, allowed)
        if why:
            raise _refused(intent, f"line {n}: {why}")
        entries.append(Entry(doc["op"], Path(os.path.normpath(root / doc["path"])), doc))
    return Found(head["verb"], started, pid, entries, name)


def _confined(found: Found, root: Path, fence: Path, registry: Path, intent: Path) -> None:
    """A journal in a project this user's msd-install has no record of: every file it
    names is inside the project, reached through no symlink leading out of the root."""
    for entry in found.entries:
        if entry.path == registry or entry.op != "file":
            continue
        if not entry.path.is_relative_to(fence):
            raise _refused(intent, f"{entry.path} is outside the project {fence}")
        base = root if entry.path.is_relative_to(root) else fence
        link = escaping_link(base, rel_of(base, entry.path))
        if link is not None:
            raise _refused(intent, f"{show(link)} is a symlink leading out of {base}")


def _outside(root: Path, bounds: Bounds, registry: Path) -> dict[str, str]:
    """The paths outside the root a run may change: relative form -> "file" | "dir"."""
    out: dict[str, str] = {}
    for path in (*bounds.config_files, *bounds.state_files, registry):
        out[rel_of(root, path)] = "file"
        for parent in path.parents:
            out.setdefault(rel_of(root, parent), "dir")
    return out


def _problem(doc: dict[str, Any], root: Path, allowed: dict[str, str]) -> str | None:
    op, rel = doc.get("op"), doc.get("path")
    if op not in ("file", "mkdir", "rmdir") or not isinstance(rel, str):
        return "not a change this version writes"
    kind = "file" if op == "file" else "dir"
    if allowed.get(rel) == kind or (kind == "dir" and (rel == "." or is_ancestor_chain(rel))):
        pass
    elif rel_problem(rel):
        return f"path {show(rel)} {rel_problem(rel)}"
    elif fold(rel).split("/")[0] in (fold(JOURNAL_DIR), fold(lock.LOCK_NAME)):
        return f"path {show(rel)} is the journal or the lock itself"
    if op == "rmdir" and not _mode(doc.get("mode")):
        return "rmdir without a directory mode"
    if op != "file":
        return None
    was = doc.get("was")
    if was == "absent":
        return None
    if was == "link":
        target = doc.get("target")
        ok = isinstance(target, str) and 0 < len(target) <= 4096 and "\0" not in target
        return None if ok else "a symlink without a target"
    if was != "file" or not _mode(doc.get("mode")):
        return "a file change without what was there before"
    backup, digest = doc.get("backup"), doc.get("sha256")
    if not (isinstance(backup, str) and backup.endswith(".bak") and backup[:-4].isdigit()):
        return "a backup name that is not <n>.bak"
    if not (isinstance(digest, str) and len(digest) == 64 and set(digest) <= _SHA256):
        return "a backup without its sha256"
    if doc.get("moved", False) not in (True, False):
        return "a backup neither moved nor copied"
    return None


def _mode(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 0o7777


def _backup(where: Path, line: dict[str, Any]) -> bytes | None:
    """The bytes to put back (checked against the line's hash), or None for a file a removal
    was about to move into the journal when the run died: the rename never happened, so the
    file is still where it was (``journal.moving``). A moved file is its own backup, holding
    whatever it held when it was moved: its bytes are put back as they are."""
    path = where / line["backup"]
    if line.get("moved") is True:
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return None
        data = (
            read_at(Spot(None, str(path), path), MAX_OWN_FILE) if stat.S_ISREG(st.st_mode) else None
        )
        if data is None:
            raise _refused(path, f"is not a plain file of at most {MAX_OWN_FILE} bytes")
        return data
    data = read_at(Spot(None, str(path), path), MAX_OWN_FILE)
    if data is None or hashlib.sha256(data).hexdigest() != line["sha256"]:
        raise _refused(path, "is missing, not a plain file, or not the bytes the journal names")
    return data


def _undo(
    root: Path,
    found: Found,
    backups: dict[Path, bytes | None],
    bounds: Bounds,
    registry: Registry,
    trusted: bool,
    fence: Path | None,
) -> None:
    """Every change in reverse order; the registry (and folders above it) last, by ``settle``."""
    above = set(registry.path.parents)
    outside = frozenset({*bounds.config_files, *bounds.state_files, registry.path})
    dirs = Dirs()
    guard = Guard(root, outside, trusted, fence).pin(dirs)
    later: list[Entry] = []
    try:
        for entry in reversed(found.entries):
            if entry.path == registry.path or (entry.op != "file" and entry.path in above):
                later.append(entry)
                continue
            try:
                if entry.op != "file" and (entry.path == root or root.is_relative_to(entry.path)):
                    spot = dirs.by_path(entry.path)  # the root and the parents made for it
                else:
                    spot = guard.locate(entry.path, _action(entry))
            except FileNotFoundError:
                if _removes(entry):
                    continue  # its folder is gone (a rollback got that far): so is it
                raise
            _put_back(spot, entry, backups.get(entry.path), found.pid)
        if any(e.path == registry.path for e in later):
            was_absent = any(e.line.get("was") == "absent" for e in later)
            # the run's own manifest, and any sibling it handed structure to (handover.py):
            # each is vouched for again only where the record did before the run
            names = [found.manifest, *_siblings(root, found.manifest)]
            for n, name in enumerate(names):
                restored = _manifest_digest(root, bounds, name)
                last = n == len(names) - 1
                registry.settle(root, restored, drop_if_empty=was_absent and last, name=name)
        for entry in later:
            if entry.op == "mkdir":
                with contextlib.suppress(OSError):
                    entry.path.rmdir()
    finally:
        dirs.close()


def _removes(entry: Entry) -> bool:
    """The undo of this change only removes something (a file or a folder the run made)."""
    return entry.op == "mkdir" or (entry.op == "file" and entry.line.get("was") == "absent")


def _action(entry: Entry) -> str:
    if entry.op != "file":
        return "dir"
    return {"absent": "remove", "link": "link"}.get(entry.line["was"], "write")


def _put_back(spot: Spot, entry: Entry, content: bytes | None, pid: int) -> None:
    now = lstat_at(spot)
    if entry.op == "mkdir":
        if now is not None and stat.S_ISDIR(now.st_mode):
            with contextlib.suppress(OSError):  # not empty: something not of this run is in it
                os.rmdir(spot.name, dir_fd=spot.fd)
        return
    if entry.op == "rmdir":
        if now is None:
            os.mkdir(spot.name, entry.line["mode"], dir_fd=spot.fd)
            fd = open_dir_at(spot)  # the mode through the descriptor: never through a link
            try:
                os.fchmod(fd, entry.line["mode"])
            finally:
                os.close(fd)
        return
    _sweep(spot, pid)
    was = entry.line["was"]
    if now is not None and stat.S_ISDIR(now.st_mode):
        return  # never msd's to remove: a run only writes files
    if was == "file":
        if content is None:  # a move into the journal that never happened: still in place
            return
        write_at(spot, content, entry.line["mode"])
    elif now is not None:
        os.unlink(spot.name, dir_fd=spot.fd)
    if was == "link":
        os.symlink(entry.line["target"], spot.name, dir_fd=spot.fd)


def _sweep(spot: Spot, pid: int) -> None:
    """The temp file a write of the dead run may have left beside ``spot``'s file."""
    if spot.fd is None:
        return
    prefix = f".{spot.name}.msd-tmp.{pid}."
    with os.scandir(spot.fd) as entries:
        stale = [e.name for e in entries if e.name.startswith(prefix)]
    for name in stale[:64]:
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=spot.fd)


def _siblings(root: Path, name: str) -> list[str]:
    """The other manifests in ``root``: MSD Core's and the packs' (``--payload``)."""
    try:
        here = sorted(p.name for p in root.iterdir())
    except OSError:
        return []
    return [n for n in here if n != name and (n == MANIFEST_NAME or PACK_MANIFEST.fullmatch(n))]


def _manifest_digest(root: Path, bounds: Bounds, name: str) -> str | None:
    """The digest of the manifest ``name`` now back in ``root`` (None: none, or not valid)."""
    try:
        found = manifest.validated(root, lambda: bounds, name)
    except (ManifestError, OSError):
        return None
    return None if found is None else found.digest()


def _refused(path: Path, problem: str) -> JournalError:
    return JournalError(
        f"journal of an interrupted run refused: {problem}",
        path=path,
        hint=f"nothing was changed; if no msd-install run is working here, remove "
        f"{JOURNAL_DIR} (it did not come from your msd-install) and run again",
    )
