"""``msd-file-manifest.json``: the only truth for uninstall and upgrade.

One manifest per runtime root. It records every file we wrote (sha256, mode), every primitive
config edit we made (in order, with what is needed to invert it exactly), backups we made and
directories we created. Paths are stored relative to the root with ``/`` separators, so a
moved or mounted root still uninstalls. Older formats are upgraded through one chain.

A manifest is untrusted input: a project's manifest comes with the project. ``load``
validates it as a whole before anything acts on it (``manifestcheck`` has the rules: paths
relative and inside the root, config and state files exactly the adapter's, backups under
``msd-backups/``) and refuses it on the first problem with one ``ManifestError``.

Trust: the user's registry (``registry``) records the manifests this user's msd-install
wrote. Any other manifest is *foreign* (cloned, edited, or from before the registry) and is
loaded restricted (``Manifest.restrict``): it removes only what still hashes as msd's and puts
back only backups kept in ``<root>/msd-backups/``; it never re-creates a symlink, never puts a
recorded config value back, never matches an entry by marker and never removes anything above
the root; and no path of it may pass through a symlink leading out of the root, at load
(refused) or when acting (``confine.Guard``: the run rolls back). A manifest msd-install
wrote keeps following the user's own links, as dotfile managers need.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from .. import __version__
from ..errors import ManifestError
from .confine import escaping_link, is_ancestor_chain, show
from .jsondump import indented
from .manifestcheck import MANIFEST_MAX_BYTES, MANIFEST_NAME, manifest_name, problem, rel_of
from .plan import Bounds
from .registry import Registry

__all__ = [
    "FOREIGN_CONFIG",
    "FOREIGN_LINK",
    "MANIFEST_NAME",
    "BackupRecord",
    "ConfigOp",
    "ConfigRecord",
    "Manifest",
    "MigrationRecord",
    "PatchRecord",
    "load",
    "manifest_name",
]

FORMAT = 1
FOREIGN_CONFIG = "this root's manifest was not written by your msd-install"
FOREIGN_LINK = f"a symlink leading out of the root, not followed: {FOREIGN_CONFIG}"
MAX_BYTES = MANIFEST_MAX_BYTES
# the way out of a manifest that cannot be used (installer/baseline.py)
ADOPT_HINT = (
    "nothing was changed; to set it aside and rebuild it from the files on disk, run "
    "msd-install --adopt with the same runtime and scope flags"
)


class FileRecord(TypedDict, total=False):
    sha256: str
    mode: int
    adopted: bool  # the user had these exact bytes before install: never removed by us
    # the user's edits, merged in by --reapply: this file now holds bytes hashing to it,
    # theirs (kept on reinstall and uninstall, not drift); ``sha256`` stays msd's own
    patched: str


class ConfigOp(TypedDict, total=False):
    op: str  # "member" | "item" | "replace"
    path: list[str]
    key: str
    sha256: str  # canonical hash of the value there now: ours, with the user's tuning kept
    ours: str  # canonical hash of our own value, where the user's tuning makes it differ
    value: Any  # our own value: the base of the next three-way decision (installer/tuning.py)
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


class MigrationRecord(TypedDict):
    """A migration applied to this root (or not needed): identified by id and version."""

    id: str
    version: str


class PatchRecord(TypedDict):
    """A patch set an upgrade saved in ``msd-local-patches/`` (installer/patches.py): only a
    set the trusted manifest records, with these hashes, is ever merged by --reapply."""

    set: str  # its folder name
    sha256: str  # of its patch.json
    bases: dict[str, str | None]  # each file's base sha256 (None: no base was kept)


class _ManifestDoc(TypedDict):
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


class ManifestDoc(_ManifestDoc, total=False):
    migrations: list[MigrationRecord]  # written only when there is one (older manifests)
    # only when there is a store: a manifest written before it hashes as it did (registry)
    pristine: str
    patches: list[PatchRecord]  # only when there is one (older manifests keep their digest)


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
    pristine: str = ""  # sha256 of the pristine store written with this manifest (``pristine``)
    installer_version: str = __version__
    # False for a manifest this user's msd-install did not write (``restrict``)
    trusted: bool = True
    withheld: list[str] = field(default_factory=list)  # what ``restrict`` left out, for notes
    name: str = MANIFEST_NAME  # MSD Core's, or a pack's (``manifestcheck.manifest_name``)
    migrations: list[MigrationRecord] = field(default_factory=list)  # installer/migrate.py
    patches: list[PatchRecord] = field(default_factory=list)  # saved patch sets (--reapply)
    # a foreign manifest as it came, before ``restrict``: only ever compared with what this
    # run would write itself (a teammate's committed install, verified, is kept byte for byte)
    original: ManifestDoc | None = None
    original_digest: str = ""
    # the sha256 of the bytes this manifest was read from ("": not read, or changed since):
    # a run that would write exactly those bytes again writes nothing, without dumping this
    disk_digest: str = field(default="", compare=False, repr=False)

    @property
    def path(self) -> Path:
        return self.root / self.name

    def rel(self, path: Path) -> str:
        return rel_of(self.root, path)

    def abs(self, rel: str) -> Path:
        # one path parse, not two (``root / rel`` then the normalised text): a run asks this
        # for every file it lists
        return Path(os.path.normpath(os.path.join(self.root, rel)))  # noqa: PTH118

    def original_config_for(self, file: Path) -> ConfigRecord | None:
        """The config record of ``file`` as the foreign manifest came (see ``original``)."""
        if self.original is None:
            return None
        rel = self.rel(file)
        return next((r for r in self.original["config"] if r["file"] == rel), None)

    def config_for(self, file: Path) -> ConfigRecord | None:
        rel = self.rel(file)
        return next((c for c in self.config if c["file"] == rel), None)

    def to_doc(self) -> ManifestDoc:
        doc: ManifestDoc = {
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
        # absent when empty: a manifest from before migrations keeps its exact bytes (and so
        # the digest the user's registry recorded for it)
        if self.migrations:
            doc["migrations"] = self.migrations
        if self.pristine:
            doc["pristine"] = self.pristine
        if self.patches:
            doc["patches"] = self.patches
        return doc

    def to_bytes(self) -> bytes:
        return (indented(self.to_doc()) + "\n").encode()  # json.dumps(indent=2), faster

    def digest(self) -> str:
        """What the user's registry records for a manifest msd-install wrote."""
        return hashlib.sha256(self.to_bytes()).hexdigest()

    def escaping_link(self) -> str | None:
        """The first path of this manifest that passes through a symlink leading out of the
        root, as a problem line, or None. Config files outside the root are the adapter's."""
        config = [c["file"] for c in self.config if not c["file"].startswith("../")]
        backups = [b["backup"] for b in self.backups if b.get("backup")]
        dirs = [f"{d}/_" for d in self.dirs if d != "." and not is_ancestor_chain(d)]
        for field_name, rels in (
            ("files", list(self.files)),
            ("backups", backups),
            ("config", config),
            ("dirs", dirs),
            ("state", self.state),
        ):
            for rel in rels:
                link = escaping_link(self.root, rel)
                if link is not None:
                    shown = rel[:-2] if field_name == "dirs" else rel
                    return (
                        f"{field_name}: {show(shown)} passes through {show(link)}, "
                        "a symlink leading out of the root"
                    )
        return None

    def restrict(self) -> None:
        """Make a foreign manifest safe to act on: it may remove what still hashes as msd's
        and put back backups kept inside ``<root>/msd-backups/``, nothing more. So no symlink
        is re-created, no config value it recorded is put back, an entry is recognised by
        its hash only (never by a marker string), nothing above the root is removed, and no
        changed file counts as merged edits (``patched``): it could be a weakened guard."""
        self.trusted = False
        self.original = copy.deepcopy(self.to_doc())
        self.original_digest = self.digest()
        for entry in self.files.values():
            entry.pop("patched", None)
        backups: list[BackupRecord] = []
        for record in self.backups:
            if record.get("link"):
                self.withheld.append(
                    f"{record['path']} was a symlink to {show(record.get('link', ''))}: "
                    "not re-created"
                )
                continue
            if "mode" in record:
                record = {**record, "mode": record["mode"] & 0o777}  # never setuid from here
            backups.append(record)
        self.backups = backups
        config: list[ConfigRecord] = []
        for rec in self.config:
            ops: list[ConfigOp] = []
            for op in rec["ops"]:
                drop = ("marker", "previous", "value", "ours")  # a foreign base is not believed
                op = {k: v for k, v in op.items() if k not in drop}  # type: ignore[assignment]
                if op["op"] == "replace":
                    op["op"] = "member"
                    self.withheld.append(
                        f"{rec['file']}: {op.get('label', op.get('key', ''))}: the value msd "
                        "replaced is not put back"
                    )
                ops.append(op)
            config.append({**rec, "ops": ops})
        self.config = config
        self.dirs = [d for d in self.dirs if not is_ancestor_chain(d)]
        self.patches = []  # a foreign manifest vouches for no patch set


def _v0_to_v1(doc: dict[str, Any]) -> dict[str, Any]:
    # Format 0 never shipped; the chain starts here so that every later format adds one step.
    doc["format"] = 1
    return doc


_UPGRADES: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {0: _v0_to_v1}


def load(
    root: Path,
    bounds: Callable[[], Bounds],
    registry: Registry | None,
    name: str = MANIFEST_NAME,
) -> Manifest | None:
    """The manifest of ``root``, validated as a whole, or None when there is none.

    ``bounds``: the config and state files the runtime's adapter names for this root (asked
    for only when there is a manifest). ``registry``: the user's record of the manifests
    msd-install wrote; a manifest it does not list is foreign and comes back restricted.
    Raises ``ManifestError`` on the first problem, before anything has been changed.
    ``name``: MSD Core's manifest or a pack's.
    """
    found = _validated(root, bounds, name)
    if found is None:
        return None
    manifest = found[0]
    recorded = None if registry is None else registry.digest(root, name)
    # the bytes msd-install wrote, as they are, hash to the record without being dumped again
    if recorded is not None and (manifest.disk_digest == recorded or manifest.digest() == recorded):
        return manifest
    link = manifest.escaping_link()
    if link is not None:
        raise _refused(manifest.path, link)
    manifest.restrict()
    return manifest


def validated(
    root: Path, bounds: Callable[[], Bounds], name: str = MANIFEST_NAME
) -> Manifest | None:
    """The manifest of ``root`` as it is on disk, validated but not restricted."""
    found = _validated(root, bounds, name)
    return None if found is None else found[0]


def _validated(
    root: Path, bounds: Callable[[], Bounds], name: str
) -> tuple[Manifest, bytes] | None:
    """``validated``, with the bytes it was read from."""
    path = root / name
    raw = _read(path)
    if raw is None:
        return None
    doc = _parse(raw, path)
    found = problem(doc, root, bounds())
    if found:
        raise _refused(path, found)
    manifest = Manifest(
        root=root,
        runtime=doc["runtime"],
        scope=doc["scope"],
        files=dict(doc.get("files", {})),
        config=list(doc.get("config", [])),
        backups=list(doc.get("backups", [])),
        dirs=list(doc.get("dirs", [])),
        state=list(doc.get("state", [])),
        interpreter=doc.get("interpreter", ""),
        pristine=doc.get("pristine", ""),
        installer_version=doc.get("installer_version", "?"),
        name=name,
        migrations=list(doc.get("migrations", [])),
        patches=list(doc.get("patches", [])),
        disk_digest=hashlib.sha256(raw).hexdigest(),
    )
    return manifest, raw


def _refused(path: Path, problem: str) -> ManifestError:
    return ManifestError(
        f"install manifest refused: {problem}",
        path=path,
        hint=ADOPT_HINT.replace("; ", "; one that came with a cloned project can be deleted; ", 1),
    )


def _read(path: Path) -> bytes | None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ManifestError(
            f"cannot read the install manifest: {exc.strerror}", path=path
        ) from None
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISREG(st.st_mode):
        raise _refused(path, "it is not a plain file (a symlink, a directory or a device)")
    if st.st_size > MAX_BYTES:
        raise _refused(path, f"it is larger than {MAX_BYTES >> 20} MiB")
    try:
        with open(path, "rb") as handle:
            return handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise ManifestError(
            f"cannot read the install manifest: {exc.strerror}", path=path
        ) from None


def _parse(raw: bytes, path: Path) -> dict[str, Any]:
    try:
        doc = json.loads(raw)
    except (ValueError, RecursionError) as exc:  # ValueError: bad JSON, bad UTF-8, huge ints
        reason = str(exc) if not isinstance(exc, RecursionError) else "nested too deeply"
        raise ManifestError(
            f"install manifest is not valid JSON ({show(reason, 120)[1:-1]})",
            path=path,
            hint=ADOPT_HINT,
        ) from None
    if not isinstance(doc, dict) or type(doc.get("format")) is not int:
        raise ManifestError("install manifest has no format version", path=path, hint=ADOPT_HINT)
    version: int = doc["format"]
    if version < FORMAT and version not in _UPGRADES:
        raise ManifestError(
            f"install manifest has an unknown format {version}", path=path, hint=ADOPT_HINT
        )
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
    out: dict[str, Any] = doc
    return out
