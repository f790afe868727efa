"""``msd-file-manifest.json``: the only truth for uninstall and upgrade.

One manifest per runtime root. It records every file we wrote (sha256, mode), every primitive
config edit we made (in order, with what is needed to invert it exactly), backups we made and
directories we created. Paths are stored relative to the root with ``/`` separators, so a
moved or mounted root still uninstalls. Older formats are upgraded through one chain.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from .. import __version__
from ..errors import ManifestError

MANIFEST_NAME = "msd-file-manifest.json"
FORMAT = 1


class FileRecord(TypedDict, total=False):
    sha256: str
    mode: int
    adopted: bool  # the user had these exact bytes before install: never removed by us


class ConfigOp(TypedDict, total=False):
    op: str  # "member" | "item" | "replace"
    path: list[str]
    key: str
    sha256: str  # canonical hash of the value we put there
    interior: str | None  # for insertions into an empty container
    previous: str  # for "replace": the user's original value text
    marker: str  # an exact string only our entry holds (our command / script path)
    label: str


class ConfigRecord(TypedDict):
    file: str
    fmt: str
    created: bool
    ops: list[ConfigOp]


class BackupRecord(TypedDict, total=False):
    path: str  # the user's file we replaced (--force)
    backup: str  # where its bytes are kept until uninstall ("" for a symlink)
    mode: int  # its mode, restored with it
    link: str  # when it was a symlink: where it pointed


class ManifestDoc(TypedDict):
    format: int
    installer_version: str
    runtime: str
    scope: str
    files: dict[str, FileRecord]
    config: list[ConfigRecord]
    backups: list[BackupRecord]
    dirs: list[str]
    state: list[str]
    interpreter: str


@dataclass
class Manifest:
    root: Path
    runtime: str
    scope: str
    files: dict[str, FileRecord] = field(default_factory=dict)
    config: list[ConfigRecord] = field(default_factory=list)
    backups: list[BackupRecord] = field(default_factory=list)
    dirs: list[str] = field(default_factory=list)
    state: list[str] = field(default_factory=list)
    interpreter: str = ""  # the Python that runtime-side commands were registered with
    installer_version: str = __version__

    @property
    def path(self) -> Path:
        return self.root / MANIFEST_NAME

    def rel(self, path: Path) -> str:
        return Path(os.path.relpath(path, self.root)).as_posix()

    def abs(self, rel: str) -> Path:
        return Path(os.path.normpath(self.root / rel))

    def config_for(self, file: Path) -> ConfigRecord | None:
        rel = self.rel(file)
        return next((c for c in self.config if c["file"] == rel), None)

    def to_doc(self) -> ManifestDoc:
        return {
            "format": FORMAT,
            "installer_version": self.installer_version,
            "runtime": self.runtime,
            "scope": self.scope,
            "files": dict(sorted(self.files.items())),
            "config": self.config,
            "backups": self.backups,
            "dirs": sorted(set(self.dirs)),
            "state": sorted(set(self.state)),
            "interpreter": self.interpreter,
        }

    def to_bytes(self) -> bytes:
        return (json.dumps(self.to_doc(), indent=2, ensure_ascii=False) + "\n").encode()


def _v0_to_v1(doc: dict[str, Any]) -> dict[str, Any]:
    # Format 0 never shipped; the chain starts here so that every later format adds one step.
    doc["format"] = 1
    return doc


_UPGRADES: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {0: _v0_to_v1}


def _shape_problem(doc: dict[str, Any]) -> str | None:
    """What is wrong with the shape of a manifest document, or None."""
    for key in ("runtime", "scope"):
        if not isinstance(doc.get(key), str):
            return f"'{key}' is not a string"
    files = doc.get("files", {})
    if not isinstance(files, dict):
        return "'files' is not an object"
    for rel, record in files.items():
        if not (
            isinstance(record, dict)
            and isinstance(record.get("sha256"), str)
            and isinstance(record.get("mode"), int)
        ):
            return f"file record of {rel!r} is malformed"
    for key in ("config", "backups", "dirs", "state"):
        if not isinstance(doc.get(key, []), list):
            return f"'{key}' is not a list"
    for record in doc.get("config", []):
        if not (
            isinstance(record, dict)
            and isinstance(record.get("file"), str)
            and isinstance(record.get("ops"), list)
            and all(
                isinstance(op, dict)
                and isinstance(op.get("path"), list)
                and isinstance(op.get("sha256"), str)
                for op in record["ops"]
            )
        ):
            return "a config record is malformed"
    for record in doc.get("backups", []):
        if not (isinstance(record, dict) and isinstance(record.get("path"), str)):
            return "a backup record is malformed"
    for key in ("dirs", "state"):
        if not all(isinstance(item, str) for item in doc.get(key, [])):
            return f"'{key}' holds a non-string"
    return None


def load(root: Path) -> Manifest | None:
    """The manifest of ``root``, or None when there is none."""
    path = root / MANIFEST_NAME
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ManifestError(
            f"cannot read the install manifest: {exc.strerror}", path=path
        ) from None
    try:
        doc = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ManifestError(
            f"install manifest is not valid JSON ({exc})",
            path=path,
            hint="restore it from a backup or reinstall with --force",
        ) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("format"), int):
        raise ManifestError("install manifest has no format version", path=path)
    version = doc["format"]
    if version < FORMAT and version not in _UPGRADES:
        raise ManifestError(f"install manifest has an unknown format {version}", path=path)
    if version > FORMAT:
        raise ManifestError(
            f"install manifest has format {version}, newer than this msd-install "
            f"understands ({FORMAT})",
            path=path,
            hint="upgrade msd-install",
        )
    while version < FORMAT:
        doc = _UPGRADES[version](doc)
        version = doc["format"]
    problem = _shape_problem(doc)
    if problem:
        raise ManifestError(
            f"install manifest is damaged: {problem}",
            path=path,
            hint="restore it from a backup, or reinstall with --force",
        )
    try:
        return Manifest(
            root=root,
            runtime=str(doc["runtime"]),
            scope=str(doc["scope"]),
            files=dict(doc.get("files", {})),
            config=list(doc.get("config", [])),
            backups=list(doc.get("backups", [])),
            dirs=list(doc.get("dirs", [])),
            state=list(doc.get("state", [])),
            interpreter=str(doc.get("interpreter", "")),
            installer_version=str(doc.get("installer_version", "?")),
        )
    except (KeyError, TypeError) as exc:
        raise ManifestError(f"install manifest is missing {exc}", path=path) from None
