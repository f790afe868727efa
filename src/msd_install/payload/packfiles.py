"""The files of a pack directory (``--payload DIR``), read safely and with bounds.

A pack comes from anywhere (a cloned repository, a download), so it is read as untrusted
input: never through a symlink (a link anywhere in it is a problem, whatever it points at),
nothing but directories and plain files, every file at most ``MAX_FILE`` bytes and the whole
pack at most ``MAX_FILES`` files and ``MAX_TOTAL`` bytes, each read with a bound, so that a
huge or endless file cannot stall a run. Problems are collected, never raised one by one:
the user gets all of them in one report (``pack.load_pack``).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

MAX_FILE = 1 << 20  # a command or a script of a real pack is a few KiB
MAX_FILES = 2000
MAX_TOTAL = 32 << 20
MAX_DEPTH = 12
SKIPPED = (".git", ".hg", ".svn", "__pycache__", ".DS_Store")


@dataclass
class PackFiles:
    """Every plain file of the pack (relative ``/`` path -> bytes and mode), and problems."""

    directory: Path
    files: dict[str, bytes] = field(default_factory=dict)
    modes: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def text(self, rel: str) -> str | None:
        """The file as UTF-8 text, or None (with a problem) when it is not."""
        try:
            return self.files[rel].decode("utf-8")
        except UnicodeDecodeError as exc:
            self.problems.append(f"{rel}: is not UTF-8 text (byte {exc.start})")
            return None

    def executable(self, rel: str) -> bool:
        """Installed 0755: the pack's copy has an execute bit, or it starts with ``#!`` (a
        script, run directly, whose bit an archive may have lost); else 0644."""
        return bool(self.modes[rel] & 0o111) or self.files[rel].startswith(b"#!")

    def under(self, folder: str) -> list[str]:
        return sorted(rel for rel in self.files if rel.startswith(f"{folder}/"))


def read_pack(directory: Path) -> PackFiles:
    found = PackFiles(directory)
    total = 0
    stack: list[tuple[str, int]] = [("", 0)]
    while stack:
        prefix, depth = stack.pop()
        where = directory / prefix if prefix else directory
        try:
            entries = sorted(os.scandir(where), key=lambda e: e.name)
        except OSError as exc:
            found.problems.append(f"{prefix or '.'}: cannot be read ({exc.strerror})")
            continue
        for entry in entries:
            if entry.name in SKIPPED:
                continue
            rel = f"{prefix}{entry.name}"
            bad = _bad_name(entry.name)
            if bad:
                found.problems.append(f"{ascii(rel)[1:-1]}: its name {bad}")
                continue
            st = entry.stat(follow_symlinks=False)
            if stat.S_ISLNK(st.st_mode):
                found.problems.append(f"{rel}: is a symlink (a pack holds plain files only)")
            elif stat.S_ISDIR(st.st_mode):
                if depth >= MAX_DEPTH:
                    found.problems.append(f"{rel}: nested more than {MAX_DEPTH} folders deep")
                else:
                    stack.append((f"{rel}/", depth + 1))
            elif not stat.S_ISREG(st.st_mode):
                found.problems.append(f"{rel}: is not a plain file (a FIFO, socket or device)")
            elif st.st_size > MAX_FILE:
                found.problems.append(f"{rel}: is larger than {MAX_FILE >> 10} KiB")
            elif len(found.files) >= MAX_FILES:
                found.problems.append(f"{rel}: the pack has more than {MAX_FILES} files")
                return found
            else:
                data = _read(directory / rel, found, rel)
                if data is None:
                    continue
                total += len(data)
                if total > MAX_TOTAL:
                    found.problems.append(f"{rel}: the pack is larger than {MAX_TOTAL >> 20} MiB")
                    return found
                found.files[rel] = data
                found.modes[rel] = st.st_mode & 0o777
    return found


def _bad_name(name: str) -> str | None:
    """Why a file name cannot be installed, or None: it becomes a path in the manifest, which
    refuses what a terminal or another file system would show as something else."""
    if any(0xD800 <= ord(c) <= 0xDFFF for c in name):
        return "is not valid UTF-8"
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        return "holds a control character"
    if "\\" in name:
        return "holds a backslash"
    return None


def _read(path: Path, found: PackFiles, rel: str) -> bytes | None:
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        found.problems.append(f"{rel}: cannot be read ({exc.strerror})")
        return None
    try:
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(MAX_FILE + 1)
    except OSError as exc:
        found.problems.append(f"{rel}: cannot be read ({exc.strerror})")
        return None
    if len(data) > MAX_FILE:  # grew since it was listed
        found.problems.append(f"{rel}: is larger than {MAX_FILE >> 10} KiB")
        return None
    return data
