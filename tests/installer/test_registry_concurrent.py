"""The user's record of manifests when runs overlap (the workers of one ``--all``, or two
msd-install commands at once): a run that rolls back never takes another's record away,
and a root whose uninstall is under way is not forgotten by another run."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from msd_install.installer import lock
from msd_install.installer.fs import Transaction
from msd_install.installer.manifestcheck import MANIFEST_NAME
from msd_install.installer.registry import Registry


def _root(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    root.mkdir()
    (root / MANIFEST_NAME).write_text("{}")
    return root


def _roots(registry: Path) -> set[str]:
    if not registry.exists():
        return set()
    return {Path(k).name for k in json.loads(registry.read_text())["roots"]}


def test_a_rollback_never_takes_away_what_another_run_recorded(tmp_path: Path) -> None:
    path = tmp_path / "state" / "manifests.json"
    a, b = _root(tmp_path, "a"), _root(tmp_path, "b")
    first = Transaction()
    assert Registry(path).record(first, a, "a" * 64) is None
    committed = threading.Event()

    def other() -> None:  # another run records its root while the first is still open
        tx = Transaction()
        assert Registry(path).record(tx, b, "b" * 64) is None
        tx.commit()
        committed.set()

    thread = threading.Thread(target=other)
    thread.start()
    time.sleep(0.3)
    assert not committed.is_set()  # it waits for the first run to end
    first.rollback()  # the first run rolls back: its record goes, the other's must not
    thread.join(10)
    assert committed.is_set()
    assert _roots(path) == {"b"}
    assert not (path.parent / lock.LOCK_NAME).exists()


def test_a_root_whose_run_is_under_way_is_not_forgotten(tmp_path: Path) -> None:
    path = tmp_path / "state" / "manifests.json"
    a, b = _root(tmp_path, "a"), _root(tmp_path, "b")
    for root in (a, b):
        tx = Transaction()
        Registry(path).record(tx, root, root.name * 64)
        tx.commit()
    with lock.hold(a):  # a's uninstall is under way: its manifest is already gone
        (a / MANIFEST_NAME).unlink()
        tx = Transaction()
        registry = Registry(path)
        registry.forget(tx, b, [])
        registry.drop_if_empty(tx)
        tx.commit()
        assert _roots(path) == {"a"}  # not pruned, and the record is still there
    tx = Transaction()
    Registry(path).drop_if_empty(tx)  # a's run ended without forgetting it: pruned now
    tx.commit()
    assert not path.exists() and not path.parent.exists()
