"""``msd-local-patches/``: your edits to msd's files, saved before an upgrade replaced them.

Each upgrade that finds msd files you changed saves one *patch set*, a folder named for the
time (``msd-local-patches/20261201T093111Z/``) holding ``patch.json`` and, per file, your
copy (``user/<path>``) and the bytes msd had installed there (``base/<path>``, from the
pristine store, when it has them). ``msd-install --reapply`` merges them three ways
(``reapply``); the sets stay until you confirm with ``--reapply --done``; uninstall keeps
them and names each.

A patch set is read from disk like a manifest, and may have been edited or copied in: it is
validated as a whole before anything is merged (paths inside the root and the set, hashes,
bounds) and refused with one line on the first problem.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypedDict

from .. import __version__
from ..errors import MsdError, PatchError
from .confine import control_char, read_beneath, rel_problem, show
from .manifest import PatchRecord
from .manifestcheck import MAX_ENTRIES, PATCHES_DIR, SET_NAME, fold

PATCH_FILE = "patch.json"
FORMAT = 1
MAX_META = 1 << 20  # a real patch.json is a few hundred bytes per file
MAX_COPY = 8 << 20  # a saved copy: msd's largest file is ~60 KB
_SHA256 = re.compile(r"[0-9a-f]{64}")


class PatchEntry(TypedDict):
    path: str  # msd's file, relative to the root
    user: str  # your copy, relative to the set's folder: user/<path>
    base: str | None  # what msd had installed (base/<path>), or None when not kept
    user_sha256: str
    base_sha256: str | None
    new_sha256: str  # what the upgrade installed in its place


class PatchDoc(TypedDict):
    format: int
    from_version: str
    to_version: str
    time: str
    runtime: str
    scope: str
    files: list[PatchEntry]


@dataclass(frozen=True)
class PatchSet:
    directory: Path
    doc: PatchDoc
    digest: str = ""  # sha256 of its patch.json as read

    @property
    def name(self) -> str:
        return self.directory.name

    def copy(self, rel: str | None) -> Path | None:
        return None if rel is None else self.directory / rel


NO_BASE = (
    "msd kept no copy of what it had installed there (an older msd-install), so --reapply "
    "cannot merge them: merge them by hand or with /msd-reapply-patches"
)
# under a manifest that came with the project, a file of msd's that differs from what msd
# wrote is drift, never kept: it could be a weakened guard
FOREIGN_BASE = (
    "it differs from msd's, which replaces it: review this copy before msd-install --reapply "
    "merges it back"
)
FOREIGN_NO_BASE = (
    "it differs from msd's, which replaces it; no base msd shipped is known for it, so "
    "--reapply cannot merge it automatically: review it, and merge it by hand or with "
    "/msd-reapply-patches"
)


class Saver:
    """The patch set an install is about to save (one per run, made only if needed).
    ``foreign``: saved under a manifest that came with the project (not this user's)."""

    def __init__(
        self, root: Path, runtime: str, scope: str, from_version: str, *, foreign: bool = False
    ) -> None:
        self.foreign = foreign
        now = datetime.now(timezone.utc)
        name = now.strftime("%Y%m%dT%H%M%SZ")
        folder = root / PATCHES_DIR
        for n in range(2, 10_000):
            if not os.path.lexists(folder / name):
                break
            name = f"{now.strftime('%Y%m%dT%H%M%SZ')}-{n}"
        self.directory = folder / name
        self.entries: list[PatchEntry] = []
        self._head = (from_version, now.strftime("%Y-%m-%dT%H:%M:%SZ"), runtime, scope)

    def user_copy(self, rel: str) -> Path:
        return self.directory / "user" / rel

    def base_copy(self, rel: str) -> Path:
        return self.directory / "base" / rel

    def add(self, rel: str, user_sha: str, base_sha: str | None, new: bytes) -> None:
        self.entries.append(
            {
                "path": rel,
                "user": f"user/{rel}",
                "base": None if base_sha is None else f"base/{rel}",
                "user_sha256": user_sha,
                "base_sha256": base_sha,
                "new_sha256": hashlib.sha256(new).hexdigest(),
            }
        )

    def metadata(self) -> bytes:
        from_version, time, runtime, scope = self._head
        doc: PatchDoc = {
            "format": FORMAT,
            "from_version": from_version,
            "to_version": __version__,
            "time": time,
            "runtime": runtime,
            "scope": scope,
            "files": self.entries,
        }
        return (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode()

    def detail(self, rel: str, merges: bool) -> str:
        """The backup line of a saved copy of ``rel`` (``merges``: saved with its base)."""
        if self.foreign:
            return f"the project's copy of {rel}: {FOREIGN_BASE if merges else FOREIGN_NO_BASE}"
        if merges:
            return f"your changes to {rel}, for msd-install --reapply"
        return f"your changes to {rel}: {NO_BASE}"

    def note(self, *, dry: bool = False) -> str:
        """The note naming the set saved (``dry``: that a real run saves)."""
        where = f"{PATCHES_DIR}/{self.directory.name}"
        merge = sum(1 for e in self.entries if e["base"] is not None)
        if self.foreign:
            rest = len(self.entries) - merge
            some = f" ({rest} of them only by hand: see each backup line)" if rest else ""
            done = (
                "a real run replaces them with msd's and saves the project's copies in"
                if dry
                else "replaced with msd's, the project's copies saved in"
            )
            return (
                f"{len(self.entries)} file(s) of msd's differed from what this msd-install "
                f"writes (under a manifest that came with the project, not yours): {done} "
                f"{where}; review them before msd-install --reapply merges them back{some}"
            )
        saved = "would be saved" if dry else "are saved"
        if merge == len(self.entries):
            return (
                f"your edits to {merge} file(s) of msd's {saved} in {where}: run msd-install "
                "--reapply (with the same runtime and scope) to merge them into this version"
            )
        return (
            f"your edits to {len(self.entries)} file(s) of msd's {saved} in {where}; "
            f"msd-install --reapply merges {merge} of them, the rest by hand (see each backup "
            "line)"
        )

    def record(self) -> PatchRecord:
        """What the new manifest records of this set: only such a set is ever merged."""
        return {
            "set": self.directory.name,
            "sha256": hashlib.sha256(self.metadata()).hexdigest(),
            "bases": {e["path"]: e["base_sha256"] for e in self.entries},
        }


def unusable(root: Path) -> str | None:
    """Why ``<root>/msd-local-patches`` cannot hold patch sets, or None (absent, or a real
    folder). The one rule of both sides: an upgrade saves no set and ``--reapply`` reads
    none through a symlink there, wherever it leads (a dotfile manager's link out of the
    root would put your edits where ``--reapply`` never looks, like ``msd-backups/``)."""
    try:
        st = os.lstat(root / PATCHES_DIR)
    except (FileNotFoundError, NotADirectoryError):
        return None
    if stat.S_ISLNK(st.st_mode):
        return "is a symlink (local patches are saved and read only in a folder of the root)"
    if not stat.S_ISDIR(st.st_mode):
        return "is not a folder (local patches are saved and read only in a folder of the root)"
    return None


def refuse_saving(root: Path, why: str, rel: str) -> PatchError:
    """An upgrade that must save your edits to ``rel`` where ``unusable`` says it cannot:
    refused before any change."""
    return PatchError(
        f"{why}: your edits to {rel} must be saved there before this run replaces it",
        path=root / PATCHES_DIR,
        hint="nothing was changed; make it a folder of the root, then run msd-install again",
    )


def set_order(name: str) -> tuple[str, int, str]:
    """Oldest first: by time, then by the number a set saved in the same second carries
    (``…Z``, ``…Z-2``, …, ``…Z-10``: by name, ``-10`` came before ``-2``)."""
    stamp, _, number = name.partition("-")
    return (stamp, int(number) if number.isascii() and number.isdigit() else 1, name)


def listing(root: Path) -> tuple[list[Path], list[Path]]:
    """The patch set folders under ``root`` (oldest first) and anything else found there
    (saved by an older msd-install, or yours). Nothing is followed through a symlink."""
    folder = root / PATCHES_DIR
    if not os.path.lexists(folder):
        return [], []
    if unusable(root) is not None:
        return [], [folder]
    sets, other = [], []
    with os.scandir(folder) as entries:
        for entry in sorted(entries, key=lambda e: set_order(e.name)):
            path = Path(entry.path)
            if (
                entry.is_dir(follow_symlinks=False)
                and SET_NAME.fullmatch(entry.name)
                and os.path.lexists(path / PATCH_FILE)
            ):
                sets.append(path)
            else:
                other.append(path)
    return sets, other


def load(root: Path, directory: Path, runtime: str | None) -> PatchSet:
    """The patch set in ``directory``, validated (saved for ``runtime``, unless None);
    ``PatchError`` on the first problem."""
    path = directory / PATCH_FILE
    raw = read_bounded(root, path, MAX_META)
    try:
        doc = json.loads(raw)
    except (ValueError, RecursionError):
        raise _refused(path, "it is not valid JSON") from None
    found = problem(doc, runtime)
    if found:
        raise _refused(path, found)
    return PatchSet(directory, doc, hashlib.sha256(raw).hexdigest())


def vouched(patch_set: PatchSet, records: list[PatchRecord]) -> bool:
    """Is ``patch_set`` one an upgrade of this user's saved, as the trusted manifest records
    it (its name, the hash of its ``patch.json``, each file's base)?"""
    bases = {e["path"]: e["base_sha256"] for e in patch_set.doc["files"]}
    return any(
        r["set"] == patch_set.name and r["sha256"] == patch_set.digest and r["bases"] == bases
        for r in records
    )


def read_bounded(root: Path, path: Path, limit: int) -> bytes:
    """A plain file of a patch set, read beneath ``root``; refused when it is missing, not a
    plain file, or over ``limit`` (a hostile set must not make a run read gigabytes)."""
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        raise _refused(path, "it is missing") from None
    if not stat.S_ISREG(st.st_mode):
        raise _refused(path, "it is not a plain file (a symlink, a directory or a device)")
    if st.st_size > limit:
        raise _refused(path, f"it is larger than {limit >> 20} MiB")
    data = read_beneath(root, path, limit)
    if data is None:
        raise _refused(path, f"it is not a plain file of at most {limit >> 20} MiB")
    return data


def problem(doc: Any, runtime: str | None) -> str | None:
    """The first thing wrong with a ``patch.json`` document, or None."""
    if not isinstance(doc, dict) or type(doc.get("format")) is not int:
        return "it has no format version"
    if doc["format"] != FORMAT:
        return f"it has format {doc['format']}, not {FORMAT} (saved by another msd-install)"
    for key in ("from_version", "to_version", "time", "runtime", "scope"):
        value = doc.get(key)
        if not isinstance(value, str) or control_char(value) is not None or len(value) > 200:
            return f"{key!r} is not a short string without control characters"
    if runtime is not None and doc["runtime"] != runtime:
        return f"it was saved for {show(doc['runtime'])}, not {runtime}"
    files = doc.get("files")
    if not isinstance(files, list) or not files:
        return "'files' is not a non-empty list"
    if len(files) > MAX_ENTRIES:
        return f"'files' has more than {MAX_ENTRIES} entries"
    seen: set[str] = set()
    for i, entry in enumerate(files):
        found = _entry(f"files[{i}]", entry)
        if found:
            return found
        if fold(entry["path"]) in seen:
            return f"files[{i}].path {show(entry['path'])} is listed twice"
        seen.add(fold(entry["path"]))
    return None


def _entry(where: str, entry: Any) -> str | None:
    if not isinstance(entry, dict):
        return f"{where} is not an object"
    rel = entry.get("path")
    if not isinstance(rel, str):
        return f"{where}.path is not a string"
    why = rel_problem(rel)
    if why:
        return f"{where}.path {show(rel)} {why}"
    if entry.get("user") != f"user/{rel}":
        return f"{where}.user is not {show('user/' + rel)}"
    base = entry.get("base")
    if base is not None and base != f"base/{rel}":
        return f"{where}.base is not {show('base/' + rel)} or null"
    for key in ("user_sha256", "new_sha256", "base_sha256"):
        value = entry.get(key)
        if key == "base_sha256" and value is None and base is None:
            continue
        if not (isinstance(value, str) and _SHA256.fullmatch(value)):
            return f"{where}.{key} is not 64 lowercase hex digits"
    return None


def kept(root: Path) -> list[tuple[Path, str]]:
    """What uninstall leaves in ``msd-local-patches/`` and says so: each saved copy of
    yours (with the msd file it was), or an entry it cannot read as a patch set. Never
    refuses: it only names what stays."""
    from .conflicted import aside

    out: list[tuple[Path, str]] = []
    sets, other = listing(root)
    for directory in sets:
        try:
            patch_set: PatchSet | None = load(root, directory, None)
        except MsdError:  # naming what stays never stops an uninstall
            patch_set = None
        if patch_set is None:
            out.append((directory, "saved local patches: kept"))
            continue
        for entry in patch_set.doc["files"]:
            user = directory / entry["user"]
            if os.path.lexists(user):
                out.append((user, f"your edits to {entry['path']}, saved by an upgrade: kept"))
            merged = directory / aside(entry["path"])
            if os.path.lexists(merged):
                why = f"the conflicted merge of your edits to {entry['path']}, to settle: kept"
                out.append((merged, why))
    out.extend((path, "yours, in msd-local-patches/: kept") for path in other)
    return out


def _refused(path: Path, why: str) -> PatchError:
    return PatchError(
        f"local patch refused: {why}",
        path=path,
        hint="nothing was changed; a patch set msd-install did not save can be moved away",
    )
