"""Reading and writing ``.planning/`` files through the one confinement model.

Every function takes a ``Project`` and a ``Target`` (see ``project``) and reaches it with
``safeio``/``safewrite``: descriptors from the confinement root, ``O_NOFOLLOW`` on every
component, writes as temp file + fsync + rename, each change journaled for the audit log.
Listings never follow symlinks: ``entries`` reports a symlink as a symlink, and callers that
enumerate documents (phases, todos) take only real files and directories, so a link planted
there is ignored rather than followed. Documents are capped at ``MAX_DOC_BYTES`` before they
are read.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable

from ..confine import Target
from ..safeio import DIR_FLAGS, kind_of, open_dir, read_bytes, scan, stat_entry
from ..safewrite import make_dirs, remove_file, write_bytes
from ..toolspec import ToolError
from .project import Project

MAX_DOC_BYTES = 4 * 1024 * 1024


def _os_error(exc: OSError, name: str) -> ToolError:
    if exc.errno == errno.ENOENT:
        return ToolError("not_found", f"{name}: no such file")
    if exc.errno == errno.ELOOP:
        return ToolError("path_changed", f"{name}: changed into a symlink while being opened")
    if exc.errno == errno.ENOTDIR:
        return ToolError("invalid_path", f"{name}: a component is not a directory")
    return ToolError("io_error", f"{name}: {exc.strerror}")


def read_text(project: Project, target: Target, label: str | None = None) -> str:
    """The UTF-8 text of ``target``; a missing or unreadable file is a ``ToolError``.

    ``label`` is how errors name the file (a project-relative path keeps machine paths out of
    messages that reach a model)."""
    name = label or project.rel(target)
    try:
        data = read_bytes(project.ctx.root, target.parts, MAX_DOC_BYTES, project.ctx.guard)
    except ToolError as exc:
        if exc.code == "is_a_directory":
            raise ToolError("invalid_path", f"{name}: is a directory") from None
        if exc.code == "too_large":
            raise ToolError("too_large", f"{name}: larger than {MAX_DOC_BYTES} bytes") from None
        raise ToolError(exc.code, f"{name}: not a regular file") from None
    except OSError as exc:
        raise _os_error(exc, name) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError("invalid_file", f"{name}: not UTF-8 text") from None


def atomic_write(project: Project, target: Target, text: str) -> None:
    """Replace ``target`` with ``text`` (UTF-8) atomically, keeping the old file's mode."""
    try:
        write_bytes(project.ctx, target.parts, text.encode("utf-8"))
    except OSError as exc:
        raise ToolError(
            "io_error", f"{project.rel(target)}: cannot write ({exc.strerror})"
        ) from None


def ensure_dir(project: Project, target: Target) -> None:
    try:
        make_dirs(project.ctx, target.parts)
    except OSError as exc:
        name = project.rel(target)
        if exc.errno in (errno.ENOTDIR, errno.EEXIST):
            raise ToolError("invalid_path", f"{name}: exists and is not a directory") from None
        raise _os_error(exc, name) from None


def remove(project: Project, target: Target) -> None:
    try:
        remove_file(project.ctx, target.parts)
    except OSError as exc:
        raise _os_error(exc, project.rel(target)) from None


def kind(project: Project, target: Target) -> str | None:
    """``file``/``directory``/``symlink``/``other`` for the entry itself; None if absent."""
    try:
        st = stat_entry(project.ctx.root, target.parts)
    except OSError as exc:
        raise _os_error(exc, project.rel(target)) from None
    return None if st is None else kind_of(st.st_mode)


def exists(project: Project, target: Target) -> bool:
    return kind(project, target) is not None


def is_dir(project: Project, target: Target) -> bool:
    return kind(project, target) == "directory"


def entries(project: Project, target: Target) -> list[tuple[str, str]]:
    """``(name, kind)`` of a directory's entries by name; [] when it does not exist."""
    try:
        with open_dir(project.ctx.root, target.parts) as fd:
            return [(n, kind_of(st.st_mode)) for n, st in scan(fd, project.ctx.guard)]
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        raise _os_error(exc, project.rel(target)) from None


def files_in(project: Project, target: Target) -> list[str]:
    """Names of the regular files (not symlinks) in a directory, by name."""
    return [n for n, k in entries(project, target) if k == "file"]


def subdirectories(
    project: Project, target: Target, keep: Callable[[str], bool]
) -> list[tuple[str, list[str]]]:
    """The real subdirectories of a directory whose name ``keep`` accepts, by name, each with
    the names of its regular files: one descriptor walk (a symlink is no subdirectory)."""
    out: list[tuple[str, list[str]]] = []
    try:
        with open_dir(project.ctx.root, target.parts) as fd:
            for name, st in scan(fd, project.ctx.guard):
                if not stat.S_ISDIR(st.st_mode) or not keep(name):
                    continue
                try:
                    sub = os.open(name, DIR_FLAGS, dir_fd=fd)
                except OSError:
                    continue  # swapped for a link or removed since the listing
                try:
                    files = [n for n, s in scan(sub, project.ctx.guard) if stat.S_ISREG(s.st_mode)]
                finally:
                    os.close(sub)
                out.append((name, files))
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        raise _os_error(exc, project.rel(target)) from None
    return out
