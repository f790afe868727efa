"""The files each released version installs: path and content hash, per runtime.

``released.json`` (next to this module) lists, for every version released, the files its
plan writes into each runtime's root (paths relative to the root) and the sha256 of their
bytes as rendered for the runtime's default global root in a home directory (text naming the
root says ``~/...`` there, so the hashes hold for any home). The baseline scan
(``installer/baseline.py``, ``--adopt``) recognises a file as msd's when its path and hash are
those of some version. ``scripts/released-hashes`` adds this version's entry; a test checks
that the entry for this version is current. Hashes are pooled, each listed once.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any

from .. import __version__, pkgfiles

DATA = "released.json"
CANON_HOME = Path("/home/user")
Known = dict[str, dict[str, frozenset[str]]]  # runtime -> rel -> hashes (every version)


def render(version: str = __version__) -> dict[str, dict[str, str]]:
    """This version's files: runtime -> {rel: sha256}, planned in a canonical home."""
    from ..installer.context import GLOBAL, Context
    from ..payload import load
    from ..runtimes import ADAPTERS

    ctx = Context(
        home=CANON_HOME,
        cwd=CANON_HOME,
        scope=GLOBAL,
        interpreter=Path("/usr/bin/python3"),
        state_dir=CANON_HOME / ".local/state/msd",
    )
    out: dict[str, dict[str, str]] = {}
    for name, adapter in ADAPTERS.items():
        if GLOBAL not in adapter.scopes:
            continue
        plan = adapter.plan(ctx, load())
        out[name] = {
            op.path.relative_to(plan.root).as_posix(): hashlib.sha256(op.content).hexdigest()
            for op in sorted(plan.files, key=lambda o: o.path)
            if op.path.is_relative_to(plan.root)
        }
    return out


def pooled(doc: dict[str, Any], version: str, files: dict[str, dict[str, str]]) -> dict[str, Any]:
    """``doc`` with ``version``'s entry replaced by ``files`` (hashes pooled)."""
    versions = {v: unpool(doc, v) for v in doc.get("versions", {}) if v != version}
    versions[version] = files
    pool = sorted({h for v in versions.values() for rt in v.values() for h in rt.values()})
    index = {h: i for i, h in enumerate(pool)}
    return {
        "format": 1,
        "hashes": pool,
        "versions": {
            v: {
                rt: {rel: index[h] for rel, h in sorted(fs.items())} for rt, fs in sorted(d.items())
            }
            for v, d in sorted(versions.items())
        },
    }


def unpool(doc: dict[str, Any], version: str) -> dict[str, dict[str, str]]:
    pool = doc["hashes"]
    return {
        rt: {rel: pool[i] for rel, i in files.items()}
        for rt, files in doc["versions"][version].items()
    }


def read() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(
        pkgfiles.files("msd_install.migrations").joinpath(DATA).read_bytes()
    )
    return doc


@cache
def known() -> Known:
    """Every released (path, hash) per runtime, over all versions."""
    doc = read()
    out: dict[str, dict[str, set[str]]] = {}
    for version in doc["versions"]:
        for rt, files in unpool(doc, version).items():
            for rel, sha in files.items():
                out.setdefault(rt, {}).setdefault(rel, set()).add(sha)
    return {rt: {rel: frozenset(s) for rel, s in f.items()} for rt, f in out.items()}
