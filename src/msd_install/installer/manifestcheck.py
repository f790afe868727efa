"""What a manifest may contain: every field checked before anything acts on it.

A manifest found in a root may come from anywhere (a cloned project, an edited file), so it
is validated as a whole when it is loaded and refused on the first problem. The rules:

* ``files`` keys, ``backups[].path`` and ``dirs``: relative, ``/``-separated, normalised (no
  empty, ``.`` or ``..`` component, no backslash, no control character), so inside the root;
  never one of msd-install's own bookkeeping files. ``dirs`` may also hold ``.`` (the root)
  and the pure ancestor chains ``..``, ``../..`` (parents of the root an install created), or
  a folder above one of the adapter's config or state files (made for a config file kept
  outside the root).
* ``config[].file``: exactly one of the config files the runtime's adapter names for this root
  (``Bounds.config_files``), each at most once; ``state``: exactly one of its run-time state
  files (``Bounds.state_files``): those are removed with no hash check.
* ``backups[]``: ``path`` is one of the manifest's files, at most one record each; ``backup``
  is ``msd-backups/<path>`` (or empty for a symlink, whose target is ``link``).
* config records: a known format; ops with a known kind, string keys and a sha256. In JSON the
  ``interior`` is only whitespace (or comments in JSONC) and a ``previous`` exactly one value,
  since the JSON editor splices them back as they are: they can never add an entry. (The TOML
  and YAML editors check every splice against the parsed result and refuse anything else.)
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .configdoc import FORMATS
from .confine import control_char, is_ancestor_chain, rel_problem, show
from .jsonparse import JsonSyntaxError, parse
from .lock import LOCK_NAME
from .plan import Bounds

MANIFEST_NAME = "msd-file-manifest.json"
BACKUPS_DIR = "msd-backups"
PATCHES_DIR = "msd-local-patches"
JOURNAL_DIR = ".msd-journal"  # a run's intent journal (installer/journal.py)
MANIFEST_MAX_BYTES = 16 << 20  # a real manifest is ~40 KB: a larger file is not one
STORE_NAME = "msd-pristine.zlib"  # the pristine store (installer/pristine.py)
# a patch set's folder in msd-local-patches/: the time an upgrade saved it
SET_NAME = re.compile(r"[0-9]{8}T[0-9]{6}Z(-[0-9]{1,4})?")
RESERVED = (MANIFEST_NAME, LOCK_NAME, STORE_NAME)
# a pack's manifest (``--payload DIR``): ``msd-file-manifest.<pack>.json`` beside MSD Core's
PACK_MANIFEST = re.compile(r"msd-file-manifest\.[a-z0-9][a-z0-9-]{0,62}\.json")
OPS = ("member", "item", "replace")
MAX_KEY_PATH = 64
# Bounds on the work a manifest can ask for (a real one: ~160 files, ~30 dirs, ~20 edits),
# so that a hostile one is refused at once instead of keeping a run busy for minutes.
MAX_ENTRIES = 10_000
MAX_OPS = 200
MAX_TEXT = 1 << 20  # an interior, a previous value, a marker
_SHA256 = re.compile(r"[0-9a-f]{64}")
_SURROGATE = re.compile("[\ud800-\udfff]")
_TEXT_WS = "\t\n\r"  # the only control characters a config text fragment may hold
_OWN_DIRS = (BACKUPS_DIR, PATCHES_DIR, JOURNAL_DIR)
_YAML_PUT_BACK = re.compile(r"( *(\{ *\}|\[ *\]|null|Null|NULL|~))?")


def manifest_name(namespace: str = "") -> str:
    """The manifest file of MSD Core (``namespace`` empty) or of the pack ``namespace``."""
    return f"msd-file-manifest.{namespace}.json" if namespace else MANIFEST_NAME


def rel_of(root: Path, path: Path) -> str:
    """``path`` relative to ``root``, with forward slashes (``..`` where it is outside)."""
    top, here = str(root), str(path)
    # the common case without os.path.relpath (a run asks ~1,000 times per runtime): a
    # normalised path below the root is the root's text, a separator, then the rest
    if os.sep == "/" and here.startswith(top) and here[len(top) : len(top) + 1] == "/":
        rest = here[len(top) + 1 :]
        if top.startswith("/") and rest and ".." not in rest.split("/") and "//" not in rest:
            return rest
    return Path(os.path.relpath(path, root)).as_posix()


def problem(doc: dict[str, Any], root: Path, bounds: Bounds) -> str | None:
    """The first thing wrong with a manifest document (as one line), or None."""
    checks: tuple[Callable[[], Iterator[str]], ...] = (
        lambda: _scalars(doc),
        lambda: _files(doc, root, bounds),
        lambda: _config(doc, root, bounds),
        lambda: _backups(doc),
        lambda: _dirs(doc, root, bounds),
        lambda: _state(doc, root, bounds),
    )
    for check in checks:
        for found in check():
            return found
    return None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _text(value: Any, allow: str = "") -> bool:
    return isinstance(value, str) and control_char(value, allow) is None


def _raw_path(value: Any) -> bool:
    """A string holding a path of the user's machine (an odd home may hold a newline)."""
    return isinstance(value, str) and "\0" not in value and not _SURROGATE.search(value)


def _scalars(doc: dict[str, Any]) -> Iterator[str]:
    for key in ("runtime", "scope"):
        if not _text(doc.get(key)):
            yield f"{key!r} is not a string without control characters"
    if "installer_version" in doc and not _text(doc["installer_version"]):
        yield "'installer_version' is not a string without control characters"
    if not _raw_path(doc.get("interpreter", "")):
        yield "'interpreter' is not a path"
    interpreter = doc.get("interpreter", "")
    if interpreter and not interpreter.startswith("/") and not re.match(r"^[A-Za-z]:", interpreter):
        yield f"'interpreter' {show(interpreter)} is not an absolute path"
    pristine = doc.get("pristine", "")
    if not (pristine == "" or (isinstance(pristine, str) and _SHA256.fullmatch(pristine))):
        yield "'pristine' is not 64 lowercase hex digits"
    for key, kind in (("files", dict), ("config", list), ("backups", list)):
        if not isinstance(doc.get(key, kind()), kind):
            yield f"{key!r} is not {'an object' if kind is dict else 'a list'}"
    for key in ("dirs", "state"):
        items = doc.get(key, [])
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            yield f"{key!r} is not a list of strings"
    for key in ("files", "dirs", "backups", "state", "config"):
        if len(doc.get(key, ())) > MAX_ENTRIES:
            yield f"{key!r} has more than {MAX_ENTRIES} entries (msd installs a few hundred)"
    yield from _migrations(doc.get("migrations", []))
    yield from _patch_sets(doc.get("patches", []))


def _patch_sets(items: Any) -> Iterator[str]:
    """``patches``: the patch sets an upgrade saved here (installer/patches.py): the set's
    folder name, the sha256 of its ``patch.json`` and the base sha256 of each file."""
    if not isinstance(items, list) or len(items) > MAX_OPS:
        yield f"'patches' is not a list of at most {MAX_OPS} records"
        return
    for i, item in enumerate(items):
        bases = item.get("bases") if isinstance(item, dict) else None
        if not (
            isinstance(item, dict)
            and set(item) == {"set", "sha256", "bases"}
            and isinstance(item["set"], str)
            and SET_NAME.fullmatch(item["set"])
            and isinstance(item["sha256"], str)
            and _SHA256.fullmatch(item["sha256"])
            and isinstance(bases, dict)
            and 0 < len(bases) <= MAX_ENTRIES
        ):
            yield f"patches[{i}] is not an object with a set name, a sha256 and its bases"
            return
        for rel, base in bases.items():
            if rel_problem(rel) is not None or not (
                base is None or (isinstance(base, str) and _SHA256.fullmatch(base))
            ):
                yield f"patches[{i}].bases {show(rel)} is not a path with a sha256 or null"
                return


def _migrations(items: Any) -> Iterator[str]:
    """``migrations``: the (id, version) pairs applied to this root (installer/migrate.py)."""
    if not isinstance(items, list) or len(items) > MAX_OPS:
        yield f"'migrations' is not a list of at most {MAX_OPS} records"
        return
    for i, item in enumerate(items):
        if not (
            isinstance(item, dict)
            and set(item) == {"id", "version"}
            and all(_text(item[k]) and 0 < len(item[k]) <= 100 for k in ("id", "version"))
        ):
            yield f"migrations[{i}] is not an object with a short 'id' and 'version'"


def _own_path(rel: str, others: frozenset[str]) -> str | None:
    """Why a file path may not be one of ours, or None (text rules and reserved names);
    ``others``: the folded config and state files of the root (``_others``)."""
    why = rel_problem(rel)
    if why:
        return why
    folded = fold(rel)
    if (
        folded in _RESERVED_FOLDED
        or PACK_MANIFEST.fullmatch(folded)
        or folded.split("/")[0] in _OWN_DIRS
    ):
        return "is one of msd-install's own bookkeeping files"
    if folded in others:
        return "is a config or state file, not a file of msd's"
    return None


def _others(root: Path, bounds: Bounds) -> frozenset[str]:
    """Computed once per manifest, not once per file (it was a fifth of an uninstall)."""
    return frozenset(fold(rel_of(root, p)) for p in (*bounds.config_files, *bounds.state_files))


def fold(rel: str) -> str:
    """``rel`` as a case-insensitive, normalisation-insensitive file system sees it (macOS,
    Windows): there ``MSD-Backups/x`` or a decomposed accent name the same file."""
    return unicodedata.normalize("NFC", rel).casefold()


_RESERVED_FOLDED = frozenset(fold(r) for r in RESERVED)


def _files(doc: dict[str, Any], root: Path, bounds: Bounds) -> Iterator[str]:
    others = _others(root, bounds)
    for rel, record in doc.get("files", {}).items():
        why = _own_path(rel, others)
        if why:
            yield f"files: {show(rel)} {why}"
        if not isinstance(record, dict):
            yield f"files[{show(rel)}] is not an object"
            continue
        if not (isinstance(record.get("sha256"), str) and _SHA256.fullmatch(record["sha256"])):
            yield f"files[{show(rel)}].sha256 is not 64 lowercase hex digits"
        if not (_is_int(record.get("mode")) and 0 <= record["mode"] <= 0o7777):
            yield f"files[{show(rel)}].mode is not a file mode (0 to 0o7777)"
        if "adopted" in record and not isinstance(record["adopted"], bool):
            yield f"files[{show(rel)}].adopted is not true or false"
        if "patched" in record and not (
            isinstance(record["patched"], str) and _SHA256.fullmatch(record["patched"])
        ):
            yield f"files[{show(rel)}].patched is not 64 lowercase hex digits"


def _config(doc: dict[str, Any], root: Path, bounds: Bounds) -> Iterator[str]:
    allowed = sorted(rel_of(root, p) for p in bounds.config_files)
    seen: set[str] = set()
    for i, record in enumerate(doc.get("config", [])):
        where = f"config[{i}]"
        if not isinstance(record, dict):
            yield f"{where} is not an object"
            continue
        file = record.get("file")
        if not isinstance(file, str):
            yield f"{where}.file is not a string"
            continue
        if file not in allowed:
            expected = " or ".join(show(a) for a in allowed) or "none here"
            yield (
                f"{where}.file {show(file)} is not a config file this runtime uses for "
                f"this root (expected {expected})"
            )
        if file in seen:
            yield f"{where}.file {show(file)} is listed twice"
        seen.add(file)
        if record.get("fmt") not in FORMATS:
            yield f"{where}.fmt is not one of {', '.join(FORMATS)}"
        if not isinstance(record.get("created"), bool):
            yield f"{where}.created is not true or false"
        ops = record.get("ops")
        if not isinstance(ops, list):
            yield f"{where}.ops is not a list"
            continue
        if len(ops) > MAX_OPS:
            yield f"{where}.ops has more than {MAX_OPS} edits (msd makes a few dozen)"
            continue
        for j, op in enumerate(ops):
            yield from _op(f"{where}.ops[{j}]", op, record["fmt"])


def _op(where: str, op: Any, fmt: str) -> Iterator[str]:
    if not isinstance(op, dict):
        yield f"{where} is not an object"
        return
    if op.get("op") not in OPS:
        yield f"{where}.op is not one of {', '.join(OPS)}"
    path = op.get("path")
    if not (isinstance(path, list) and len(path) <= MAX_KEY_PATH and all(_text(k) for k in path)):
        yield f"{where}.path is not a list of keys"
    if op.get("op") != "item" and not _text(op.get("key")):
        yield f"{where}.key is not a string without control characters"
    if not (isinstance(op.get("sha256"), str) and _SHA256.fullmatch(op["sha256"])):
        yield f"{where}.sha256 is not 64 lowercase hex digits"
    if "ours" in op and not (isinstance(op["ours"], str) and _SHA256.fullmatch(op["ours"])):
        yield f"{where}.ours is not 64 lowercase hex digits"
    if "value" in op and len(json.dumps(op["value"])) > MAX_TEXT:
        yield f"{where}.value is longer than {MAX_TEXT} characters"
    if "label" in op and not _text(op["label"]):
        yield f"{where}.label is not a string without control characters"
    if "marker" in op and not _raw_path(op["marker"]):
        yield f"{where}.marker is not a string without NUL"
    for name in ("interior", "previous", "marker", "label", "key"):
        if isinstance(op.get(name), str) and len(op[name]) > MAX_TEXT:
            yield f"{where}.{name} is longer than {MAX_TEXT} characters"
            return
    interior, previous = op.get("interior"), op.get("previous")
    if interior is not None and not isinstance(interior, str):
        yield f"{where}.interior is not a string"
    if op.get("op") == "replace" and not isinstance(previous, str):
        yield f"{where}.previous is not a string"
    if fmt == "yaml" and isinstance(interior, str) and not _yaml_interior(interior):
        yield f"{where}.interior is not what the YAML editor records"
    if fmt not in ("json", "jsonc", "json-comments"):
        return  # the TOML and YAML editors verify every splice against the parsed result
    # the JSON editor splices these texts back as they are: they must not be able to add
    jsonc = fmt != "json"
    if interior is not None and not (_text(interior, _TEXT_WS) and _empty(interior, jsonc)):
        yield f"{where}.interior is not just whitespace{' or comments' if jsonc else ''}"
    if isinstance(previous, str) and not (
        _text(previous, _TEXT_WS) and _one_value(previous, jsonc)
    ):
        yield f"{where}.previous is not exactly one JSON value"


def _yaml_interior(interior: str) -> bool:
    """``[inserted, replaced]``: what removal takes out and what it puts back. The editor only
    ever replaces nothing, an empty ``{}``/``[]`` or a ``null``, so nothing else may be put back
    (verification sees data, not the comments a hostile 'replaced' text could add)."""
    try:
        pair = json.loads(interior, strict=False)
    except (ValueError, RecursionError):
        return False
    return (
        isinstance(pair, list)
        and len(pair) == 2
        and all(isinstance(p, str) for p in pair)
        and _YAML_PUT_BACK.fullmatch(pair[1]) is not None
    )


def _empty(interior: str, jsonc: bool) -> bool:
    """Is ``interior`` what may sit between the brackets of an empty container?"""
    try:
        node = parse("{" + interior + "}", jsonc=jsonc)
    except (JsonSyntaxError, RecursionError):
        return False
    return node.kind == "object" and not node.value


def _one_value(text: str, jsonc: bool) -> bool:
    try:
        parse(text, jsonc=jsonc)
    except (JsonSyntaxError, RecursionError):
        return False
    return True


def _backups(doc: dict[str, Any]) -> Iterator[str]:
    files = doc.get("files", {})
    seen: set[str] = set()
    for i, record in enumerate(doc.get("backups", [])):
        where = f"backups[{i}]"
        if not isinstance(record, dict):
            yield f"{where} is not an object"
            continue
        path, backup, link = record.get("path"), record.get("backup", ""), record.get("link")
        if not isinstance(path, str) or path not in files:
            shown = show(path) if isinstance(path, str) else "(not a string)"
            yield f"{where}.path {shown} is not one of the manifest's files"
            continue
        if path in seen:
            yield f"{where}.path {show(path)} has two backups"
        seen.add(path)
        if "mode" in record and not (_is_int(record["mode"]) and 0 <= record["mode"] <= 0o7777):
            yield f"{where}.mode is not a file mode (0 to 0o7777)"
        if link is not None:
            if not (_raw_path(link) and 0 < len(link) <= 4096) or backup != "":
                yield f"{where}.link is not a symlink target (with an empty 'backup')"
        elif backup != f"{BACKUPS_DIR}/{path}":
            yield (f"{where}.backup {show(str(backup))} is not {show(BACKUPS_DIR + '/' + path)}")


def _dirs(doc: dict[str, Any], root: Path, bounds: Bounds) -> Iterator[str]:
    # Folders made for a config file the runtime keeps outside the root (Cline's
    # CLINE_MCP_SETTINGS_PATH, say): only the ancestors of the files the adapter names.
    outside = {
        rel_of(root, parent)
        for path in (*bounds.config_files, *bounds.state_files)
        for parent in path.parents
    }
    for rel in doc.get("dirs", []):
        if rel == "." or is_ancestor_chain(rel) or rel in outside:
            continue
        why = rel_problem(rel)
        if why:
            yield f"dirs: {show(rel)} {why}"


def _state(doc: dict[str, Any], root: Path, bounds: Bounds) -> Iterator[str]:
    allowed = sorted(rel_of(root, p) for p in bounds.state_files)
    for rel in doc.get("state", []):
        if rel not in allowed or rel_problem(rel):
            expected = " or ".join(show(a) for a in allowed) or "none here"
            yield (
                f"state: {show(rel)} is not a file msd writes at run time in this root "
                f"(expected {expected})"
            )
