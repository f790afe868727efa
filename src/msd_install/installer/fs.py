"""The one writer: atomic file writes inside a transaction that can put the tree back.

Every byte msd-install puts on disk goes through ``Transaction``. Before touching a path it
keeps what was there (bytes, mode and owner, or absence); ``rollback`` restores all of it in
reverse order, so any exception or Ctrl-C leaves the exact prior tree. A write is temp file
in the same directory + fsync + rename (+ fsync of the directory), keeping the mode, owner
and group of a file it replaces (``owners``); a new file of msd's payload, which need not be
durable at once, is created at its name instead (``_write_at``); a user's config file with
other hard links is rewritten in place instead (``inplace``), so that every name keeps seeing
the same bytes.
Every change and its undo is made relative to a directory descriptor (``dirfd``). A
symlinked config file (dotfile managers) is written through by ``write``, never by
``write_at``, which replaces whatever name it is given.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ConcurrentChangeError, ConfigFileError, MsdError
from . import owners
from .confine import real_target
from .dirfd import DIR_FD, Dir, Dirs, Spot, lstat_at, open_dir_at, read_at
from .interrupts import atomically

if TYPE_CHECKING:
    from .journal import Journal


def sha256_bytes(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def read_file(path: Path) -> bytes | None:
    """A file's bytes (through a link), None when absent; anything else in the way is an error
    (``read_file_stat``)."""
    got = read_file_stat(path)
    return None if got is None else got[0]


def read_file_stat(path: Path) -> tuple[bytes, os.stat_result] | None:
    """A file's bytes (through a link) and the ``fstat`` of the descriptor they were read
    through, None when absent; anything else in the way is an error.

    Checked with ``stat`` before it is opened (a socket cannot be opened at all), then
    opened without blocking and checked again on the descriptor: a FIFO put in its place
    after the ``stat`` would otherwise hang the run forever, a dry run included.
    """
    try:
        before = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    if not stat.S_ISREG(before.st_mode):
        raise not_a_file(path, before.st_mode)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:  # replaced by a directory or a socket since the stat
        raise ConfigFileError(f"cannot be opened: {exc.strerror}", path=path) from None
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(handle.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise not_a_file(path, st.st_mode)
        return handle.read(), st


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def kind_of(mode: int) -> str:
    """What a ``st_mode`` that is not a plain file's or a symlink's holds ("a FIFO ...")."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def not_a_file(path: Path, mode: int) -> ConfigFileError:
    """The one-line refusal of a config path that holds something other than a file."""
    return ConfigFileError(
        f"is {kind_of(mode)}, not a regular file: msd-install neither reads nor replaces it",
        path=path,
        hint="move it away, or point the runtime at a real file; nothing was changed",
    )


def write_at(
    spot: Spot,
    content: bytes,
    mode: int | None = None,
    *,
    durable: bool = True,
    owner: tuple[int, int] | None = None,
    in_place: bool = False,
) -> None:
    """Temp file in the spot's directory + rename onto the name (a link there is replaced,
    never written through). ``mode`` None keeps the mode of the plain file it replaces;
    ``owner`` None keeps its owner and group (a new file: ``owners.for_new``). With
    ``in_place`` (a user's config file), a plain file with other hard links is rewritten in
    place instead (``inplace``: why, and what it costs)."""
    _write_at(spot, content, mode, lstat_at(spot), durable=durable, owner=owner, in_place=in_place)


def _write_at(
    spot: Spot,
    content: bytes,
    mode: int | None,
    st: os.stat_result | None,
    *,
    durable: bool = True,
    owner: tuple[int, int] | None = None,
    in_place: bool = False,
) -> None:
    """``write_at``, given what ``lstat_at(spot)`` just returned (``st``). A new file that
    need not be durable (msd's payload) is created at its name at once (``O_EXCL``, never
    through a link): no temp file to rename, and nothing of anyone's to replace atomically;
    a run killed while writing it leaves what the journal's ``absent`` line removes."""
    plain = st is not None and stat.S_ISREG(st.st_mode)
    if in_place and plain and st is not None and st.st_nlink > 1:
        from .inplace import write_in_place

        write_in_place(spot, content, mode)
        return
    if mode is None:
        mode = st.st_mode & 0o7777 if plain and st is not None else 0o644
    if owner is None:
        owner = (st.st_uid, st.st_gid) if plain and st is not None else _for_new(spot)
    name = spot.name
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    if st is None and not durable:
        try:
            _create_at(spot, content, mode, owner, flags)
            return
        except FileExistsError:  # made by someone else since the lstat: replaced, as before
            pass
    head, _, leaf = name.rpartition(os.sep) if spot.fd is None else ("", "", name)
    tmp = f"{head}{os.sep if head else ''}.{leaf}.msd-tmp.{os.getpid()}.{os.urandom(4).hex()}"
    fd = -1
    try:  # opened inside the try: a signal right after the open still removes the temp file
        fd = os.open(tmp, flags | getattr(os, "O_NOFOLLOW", 0), 0o600, dir_fd=spot.fd)
        view = memoryview(content)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        owners.give(fd, owner, spot.path)  # before the mode: a chown clears set-ID bits
        if hasattr(os, "fchmod"):
            os.fchmod(fd, mode)
        if durable:
            os.fsync(fd)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=spot.fd)
        raise
    os.close(fd)
    try:
        os.replace(tmp, name, src_dir_fd=spot.fd, dst_dir_fd=spot.fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=spot.fd)
        raise
    if durable:
        _sync_dir(spot)


def _create_at(
    spot: Spot, content: bytes, mode: int, owner: tuple[int, int] | None, flags: int
) -> None:
    fd = -1
    try:  # opened inside the try: a signal right after the open still removes the file
        fd = os.open(spot.name, flags | getattr(os, "O_NOFOLLOW", 0), 0o600, dir_fd=spot.fd)
        view = memoryview(content)
        while view:
            view = view[os.write(fd, view) :]
        owners.give(fd, owner, spot.path)  # before the mode: a chown clears set-ID bits
        if hasattr(os, "fchmod"):
            os.fchmod(fd, mode)
    except BaseException:
        if fd >= 0:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(spot.name, dir_fd=spot.fd)
        raise
    os.close(fd)


def _for_new(spot: Spot) -> tuple[int, int] | None:
    """The owner a new entry at ``spot`` gets: that of the directory it is made in."""
    if not owners.is_root():
        return None
    if spot.dir is None:
        parent = os.stat(Path(spot.name).parent)
        return owners.for_new_ids(parent.st_uid, parent.st_gid)
    if spot.dir.owner is None:  # a folder's owner stays what it was for the whole run
        parent = os.fstat(spot.dir.fd)
        spot.dir.owner = (parent.st_uid, parent.st_gid)
    return owners.for_new_ids(*spot.dir.owner)


def _sync_dir(spot: Spot) -> None:
    if os.name != "posix":
        return
    if spot.fd is None:
        fsync_dir(Path(spot.name).parent)
        return
    with contextlib.suppress(OSError):
        os.fsync(spot.fd)


def fsync_dir(path: Path) -> None:
    if os.name != "posix":
        return
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class Known:
    """A file as resolution read and hashed it: its bytes, their hash, and the identity of
    the file they were read from (device, inode, size, modification and change times, from
    the descriptor they were read through). A removal checks the file is still that one
    (``remove_at``), so that the file is read and hashed once per run: a write, a chmod or a
    replacement since changes the inode or a time, and the run stops instead of removing it.
    The bytes are what a rollback writes back once the journal holding the file is gone."""

    __slots__ = ("_id", "content", "sha256")

    def __init__(self, content: bytes, sha256: str, st: os.stat_result) -> None:
        self.content = content
        self.sha256 = sha256
        self._id = _identity(st)

    def matches(self, st: os.stat_result) -> bool:
        return _identity(st) == self._id

    def same_file(self, st: os.stat_result) -> bool:
        """``matches`` but for the change time, which a rename sets."""
        return _identity(st)[:4] == self._id[:4]


def _moved_stat(aside: Dir | None, path: Path) -> os.stat_result:
    if aside is None:
        return os.lstat(path)
    return os.stat(path.name, dir_fd=aside.fd, follow_symlinks=False)


def _identity(st: os.stat_result) -> tuple[int, int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class InjectedFaultError(RuntimeError):
    """Raised by a test's fault hook to simulate a crash after the k-th write."""


class Transaction:
    """Collects undo information for every mutation; ``rollback`` restores the prior tree.

    Each change is made at a ``Spot`` (a name in a directory opened once, ``dirfd``), and its
    undo is recorded at the same spot: a rollback puts things back in the directories the run
    changed, even if a path leading to them has been swapped for a symlink since. The path
    methods (``write``, ``remove``, ...) open the parent through its path; ``execute`` passes
    spots that its ``Guard`` has confined to the root.
    """

    def __init__(self, fault: Callable[[int], None] | None = None) -> None:
        self._undo: list[Callable[[], None]] = []
        self._seen: set[tuple[int, int, str] | str] = set()
        self._fault = fault
        self._unsynced: list[Spot] = []  # payload files written without an fsync (flush)
        self.dirs = Dirs()
        self._aside: tuple[Journal, Dir | None] | None = None  # the journal's folder, open
        self.mutations = 0
        # the run's intent journal (installer/journal.py): told of each change before it
        self.journal: Journal | None = None
        self._at_end: list[Callable[[bool], None]] = []
        self.sealed = False  # the run's work is done: signals wait for the end (interrupts)

    def undo_with(self, undo: Callable[[], None]) -> None:
        """``undo()`` when a rollback reaches this point (changes after it undone first)."""
        self._undo.append(undo)

    def at_end(self, then: Callable[[bool], None]) -> None:
        """``then(committed)`` once the transaction has committed or rolled back as a whole,
        in the order given (a lock held for the rest of the run: ``registry.Registry``)."""
        self._at_end.append(then)

    def _ended(self, committed: bool) -> None:
        hooks, self._at_end = self._at_end, []
        for then in hooks:
            then(committed)

    def _tick(self) -> None:
        self.mutations += 1
        if self._fault is not None:
            self._fault(self.mutations)

    def _key(self, spot: Spot) -> tuple[int, int, str] | str:
        if spot.fd is None:
            return spot.name
        st = os.fstat(spot.fd)
        return (st.st_dev, st.st_ino, spot.name)

    def _remember(
        self,
        spot: Spot,
        in_place: bool = False,
        *,
        looked: bool = False,
        now: os.stat_result | None = None,
    ) -> None:
        """Keep what is at ``spot`` before its first change (``looked``: the caller has just
        called ``lstat_at``, which returned ``now``)."""
        key = self._key(spot)
        if key in self._seen:
            return
        self._seen.add(key)
        if not looked:
            now = lstat_at(spot)
        content = None
        if now is not None and stat.S_ISREG(now.st_mode):
            content = read_at(spot, now.st_size + (1 << 20))
            if content is None:
                raise ConfigFileError("changed while msd-install was reading it", path=spot.path)
        if self.journal is not None and (now is None or content is not None or _is_link(now)):
            self.journal.file(spot, now, content)
        if now is None:
            self._undo.append(functools.partial(_unlink_quiet, spot))
        elif stat.S_ISLNK(now.st_mode):  # a link is put back as a link, never read through
            target = os.readlink(spot.name, dir_fd=spot.fd)
            self._undo.append(functools.partial(_relink, spot, target, _ids(now)))
        elif content is not None:
            mode, ids = now.st_mode & 0o7777, _ids(now)
            undo = functools.partial(write_at, spot, content, mode, owner=ids, in_place=in_place)
            self._undo.append(undo)
        else:  # a FIFO, a device or a directory: never msd's to replace
            raise not_a_file(spot.path, now.st_mode)

    def write(self, path: Path, content: bytes, mode: int | None = None) -> None:
        """Write ``path`` (through a symlink there: a dotfile manager's config file)."""
        spot = self.dirs.by_path(real_target(path))
        self.write_at(Spot(spot.dir, spot.name, path), content, mode)

    @atomically
    def write_at(
        self,
        spot: Spot,
        content: bytes,
        mode: int | None = None,
        *,
        in_place: bool = False,
        sync: bool = True,
    ) -> None:
        """Replacing a file is durable at once, and so is a new file unless ``sync`` is
        False: msd's own payload bytes (``steps.Write.payload``), which hold nothing of the
        user's. One fsync per payload file made an install spend most of its time in fsync,
        and the ``os.sync`` that replaced them flushed every dirty page of the machine (and
        made the uninstall free disk blocks the incumbent never allocated)."""
        now = lstat_at(spot)
        existed = now is not None
        self._remember(spot, in_place, looked=True, now=now)
        self._tick()
        _write_at(spot, content, mode, now, durable=existed or sync, in_place=in_place)
        if not (existed or sync):
            self._unsynced.append(spot)

    @property
    def unsynced(self) -> bool:
        """Payload files written without an fsync that no ``flush`` has made durable yet."""
        return bool(self._unsynced)

    def flush(self) -> None:
        """Before the manifest is written: the journal's lines so far are durable, so that a
        manifest a power cut keeps always comes with the journal that can undo its run; and
        so are the payload files written without an fsync of their own, with one ``os.sync``
        for all of them (one fsync each made an install spend most of its time in fsync). A
        manifest must never list a file whose bytes a power cut may lose: the next run would
        take that empty file of msd's for an edit of the user's."""
        if self.journal is not None:
            self.journal.sync()
        if not self._unsynced:
            return
        if hasattr(os, "sync"):
            os.sync()
        else:  # pragma: no cover - Windows
            for spot in self._unsynced:  # no directory descriptors: names are full paths
                with open(spot.name, "rb+") as handle:
                    os.fsync(handle.fileno())
        self._unsynced.clear()

    def remove(self, path: Path) -> None:
        self.remove_at(self.dirs.by_path(path))

    @atomically
    def remove_at(
        self, spot: Spot, known: Known | None = None, now: os.stat_result | None = None
    ) -> None:
        """Remove the file at ``spot`` (``now``: its ``lstat``, if the caller has it).
        ``known``: how resolution read it; if it is no longer that file, the run stops
        (``ConcurrentChangeError``) and nothing of it is removed. Under a journal a plain
        file is moved into it (``_move_aside``), else copied there."""
        if known is not None and now is None:
            now = lstat_at(spot)
        if known is not None and (now is None or not known.matches(now)):
            raise ConcurrentChangeError(
                "changed by another program while msd-install was removing it",
                path=spot.path,
                hint="every change of this run was rolled back; run msd-install again",
            )
        if self.journal is not None and self._move_aside(spot, known, now):
            return
        self._remember(spot)
        self._tick()
        self.dirs.forget_paths()  # a link to a directory, maybe: its path leads elsewhere now
        os.unlink(spot.name, dir_fd=spot.fd)

    def _move_aside(
        self, spot: Spot, known: Known | None, now: os.stat_result | None = None
    ) -> bool:
        """A removal as one rename of the file into the run's journal, where it is its own
        backup: no copy, no hard link and second unlink, and (with ``known``) no second
        read or hash. The journal's line comes first, then the rename; a run killed between
        the two left the file in place (recovery: nothing to put back), one killed after it
        left it in the journal (recovery moves its bytes back). False, with nothing done but
        that line, where a rename cannot serve: a file this run already changed (its first
        undo restores it), one with other hard links (the backup must not change with them),
        or a journal on another file system; the caller copies it instead."""
        journal = self.journal
        assert journal is not None
        key = self._key(spot)
        if key in self._seen:
            return False
        now = now if now is not None else lstat_at(spot)
        if now is None or not stat.S_ISREG(now.st_mode) or now.st_nlink != 1:
            return False
        if known is not None:
            content, digest = known.content, known.sha256
        else:
            read = read_at(spot, now.st_size + (1 << 20))
            if read is None:
                raise ConfigFileError("changed while msd-install was reading it", path=spot.path)
            content, digest = read, sha256_bytes(read)
        name = journal.moving(spot, now, digest)
        aside = self._journal_dir(journal)
        self._tick()
        kept = (content, now.st_mode & 0o7777, _ids(now))
        # the undo first: a Ctrl-C right after the rename must still find it
        self._undo.append(functools.partial(_move_back, aside, journal.dir / name, spot, kept))
        try:
            if aside is None:
                os.rename(spot.name, journal.dir / name)  # noqa: PTH104 - as the line below
            else:
                os.rename(spot.name, name, src_dir_fd=spot.fd, dst_dir_fd=aside.fd)
        except OSError:  # another file system, or a rename refused: copied instead
            self._undo.pop()
            return False
        self._seen.add(key)
        if known is not None and not known.same_file(_moved_stat(aside, journal.dir / name)):
            # replaced or written between the check and the rename: the undo moves it back
            raise ConcurrentChangeError(
                "changed by another program while msd-install was removing it",
                path=spot.path,
                hint="every change of this run was rolled back; run msd-install again",
            )
        self._tick()  # a kill point after the rename, before the next line
        return True

    def _journal_dir(self, journal: Journal) -> Dir | None:
        """The journal's folder, opened once per journal (None: no descriptors here)."""
        if self._aside is None or self._aside[0] is not journal:
            aside = None
            if DIR_FD:
                flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
                aside = self.dirs.keep(os.open(journal.dir, flags | getattr(os, "O_CLOEXEC", 0)))
            self._aside = (journal, aside)
        return self._aside[1]

    def makedirs(self, path: Path) -> list[Path]:
        """Create ``path`` and missing parents; returns the directories it created."""
        missing: list[Path] = []
        probe = path
        while not probe.exists():
            missing.append(probe)
            if probe.parent == probe:
                break
            probe = probe.parent
        created: list[Path] = []
        for directory in reversed(missing):
            if self.mkdir_at(self.dirs.by_path(directory)):
                created.append(directory)
        return created

    @atomically
    def mkdir_at(self, spot: Spot) -> bool:
        """Create the directory at ``spot``; False when another run made it in between."""
        if self.journal is not None:
            self.journal.mkdir(spot)
        self._tick()
        want = _for_new(spot)
        try:
            os.mkdir(spot.name, dir_fd=spot.fd)
        except FileExistsError:
            now = lstat_at(spot)
            if now is not None and stat.S_ISDIR(now.st_mode):  # not ours to remove
                return False
            raise
        self._undo.append(functools.partial(_rmdir_quiet, spot))
        if want is not None:
            _give_dir(spot, want)
        return True

    @atomically
    def symlink_at(self, spot: Spot, target: str) -> None:
        self._remember(spot)
        self._tick()
        want = _for_new(spot)
        os.symlink(target, spot.name, dir_fd=spot.fd)
        owners.give_link(spot.fd, spot.name, want)

    def rmdir(self, path: Path) -> bool:
        """Remove ``path`` if it is an empty directory; True if removed."""
        return self.rmdir_at(self.dirs.by_path(path))

    @atomically
    def rmdir_at(self, spot: Spot) -> bool:
        """Remove the empty directory at ``spot`` (never a link the user put in its place)."""
        now = lstat_at(spot)
        if now is None or not stat.S_ISDIR(now.st_mode):
            return False
        if _listing(spot):
            return False
        kept = self.dirs.find(spot) if spot.fd is not None else None
        if self.journal is not None:
            self.journal.rmdir(spot, now.st_mode & 0o7777)
        self._tick()
        self.dirs.forget_paths()
        try:
            os.rmdir(spot.name, dir_fd=spot.fd)
        except OSError as exc:
            if exc.errno in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOENT):
                return False  # filled or taken away by someone else in between
            raise
        self._undo.append(
            functools.partial(self._remake_dir, spot, now.st_mode & 0o7777, kept, _ids(now))
        )
        return True

    def _remake_dir(
        self, spot: Spot, mode: int, kept: Dir | None, ids: tuple[int, int] | None = None
    ) -> None:
        """Undo of ``rmdir_at``: the directory again, with its mode and owner; undos
        recorded inside the removed one now act in the new one."""
        with contextlib.suppress(FileExistsError):
            os.mkdir(spot.name, mode, dir_fd=spot.fd)
        if spot.fd is None:
            Path(spot.name).chmod(mode)
            return
        fd = open_dir_at(spot)
        owners.give(fd, ids, spot.path)
        os.fchmod(fd, mode)  # through the descriptor: a link put there since is not followed
        if kept is not None:
            self.dirs.replace(kept, fd)
        else:
            os.close(fd)

    def mark(self) -> int:
        """A point ``rollback(keep=...)`` can go back to."""
        return len(self._undo)

    @atomically
    def rollback(self, keep: int = 0) -> None:
        """Undo every change made after ``mark()`` returned ``keep`` (all: 0)."""
        errors: list[BaseException] = []
        try:
            while len(self._undo) > keep:
                undo = self._undo.pop()
                try:
                    undo()
                except (OSError, MsdError) as exc:  # keep going: put back as much as possible
                    errors.append(exc)
        finally:
            if not keep:
                self.dirs.close()
                self._ended(False)
        if errors:
            raise errors[0]

    def commit(self) -> None:
        self._undo.clear()
        self.dirs.close()
        self._ended(True)


def _listing(spot: Spot) -> bool:
    """Does the directory at ``spot`` hold anything (opened without following a link)?"""
    if spot.fd is None:
        return any(Path(spot.name).iterdir())
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(spot.name, flags | getattr(os, "O_CLOEXEC", 0), dir_fd=spot.fd)
    try:
        with os.scandir(fd) as entries:
            return any(True for _ in entries)
    finally:
        os.close(fd)


def _is_link(now: os.stat_result) -> bool:
    return stat.S_ISLNK(now.st_mode)


def _unlink_quiet(spot: Spot) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(spot.name, dir_fd=spot.fd)


def _relink(spot: Spot, target: str, ids: tuple[int, int] | None = None) -> None:
    _unlink_quiet(spot)
    os.symlink(target, spot.name, dir_fd=spot.fd)
    owners.give_link(spot.fd, spot.name, ids)


def _ids(st: os.stat_result) -> tuple[int, int] | None:
    """The owner an undo gives back: only root can give any (for others it is theirs)."""
    return (st.st_uid, st.st_gid) if owners.is_root() else None


def _give_dir(spot: Spot, want: tuple[int, int]) -> None:
    fd = open_dir_at(spot) if spot.fd is not None else os.open(spot.name, os.O_RDONLY)
    try:
        owners.give(fd, want, spot.path)
    finally:
        os.close(fd)


def _move_back(
    aside: Dir | None,
    path: Path,
    spot: Spot,
    kept: tuple[bytes, int, tuple[int, int] | None],
) -> None:
    """Undo of a removal by ``_move_aside``: the file moved back under its name (replacing
    what another program may have put there since, as the undo of a write does). Not in the
    journal: if something is under the name, the rename never happened (interrupted right
    before it) and the file is still there; if nothing is, the journal is gone (a failure
    after it finished: removing the root, the registry) and the bytes are written back, as
    a removal's undo always did."""
    try:
        if aside is None:
            os.replace(path, spot.name)
        else:
            os.replace(path.name, spot.name, src_dir_fd=aside.fd, dst_dir_fd=spot.fd)
        return
    except FileNotFoundError:
        if os.path.lexists(path):  # the way back is missing, not the file: not ours to guess
            raise
    if lstat_at(spot) is not None:
        return
    content, mode, ids = kept
    write_at(spot, content, mode, owner=ids)


def _rmdir_quiet(spot: Spot) -> None:
    with contextlib.suppress(OSError):
        os.rmdir(spot.name, dir_fd=spot.fd)
