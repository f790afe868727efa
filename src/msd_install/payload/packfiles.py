"""The files of a pack directory (``--payload DIR``), read safely and with bounds.

A pack comes from anywhere (a cloned repository, a download), so it is read as untrusted
input: never through a symlink (a link anywhere in it is a problem, whatever it points at),
nothing but directories and plain files, every file at most ``MAX_FILE`` bytes and the whole
pack at most ``MAX_FILES`` files and ``MAX_TOTAL`` bytes, each read with a bound, so that a
huge or endless file cannot stall a run. Folders are bounded too (``MAX_DIRS``, nested at
most ``MAX_DEPTH`` deep), and so is every listing (``MAX_ENTRIES`` names in all, read one by
one: a folder of a million names is never listed whole). Problems are collected, never raised
one by one: the user gets all of them in one report (``pack.load_pack``); a limit reached
stops the reading (``stopped``), and the report is that one line.
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
MAX_DIRS = 1000  # a real pack has a few dozen
# every name listed (files, folders, and what is refused or skipped: links, .git...)
MAX_ENTRIES = MAX_FILES + MAX_DIRS + 1000
MAX_PROBLEMS = 100  # found while reading: the report stays readable
SKIPPED = (".git", ".hg", ".svn", "__pycache__", ".DS_Store")


@dataclass
class PackFiles:
    """Every plain file of the pack (relative ``/`` path -> bytes and mode), and problems."""

    directory: Path
    files: dict[str, bytes] = field(default_factory=dict)
    modes: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    stopped: bool = False  # a limit was reached: what was read is not the whole pack
    _texts: dict[str, str | None] = field(default_factory=dict)

    def text(self, rel: str) -> str | None:
        """The file as UTF-8 text, or None (with a problem, once) when it is not; decoded
        once, however often it is asked for (a script ``hooks.json`` registers many times)."""
        if rel in self._texts:
            return self._texts[rel]
        try:
            text: str | None = self.files[rel].decode("utf-8")
        except UnicodeDecodeError as exc:
            self.problems.append(f"{rel}: is not UTF-8 text (byte {exc.start})")
            text = None
        self._texts[rel] = text
        return text

    def executable(self, rel: str) -> bool:
        """Installed 0755: the pack's copy has an execute bit, or it starts with ``#!`` (a
        script, run directly, whose bit an archive may have lost); else 0644."""
        return bool(self.modes[rel] & 0o111) or self.files[rel].startswith(b"#!")

    def under(self, folder: str) -> list[str]:
        return sorted(rel for rel in self.files if rel.startswith(f"{folder}/"))


def read_pack(directory: Path) -> PackFiles:
    found = PackFiles(directory)
    total = 0
    folders = 0
    seen = [0]  # names listed so far (``_listing``)
    stack: list[tuple[str, int]] = [("", 0)]
    while stack:
        prefix, depth = stack.pop()
        where = directory / prefix if prefix else directory
        try:
            entries = _listing(where, seen)
        except OSError as exc:
            found.problems.append(f"{prefix or '.'}: cannot be read ({exc.strerror})")
            continue
        for entry in entries:
            if entry.name in SKIPPED:
                continue
            rel = f"{prefix}{entry.name}"
            bad = _bad_name(entry.name)
            try:
                st = None if bad else entry.stat(follow_symlinks=False)
            except OSError as exc:  # a name too long to reach, one gone since it was listed
                found.problems.append(f"{rel}: cannot be read ({exc.strerror})")
                continue
            if st is None:
                found.problems.append(f"{ascii(rel)[1:-1]}: its name {bad}")
            elif stat.S_ISLNK(st.st_mode):
                found.problems.append(f"{rel}: is a symlink (a pack holds plain files only)")
            elif stat.S_ISDIR(st.st_mode):
                if depth >= MAX_DEPTH:
                    found.problems.append(f"{rel}: nested more than {MAX_DEPTH} folders deep")
                elif folders >= MAX_DIRS:
                    return _stop(found, f"{rel}: the pack has more than {MAX_DIRS} folders")
                else:
                    folders += 1
                    stack.append((f"{rel}/", depth + 1))
            elif not stat.S_ISREG(st.st_mode):
                found.problems.append(f"{rel}: is not a plain file (a FIFO, socket or device)")
            elif st.st_size > MAX_FILE:
                found.problems.append(f"{rel}: is larger than {MAX_FILE >> 10} KiB")
            elif len(found.files) >= MAX_FILES:
                return _stop(found, f"{rel}: the pack has more than {MAX_FILES} files")
            else:
                data = _read(directory / rel, found, rel)
                total += len(data or b"")
                if total > MAX_TOTAL:
                    return _stop(found, f"{rel}: the pack is larger than {MAX_TOTAL >> 20} MiB")
                if data is not None:
                    found.files[rel] = data
                    found.modes[rel] = st.st_mode & 0o777
            if len(found.problems) > MAX_PROBLEMS:  # a folder of links: not one line each
                here = prefix.rstrip("/") or "."
                return _stop(found, f"{here}: more than {MAX_PROBLEMS} problems, the rest unread")
        if seen[0] > MAX_ENTRIES:
            here = prefix.rstrip("/") or "."
            return _stop(found, f"{here}: the pack has more than {MAX_ENTRIES} files and folders")
    return found


def _listing(folder: Path, seen: list[int]) -> list[os.DirEntry[str]]:
    """The entries of ``folder`` by name, read one at a time and no more than the names the
    whole pack may still have (one more: then ``seen`` tells the limit was passed)."""
    out = []
    with os.scandir(folder) as names:
        for entry in names:
            seen[0] += 1
            out.append(entry)
            if seen[0] > MAX_ENTRIES:
                break
    return sorted(out, key=lambda e: e.name)


def _stop(found: PackFiles, problem: str) -> PackFiles:
    found.problems.append(problem)
    found.stopped = True
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
