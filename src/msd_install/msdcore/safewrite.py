"""Every change a tool makes to the workspace: write, create directories, move, delete.

The write half of the confinement model (``safeio`` is the read half): directories are reached
from the root without following symlinks, and each operation is one ``*at`` syscall on such a
descriptor. Around that syscall the call's guard is asked first (``CallGuard.begin``: refused
when the call is cancelled or expired, and the audit journal's intent record is written before
the change, so an unwritable audit log means no change) and told after (``end``).

* Files are replaced atomically: a temporary file made with ``O_CREAT | O_EXCL | O_NOFOLLOW``,
  fsync-ed, renamed over the target. A symlink at the target is refused, never written
  through; a file with several hard links is refused, since it may be shared with a file
  outside; a file over ``HASH_LIMIT`` is refused before anything is read, since its old
  content could not be recorded.
* A move never leaves a link that points out of the workspace: moving a symlink (or a
  directory holding symlinks) somewhere else changes what a relative target means, so every
  link it carries is checked at its new place first (``linkcheck``). Moves by every
  server on the same workspace are serialised by a lock on the root directory, so no other
  session can slip a link into a directory between that check and the rename.

Temporary files and the planning layer's lock files are not journaled: they exist only while
a call runs and are never left behind on purpose.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from .callguard import CallGuard, Change
from .linkcheck import check_moved_links
from .safeio import DIR_FLAGS, HASH_LIMIT, digest_at, kind_of, lstat_at, open_dir
from .toolerror import ToolError
from .toolspec import ToolContext

_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def _rel(parts: tuple[str, ...]) -> str:
    return "/".join(parts) or "."


@contextmanager
def _changing(guard: CallGuard, change: Change) -> Iterator[None]:
    guard.begin(change)
    done: Change | None = None
    try:
        yield
        done = change
    finally:
        guard.end(done)


def _fsync_dir(dir_fd: int) -> None:
    with suppress(OSError):  # makes a rename durable; not possible everywhere
        os.fsync(dir_fd)


def make_dirs(ctx: ToolContext, parts: tuple[str, ...]) -> bool:
    """``mkdir -p root/parts`` without following symlinks; True if the last one was made."""
    fd = os.open(ctx.root, DIR_FLAGS)
    created = False
    try:
        for i, name in enumerate(parts):
            created = False
            try:
                nxt = os.open(name, DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                change = Change("mkdir", _rel(parts[: i + 1]))
                ctx.guard.begin(change)
                try:
                    os.mkdir(name, 0o777, dir_fd=fd)
                    created = True
                except FileExistsError:
                    pass  # made concurrently: the open below still refuses a symlink
                finally:
                    ctx.guard.end(change if created else None)
                nxt = os.open(name, DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = nxt
    finally:
        os.close(fd)
    return created


def _check_replaceable(old: os.stat_result, rel: str) -> None:
    if stat.S_ISLNK(old.st_mode):
        raise ToolError("path_changed", f"'{rel}' became a symlink during the call")
    if not stat.S_ISREG(old.st_mode):
        raise ToolError("not_a_file", f"'{rel}' is a {kind_of(old.st_mode)}")
    if old.st_nlink > 1:
        raise ToolError("hardlinked", f"'{rel}' has {old.st_nlink} hard links; refusing to write")
    if old.st_size > HASH_LIMIT:
        raise ToolError(
            "too_large",
            f"'{rel}' is {old.st_size} bytes; only files up to {HASH_LIMIT} are replaced",
        )


def write_bytes(
    ctx: ToolContext, parts: tuple[str, ...], data: bytes, *, create_parents: bool = False
) -> bool:
    """Replace or create ``root/parts`` atomically with ``data``; True if it was created."""
    if not parts:
        raise ToolError("is_a_directory", "'.' is a directory")
    name, rel = parts[-1], _rel(parts)
    if create_parents:
        make_dirs(ctx, parts[:-1])
    with open_dir(ctx.root, parts[:-1]) as dfd:
        old = lstat_at(dfd, name)
        before = None
        if old is not None:
            _check_replaceable(old, rel)
            before = digest_at(dfd, name, rel, ctx.guard)
        # os.urandom, not secrets: secrets imports hmac, a cost msd-tools pays on every call
        tmp = f".{name[:200]}.msd-{os.urandom(6).hex()}.tmp"
        mode = stat.S_IMODE(old.st_mode) if old is not None else 0o666
        fd = os.open(tmp, _CREATE_FLAGS, mode, dir_fd=dfd)
        try:
            try:
                if old is not None:
                    os.fchmod(fd, mode)  # keep the file's mode; umask applies to new files only
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            finally:
                os.close(fd)
            import hashlib  # only when writing: msd-tools' reads do not pay for it

            after = hashlib.sha256(data).hexdigest()
            change = Change("create" if old is None else "write", rel, before, after)
            with _changing(ctx.guard, change):
                os.rename(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        except BaseException:
            with suppress(OSError):
                os.unlink(tmp, dir_fd=dfd)
            raise
        _fsync_dir(dfd)
        return old is None


def remove_file(ctx: ToolContext, parts: tuple[str, ...]) -> None:
    """Delete the regular file ``root/parts`` (a symlink or directory there is refused)."""
    rel = _rel(parts)
    with open_dir(ctx.root, parts[:-1]) as dfd:
        old = lstat_at(dfd, parts[-1])
        if old is None:
            raise ToolError("not_found", f"'{rel}' does not exist")
        if not stat.S_ISREG(old.st_mode):
            raise ToolError("not_a_file", f"'{rel}' is a {kind_of(old.st_mode)}")
        before = digest_at(dfd, parts[-1], rel, ctx.guard)
        with _changing(ctx.guard, Change("delete", rel, before, None)):
            os.unlink(parts[-1], dir_fd=dfd)
        _fsync_dir(dfd)


@contextmanager
def _moves_locked(ctx: ToolContext) -> Iterator[None]:
    """Exclusive, across processes, for the moves on this workspace (``flock`` on its root)."""
    import fcntl
    import time

    fd = os.open(ctx.root, DIR_FLAGS)
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                ctx.guard.check()
                time.sleep(0.002)
        yield
    finally:
        os.close(fd)  # closing the last descriptor releases the lock


def move(ctx: ToolContext, src: tuple[str, ...], dst: tuple[str, ...]) -> str:
    """Rename the entry ``src`` to ``dst`` (which must not exist); return the entry's kind."""
    srel, drel = _rel(src), _rel(dst)
    with (
        _moves_locked(ctx),
        open_dir(ctx.root, src[:-1]) as sfd,
        open_dir(ctx.root, dst[:-1]) as dfd,
    ):
        st = lstat_at(sfd, src[-1])
        if st is None:
            raise ToolError("not_found", f"source '{srel}' does not exist")
        if lstat_at(dfd, dst[-1]) is not None:
            raise ToolError("exists", f"destination '{drel}' already exists; refusing to overwrite")
        check_moved_links(sfd, src[-1], st, dst[:-1], drel, ctx.guard, str(ctx.root))
        digest = None
        if stat.S_ISREG(st.st_mode) and st.st_size <= HASH_LIMIT:
            digest = digest_at(sfd, src[-1], srel, ctx.guard)
        with _changing(ctx.guard, Change("move", srel, digest, digest, to=drel)):
            os.rename(src[-1], dst[-1], src_dir_fd=sfd, dst_dir_fd=dfd)
        _fsync_dir(dfd)
        return kind_of(st.st_mode)
