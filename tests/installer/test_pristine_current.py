"""The pristine store is kept current without inflating it when the manifest proves it is
(issue 11: a reinstall with nothing to do), and is rewritten whenever it is not."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from helpers import run_cli
from msd_install.installer import pristine

CLAUDE = ["--claude", "--global", "--yes"]


def _blobs(*contents: bytes) -> dict[str, bytes]:
    return {hashlib.sha256(c).hexdigest(): c for c in contents}


def test_holds_is_true_only_for_the_exact_set_of_blobs() -> None:
    a, b, c = b"alpha\n" * 300, b"beta", b"gamma " * 1000
    stored = pristine.compress(pristine.pack([a, b, c]))
    assert pristine.pack_digests(_blobs(a, b, c)) == pristine.pack([c, b, a])
    assert pristine.holds(stored, _blobs(c, a, b))
    assert not pristine.holds(stored, _blobs(a, b))
    assert not pristine.holds(stored, _blobs(a, b, c, b"delta"))
    assert not pristine.holds(stored, _blobs(a, b, b"gamma " * 999 + b"gammb "))
    assert not pristine.holds(b"", _blobs())
    assert not pristine.holds(b"not zlib at all", _blobs(a))
    assert pristine.holds(pristine.compress(b""), {})


def _store(root: Path) -> dict[str, bytes]:
    return pristine.blobs(pristine.unpack((root / pristine.STORE_NAME).read_bytes()))


def _installed(root: Path) -> set[str]:
    doc = json.loads((root / "msd-file-manifest.json").read_text())
    return {r["sha256"] for r in doc["files"].values()}


def test_a_reinstall_keeps_the_store_and_a_damaged_store_is_rewritten(tmp_path: Path) -> None:
    root = tmp_path / ".claude"
    assert run_cli(CLAUDE, tmp_path).returncode == 0
    store = root / pristine.STORE_NAME
    first = store.read_bytes()
    assert set(_store(root)) == _installed(root)
    before = store.stat()

    assert run_cli(CLAUDE, tmp_path).returncode == 0  # nothing to do: the store is untouched
    assert store.read_bytes() == first and store.stat().st_ino == before.st_ino

    # one blob fewer (the manifest still names the old store's hash): not current, rewritten
    blobs = _store(root)
    blobs.pop(sorted(blobs)[0])
    store.write_bytes(pristine.compress(pristine.pack_digests(blobs)))
    assert run_cli(CLAUDE, tmp_path).returncode == 0
    assert set(_store(root)) == _installed(root)
    doc = json.loads((root / "msd-file-manifest.json").read_text())
    assert doc["pristine"] == hashlib.sha256(store.read_bytes()).hexdigest()
