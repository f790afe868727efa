"""Atomic file writes and strict text reads for ``.planning/`` files.

Every write goes to a temp file in the target's directory, is fsynced, then renamed over the
target, so a reader (another agent, a crash) never sees half a STATE.md or ROADMAP.md. The rename
replaces the directory entry: a hard link elsewhere to the old file is left untouched.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from ..toolspec import ToolError


def read_text(path: Path, label: str | None = None) -> str:
    """The UTF-8 text of ``path``; a missing or unreadable file is a ``ToolError``.

    ``label`` is how errors name the file (a project-relative path keeps machine paths out of
    messages that reach a model)."""
    name = label or str(path)
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            return fh.read()
    except FileNotFoundError:
        raise ToolError("not_found", f"{name}: no such file") from None
    except IsADirectoryError:
        raise ToolError("invalid_path", f"{name}: is a directory") from None
    except UnicodeDecodeError:
        raise ToolError("invalid_file", f"{name}: not UTF-8 text") from None
    except OSError as exc:
        raise ToolError("io_error", f"{name}: {exc.strerror}") from None


def atomic_write(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8) atomically, keeping the old file's permissions."""
    directory = path.parent
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o644
    # os.urandom, not secrets: secrets imports hmac/hashlib, a few ms on every CLI call.
    tmp = directory / f".{path.name}.{os.urandom(6).hex()}.tmp"
    data = text.encode("utf-8")
    try:
        # O_EXCL: the temp name is fresh, so a planted symlink at that name is never followed.
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), mode)
    except OSError as exc:
        raise ToolError("io_error", f"{path}: cannot write ({exc.strerror})") from None
    try:
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise ToolError("io_error", f"{path}: cannot write ({exc.strerror})") from None
    _fsync_dir(directory)


def _fsync_dir(directory: Path) -> None:
    # Makes the rename durable; not possible on every platform (Windows), hence best effort.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def ensure_dir(path: Path) -> None:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise ToolError("invalid_path", f"{path}: exists and is not a directory") from None
    except OSError as exc:
        raise ToolError("io_error", f"{path}: cannot create directory ({exc.strerror})") from None
