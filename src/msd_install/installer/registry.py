"""Which manifests this user's msd-install wrote: the record that tells them from foreign ones.

``<user state dir>/manifests.json`` maps each root (its real path) to the sha256 of the
manifest content msd-install last wrote there; a pack's manifest in that root (``--payload``)
is keyed by its own path, ``<root>/msd-file-manifest.<pack>.json``. It lives outside every
project, so a manifest that came with a cloned project, or one edited by hand or by another
program, does not match and is *foreign*: it is still used to remove what hashes as msd's,
but never to re-create a symlink, put back a replaced config value or follow a link out of
the root (see ``manifest.Manifest.restrict``). Why a record and not a signature: a key file
would stay behind forever, while this file goes (with the directories made for it) when the
last root it lists is uninstalled, so install + uninstall still leaves the home as it was.

Every change goes through the run's transaction, under a lock of its own directory. A run
that changes the record holds that lock until its transaction has committed or rolled back:
a rollback puts the record's bytes from before the run back, which is exact only if no other
run changed it in between (the workers of one ``--all``, or two msd-install commands at
once). For the same reason a root whose manifest is missing is forgotten only when no run
holds that root's lock (an uninstall under way there removes the manifest before it forgets
the root, and must not be forgotten by another run in between). The record's folders go
with the record once its lock is let go (the lock file is in one of them); if another run
records in between, they stay, in use again, and are handed to that run's record
(``_hand_over``), so that they go with it.

Config files are shared the same way: a file an install created (``~/.codebuddy.json``, which
CodeBuddy's local and global installs both edit) that its uninstall leaves holding another
recorded install's entries is recorded under ``files`` with its device and inode, and goes
with the later uninstall whose own removals leave that same file exactly empty
(``SharedFiles``; uninstall.py). An uninstall that leaves it holding only the user's own
settings drops it: the file is theirs from then on. Without this, the global install, which
found the file there, left ``{}``. Two uninstalls of the two installs at the same instant
can still leave ``{}`` (each decides before the other's change; no one's data is lost).
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import FileAccessError, MsdError
from . import lock
from .dirfd import Spot, lstat_at, read_at
from .fs import Transaction, write_at
from .manifestcheck import JOURNAL_DIR, MANIFEST_MAX_BYTES, MANIFEST_NAME, PACK_MANIFEST

REGISTRY_NAME = "manifests.json"
FORMAT = 1
MAX_BYTES = 4 << 20
HAND_OVER_WAIT = 2.0  # seconds an ending uninstall waits to hand its folders to a recorder
MAX_SHARED = 4096  # shared folders kept in the record: a bound on a file that is read often
_POLL = 0.005  # the record's lock is held briefly: try again soon


@dataclass
class SharedFiles:
    """Config files msd created that two installs edit (``~/.codebuddy.json``: CodeBuddy's
    local and global installs): the one that created it may be uninstalled first, and the file
    must then go with the later uninstall that leaves it empty. ``held``: what the record says
    of such files (real path -> device and inode when handed on: still that file, not one the
    user made again); ``elsewhere(real)``: does another recorded install's manifest have
    entries in that file. What an uninstall decides (uninstall.py) comes back to ``forget``:
    ``handed``, files it leaves holding another install's entries, and ``dropped``, files it
    leaves holding only the user's (theirs from now on)."""

    held: dict[str, tuple[int, int]] = field(default_factory=dict)
    elsewhere: Callable[[str], bool] = lambda _real: False
    handed: list[Path] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Registry:
    path: Path
    # the transaction that holds the record's lock until it ends (at most one per run)
    _holder: list[Transaction] = field(default_factory=list, compare=False, repr=False)

    @contextlib.contextmanager
    def _lock(self, tx: Transaction | None = None) -> Iterator[None]:
        """The record's lock: for the block; with ``tx``, until ``tx`` ends (see above)."""
        if self._holder:
            yield
            return
        if tx is None:
            with lock.hold(self.path.parent, poll=_POLL):
                yield
            return
        held = contextlib.ExitStack()
        held.enter_context(lock.hold(self.path.parent, poll=_POLL))
        self._holder.append(tx)

        def release() -> None:
            if self._holder:
                self._holder.clear()
                held.close()

        # a rollback lets go once it has put back what the run changed since (the record),
        # before it removes the folders made for the record (the lock file is in one)
        tx.undo_with(release)
        tx.at_end(lambda _committed: release())
        yield

    def digest(self, root: Path, name: str = MANIFEST_NAME) -> str | None:
        """The digest of the manifest ``name`` msd-install last wrote in ``root``, or None."""
        digest = self._read()["roots"].get(_key(root, name))
        return digest if isinstance(digest, str) else None

    def record(
        self, tx: Transaction, root: Path, digest: str, name: str = MANIFEST_NAME
    ) -> str | None:
        """Record the manifest just written in ``root``. Best effort: when the state directory
        cannot be written, returns a note and the manifest simply counts as foreign later."""
        if self.digest(root, name) == digest:
            return None
        key = _key(root, name)
        try:
            created = self._folder(tx)
            with self._lock(tx):
                doc = self._read()
                _prune(doc)
                before = doc["roots"].get(key)
                if isinstance(before, str):  # what a recovery may vouch for again (settle)
                    doc["previous"][key] = before
                doc["roots"][key] = digest
                doc["dirs"] = sorted({*doc["dirs"], *(str(d) for d in created)})
                self._write(tx, _dump(doc))
        except (OSError, MsdError) as exc:
            return self._unwritable(exc)
        return None

    def _folder(self, tx: Transaction) -> list[Path]:
        """Make the record's folder (the ones made: they go with the record) and take its
        lock for ``tx``. Another run that made it may roll back and remove it in between,
        while it holds nothing of ours yet: made again then, a few times at most."""
        created: list[Path] = []
        for attempt in range(3):
            created += tx.makedirs(self.path.parent)
            try:
                with self._lock(tx):
                    return created
            except FileNotFoundError:
                if attempt == 2:
                    raise
        return created  # pragma: no cover - the loop returns or raises

    def shared_files(self, root: Path) -> SharedFiles:
        """What the record says of config files msd created that installs hand on, for an
        uninstall of ``root`` (``SharedFiles``)."""
        doc = self._read()
        return SharedFiles(dict(doc["files"]), lambda real: _elsewhere(doc, real, root))

    def forget(
        self,
        tx: Transaction,
        root: Path,
        kept: list[Path],
        name: str = MANIFEST_NAME,
        files: SharedFiles | None = None,
    ) -> str | None:
        """Drop ``root``, once its own files and folders are gone. ``kept``: folders its install
        made that were not empty (another install, or the user, still has something there):
        they become *shared* and go with the later uninstall that leaves them empty; ``files``:
        config files handed on or dropped by this uninstall (``SharedFiles``). The
        record itself goes with the last root, in ``drop_if_empty``, after the root's lock
        and journal: until then a recovery can still vouch for the root (``previous``)."""
        if self.digest(root, name) is None:
            return None
        key = _key(root, name)
        try:
            with self._lock(tx):
                doc = self._read()
                before = doc["roots"].pop(key, None)
                if isinstance(before, str):
                    doc["previous"][key] = before
                _prune(doc)
                ids = doc["shared_ids"]
                for folder in kept:  # which folder it is: one made again later is not ours
                    for found in _dir_ids(folder):  # (this install's: made by it, or since)
                        ids[str(folder)] = found
                shared = sorted({*doc["shared"], *(str(d) for d in kept)}, key=_deepest_first)
                doc["shared"] = [d for d in shared if not _gone(tx, Path(d), ids.get(d))]
                doc["shared_ids"] = {d: ids[d] for d in doc["shared"] if d in ids}
                doc["files"] = _handed(doc["files"], files)
                self._write(tx, _dump(doc))
        except (OSError, MsdError) as exc:
            return self._unwritable(exc)
        return None

    def drop_if_empty(self, tx: Transaction) -> None:
        """The last steps of an uninstall, once the root's lock is let go. The last root is
        gone: the record, the shared folders and the directories made for the record go too
        (best effort: what stays is at most an empty record or folder). Else the shared
        folders that are empty now go (a root an uninstall recorded before it let go of its
        lock, and removed since, or was killed before removing), and the record drops them."""
        try:
            with self._lock(tx):
                doc = self._read()
                _prune(doc)
                if doc["roots"]:  # only folders whose identity was recorded (never a name
                    ids = doc["shared_ids"]  # alone: a folder made there since is not ours)
                    shared = [
                        d for d in doc["shared"] if d not in ids or not _gone(tx, Path(d), ids[d])
                    ]
                    if shared != doc["shared"]:
                        doc["shared"] = shared
                        doc["shared_ids"] = {d: ids[d] for d in shared if d in ids}
                        self._write(tx, _dump(doc))
                    return
                self._spot(tx)  # never a link or a FIFO of someone else's
                tx.remove(self.path)
        except (OSError, MsdError):
            return
        dirs, ids = sorted(doc["dirs"], key=_deepest_first), doc["shared_ids"]
        shared = [d for d in doc["shared"] if d not in ids or _dir_ids(Path(d)) in ((), (ids[d],))]

        def remove_folders(committed: bool) -> None:
            # once the lock (whose file is in the first of them) is let go, and only if the
            # record's removal stands; a folder someone filled in between stays, and if that
            # is another run, which records now, the folders are handed to its record
            for _ in range(3) if committed else ():
                for made in [*dirs, *shared]:
                    with contextlib.suppress(OSError):
                        Path(made).rmdir()
                if not self.path.parent.is_dir() or self._hand_over(dirs, shared):
                    return

        tx.at_end(remove_folders)

    def _hand_over(self, dirs: list[str], shared: list[str]) -> bool:
        """The record's folders (``dirs``) and shared folders a dropped record named, that
        stay because another run is using the record's folder (two commands at once: it
        found the folders there, and so did not make them): named in the record that run
        wrote, so that they go with it. Waits for that run to end (it holds the record's
        lock until then). False when there is no record to hand them to (that run rolled
        back, or only read): the folders may be empty again."""
        try:
            # bounded: this runs sealed (no signal stops it) after the commit; a run holding
            # the lock longer (stopped by Ctrl-Z) keeps the folders, empty at worst
            with lock.hold(self.path.parent, timeout=HAND_OVER_WAIT, poll=_POLL):
                spot = Spot(None, str(self.path), self.path)
                if lstat_at(spot) is None:
                    return False
                doc = self._read()
                doc["dirs"] = sorted({*doc["dirs"], *(d for d in dirs if Path(d).is_dir())})
                more = [d for d in shared if Path(d).is_dir()]
                doc["shared"] = sorted({*doc["shared"], *more}, key=_deepest_first)
                for folder in more:
                    for found in _dir_ids(Path(folder)):
                        doc["shared_ids"][folder] = found
                write_at(spot, _dump(doc), 0o600)
        except FileNotFoundError:  # the record's folder went meanwhile
            return False
        except (OSError, MsdError):  # best effort: what stays is at most an empty folder
            pass
        return True

    def confirm(self, root: Path, name: str = MANIFEST_NAME) -> None:
        """The run on ``root`` is complete (its journal gone): the previous digest kept for a
        recovery is dropped, so install + uninstall leaves the record as it was. Best effort:
        a stale one only lets a later recovery vouch for a manifest this user's msd wrote."""
        key = _key(root, name)
        if not self.path.is_file() or key not in self._read()["previous"]:
            return
        try:
            with self._lock():
                doc = self._read()
                if doc["previous"].pop(key, None) is not None:
                    write_at(Spot(None, str(self.path), self.path), _dump(doc), 0o600)
        except (OSError, MsdError):
            return

    def settle(
        self,
        root: Path,
        restored: str | None,
        *,
        drop_if_empty: bool,
        name: str = MANIFEST_NAME,
    ) -> None:
        """After a recovery put ``root``'s manifest back (digest ``restored``, None: none):
        the record vouches for it only if it did before the interrupted run (its current or
        previous digest for the root), never on the journal's word. ``drop_if_empty``: the
        run created the record, which goes again if it lists nothing."""
        if not self.path.parent.is_dir():
            return  # the interrupted run had removed it: nothing vouches for the root now
        with self._lock():
            doc = self._read()
            key = _key(root, name)
            if restored is not None and restored in (
                doc["roots"].get(key),
                doc["previous"].get(key),
            ):
                doc["roots"][key] = restored
            else:
                doc["roots"].pop(key, None)
            doc["previous"].pop(key, None)
            spot = Spot(None, str(self.path), self.path)
            if drop_if_empty and not doc["roots"]:
                if lstat_at(spot) is not None:
                    self.path.unlink()
            elif lstat_at(spot) is not None:
                write_at(spot, _dump(doc), 0o600)

    def _spot(self, tx: Transaction) -> Spot:
        """Where the record is, if it is a plain file or absent: anything else in its place
        (a symlink, a FIFO) was not put there by msd-install and is never written through."""
        spot = tx.dirs.by_path(self.path)
        now = lstat_at(spot)
        if now is not None and not stat.S_ISREG(now.st_mode):
            raise FileAccessError("is not a plain file", path=self.path)
        return spot

    def _write(self, tx: Transaction, data: bytes) -> None:
        tx.write_at(self._spot(tx), data, 0o600)  # a name replaced, never a link followed

    def _unwritable(self, exc: BaseException) -> str:
        reason = exc.strerror if isinstance(exc, OSError) else str(exc)
        return (
            f"could not update {self.path} ({reason}): msd-install will treat this root's "
            "manifest as one it did not write"
        )

    def _read(self) -> dict[str, Any]:
        """The record; anything unreadable counts as empty (every manifest is then foreign)."""
        empty: dict[str, Any] = {
            "format": FORMAT,
            "roots": {},
            "dirs": [],
            "shared": [],
            "previous": {},
            "files": {},
            "shared_ids": {},
        }
        try:
            # never through a link, and never blocking on a FIFO put in its place
            raw = read_at(Spot(None, str(self.path), self.path), MAX_BYTES)
            if raw is None:
                return empty
            doc = json.loads(raw)
        except (OSError, ValueError, RecursionError):
            return empty
        if not (
            isinstance(doc, dict)
            and doc.get("format") == FORMAT
            and isinstance(doc.get("roots"), dict)
            and isinstance(doc.get("dirs"), list)
        ):
            return empty
        # only directories above this file are ever removed with it
        above = self.path.parent
        dirs = [
            d
            for d in doc["dirs"]
            if isinstance(d, str) and Path(d).is_absolute() and above.is_relative_to(d)
        ]
        roots = {k: v for k, v in doc["roots"].items() if isinstance(v, str)}
        shared = _paths(doc.get("shared", []))
        files = _files(doc.get("files", {}))
        shared_ids = {d: ids for d, ids in _files(doc.get("shared_ids", {})).items() if d in shared}
        previous = doc.get("previous", {})
        previous = {
            k: v
            for k, v in list((previous if isinstance(previous, dict) else {}).items())[:MAX_SHARED]
            if isinstance(v, str)
        }
        return {
            "format": FORMAT,
            "roots": roots,
            "dirs": dirs,
            "shared": shared,
            "previous": previous,
            "files": files,
            "shared_ids": shared_ids,
        }


def _dir_ids(folder: Path) -> tuple[tuple[int, int], ...]:
    """``((device, inode),)`` of the folder (never through a link), or ``()``."""
    try:
        st = os.lstat(folder)
    except OSError:
        return ()
    return ((st.st_dev, st.st_ino),) if stat.S_ISDIR(st.st_mode) else ()


def _paths(value: Any) -> list[str]:
    """A list of absolute, normalised paths from the record (bounded; anything else dropped)."""
    return [
        d
        for d in (value if isinstance(value, list) else [])[:MAX_SHARED]
        if isinstance(d, str) and Path(d).is_absolute() and os.path.normpath(d) == d
    ]


def _files(value: Any) -> dict[str, tuple[int, int]]:
    """The record's shared config files: real path -> (device, inode); anything else dropped."""
    out: dict[str, tuple[int, int]] = {}
    for path, ids in list((value if isinstance(value, dict) else {}).items())[:MAX_SHARED]:
        if (
            isinstance(path, str)
            and Path(path).is_absolute()
            and os.path.normpath(path) == path
            and isinstance(ids, list)
            and len(ids) == 2
            and all(isinstance(i, int) and not isinstance(i, bool) for i in ids)
        ):
            out[path] = (ids[0], ids[1])
    return out


def _handed(held: dict[str, tuple[int, int]], files: SharedFiles | None) -> dict[str, Any]:
    """The shared files after an uninstall: its drops out, its hand-overs in (with the file's
    identity now), and only entries still naming the very file they were recorded for."""
    out = dict(held)
    for real in files.dropped if files is not None else ():
        out.pop(real, None)
    for path in files.handed if files is not None else ():
        with contextlib.suppress(OSError):
            st = os.stat(path)
            if stat.S_ISREG(st.st_mode):
                out[os.path.realpath(path)] = (st.st_dev, st.st_ino)
    kept: dict[str, Any] = {}
    for real, ids in sorted(out.items())[:MAX_SHARED]:
        with contextlib.suppress(OSError):
            st = os.stat(real)
            if stat.S_ISREG(st.st_mode) and (st.st_dev, st.st_ino) == ids:
                kept[real] = list(ids)
    return kept


def _elsewhere(doc: dict[str, Any], real: str, root: Path) -> bool:
    """Does the manifest of another root the record lists have a config entry in the file
    ``real``? Read only when an uninstall leaves a created file holding something."""
    ours = os.path.realpath(root)
    budget = 4 * MANIFEST_MAX_BYTES  # bytes of manifests read in all: past it, "no" (the
    for key in list(doc["roots"])[:MAX_SHARED]:  # file then stays, the user's: never lost)
        path = _manifest_of(key)
        if str(path.parent) == ours:
            continue
        try:
            raw = read_at(Spot(None, str(path), path), min(budget, MANIFEST_MAX_BYTES))
            other = json.loads(raw) if raw is not None else None
        except (OSError, ValueError, RecursionError):
            continue
        budget -= len(raw) if raw is not None else 0
        if budget <= 0:
            return False
        config = other.get("config") if isinstance(other, dict) else None
        for record in config if isinstance(config, list) else ():
            rel = record.get("file") if isinstance(record, dict) else None
            if isinstance(rel, str) and os.path.realpath(path.parent / rel) == real:
                return True
    return False


def _prune(doc: dict[str, Any]) -> None:
    """Forget roots whose manifest is gone (deleted or moved by hand): the record must not
    outlive every install it lists. Not while a run holds the root, or a killed run's journal
    is there (a root whose uninstall was killed after its manifest went stays vouched for
    until that run is recovered)."""
    doc["roots"] = {
        k: v
        for k, v in doc["roots"].items()
        if _manifest_of(k).is_file()
        or lock.busy(_manifest_of(k).parent)
        # a run killed there: its recovery needs the record to vouch for what it puts back
        or os.path.lexists(_manifest_of(k).parent / JOURNAL_DIR)
    }


def _manifest_of(key: str) -> Path:
    """The manifest a key stands for: MSD Core's in a root, or a pack's (its own path)."""
    path = Path(key)
    return path if PACK_MANIFEST.fullmatch(path.name) else path / MANIFEST_NAME


def _deepest_first(folder: str) -> int:
    return -len(Path(folder).parts)


def _gone(tx: Transaction, folder: Path, ids: tuple[int, int] | None = None) -> bool:
    """Remove ``folder`` if it is an empty directory; True when the record can drop it (gone,
    removed, or no longer a directory of ours: a file or a link now, or, with ``ids``, not
    the folder recorded: one made at that name since is someone else's, left as it is)."""
    if folder.is_symlink() or not folder.is_dir():
        return True
    if ids is not None and _dir_ids(folder) != (ids,):
        return True
    return tx.rmdir(folder)


def _key(root: Path, name: str = MANIFEST_NAME) -> str:
    real = os.path.realpath(root)
    return real if name == MANIFEST_NAME else str(Path(real) / name)


def _dump(doc: dict[str, Any]) -> bytes:
    # the record as it was before shared files and folders' identities: no churn
    doc = {k: v for k, v in doc.items() if k not in ("files", "shared_ids") or v}
    return (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode()
