"""The migration runner's rules, with small migrations of the test's own on real trees:
version gates, applied once (by id and version), remove-if-ours, foreign manifests."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from helpers import snapshot
from msd_install.installer import engine
from msd_install.installer.context import Context
from msd_install.installer.migration import Move, Op, RemoveIfOurs, View
from msd_install.installer.pending import version_key
from msd_install.installer.plan import FileOp, Plan


@dataclass
class Probe:
    """A migration that records how often its plan ran."""

    id: str
    ships_in: str
    ops: list[Op]
    legacy_state: tuple[str, ...] = ()
    calls: list[str] = field(default_factory=list)

    def plan(self, view: View) -> list[Op]:
        self.calls.append(view.installer_version)
        return list(self.ops)


def ctx(home: Path) -> Context:
    return Context(home=home, cwd=home, interpreter=Path(sys.executable))


def plan(root: Path, files: dict[str, bytes]) -> Plan:
    return Plan("claude", "global", root, tuple(FileOp(root / k, v) for k, v in files.items()))


def stamp(root: Path, version: str) -> None:
    """Make the manifest look written by ``version`` (and the registry still vouch for it)."""
    from msd_install.installer.fs import Transaction
    from msd_install.installer.manifest import MANIFEST_NAME
    from msd_install.installer.registry import Registry

    path = root / MANIFEST_NAME
    doc = json.loads(path.read_text())
    doc["installer_version"] = version
    data = (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode()
    path.write_bytes(data)
    import hashlib

    tx = Transaction()
    Registry(ctx(root.parent).manifest_registry()).record(
        tx, root, hashlib.sha256(data).hexdigest()
    )
    tx.commit()


def manifest(root: Path) -> dict[str, object]:
    doc: dict[str, object] = json.loads((root / "msd-file-manifest.json").read_text())
    return doc


def test_remove_if_ours_takes_only_unchanged_files_and_runs_once(tmp_path: Path) -> None:
    root = tmp_path / "root"
    engine.install(plan(root, {"a.md": b"a\n", "b.md": b"b\n", "keep.md": b"k\n"}), ctx(tmp_path))
    stamp(root, "0.0.5")
    (root / "b.md").write_bytes(b"b, changed by the user\n")
    probe = Probe("x-drop", "0.0.6", [RemoveIfOurs("a.md"), RemoveIfOurs("b.md")])
    result = engine.install(plan(root, {"keep.md": b"k\n"}), ctx(tmp_path), migrations=[probe])
    assert probe.calls == ["0.0.5"]
    assert [(a.verb, a.path.name) for a in result.actions if a.verb == "migrate"] == [
        ("migrate", "a.md")
    ]
    assert not (root / "a.md").exists()
    assert (root / "b.md").read_bytes() == b"b, changed by the user\n"
    assert manifest(root)["migrations"] == [{"id": "x-drop", "version": "0.0.6"}]
    # recorded: never planned again, even with a file of the same name back in the plan
    engine.install(
        plan(root, {"a.md": b"a\n", "keep.md": b"k\n"}), ctx(tmp_path), migrations=[probe]
    )
    assert probe.calls == ["0.0.5"]
    assert (root / "a.md").read_bytes() == b"a\n"


def test_a_migration_older_than_the_install_is_recorded_but_not_run(tmp_path: Path) -> None:
    root = tmp_path / "root"
    engine.install(plan(root, {"old.md": b"o\n"}), ctx(tmp_path))
    stamp(root, "0.3.0")
    probe = Probe("x-move", "0.2.0", [Move("old.md", "new.md")])
    engine.install(plan(root, {"old.md": b"o\n"}), ctx(tmp_path), migrations=[probe])
    assert probe.calls == []
    assert (root / "old.md").is_file() and not (root / "new.md").exists()
    assert manifest(root)["migrations"] == [{"id": "x-move", "version": "0.2.0"}]


def test_identity_is_id_and_version(tmp_path: Path) -> None:
    root = tmp_path / "root"
    engine.install(plan(root, {"old.md": b"o\n"}), ctx(tmp_path))
    stamp(root, "0.0.1")
    first = Probe("x-move", "0.0.2", [Move("old.md", "mid.md")])
    engine.install(plan(root, {"mid.md": b"o\n"}), ctx(tmp_path), migrations=[first])
    assert first.calls == ["0.0.1"] and (root / "mid.md").is_file()
    stamp(root, "0.0.1")  # the same id again, shipped in a later version: a new migration
    again = Probe("x-move", "0.0.3", [Move("mid.md", "new.md")])
    engine.install(plan(root, {"new.md": b"o\n"}), ctx(tmp_path), migrations=[first, again])
    assert first.calls == ["0.0.1"] and again.calls == ["0.0.1"]
    assert (root / "new.md").read_bytes() == b"o\n" and not (root / "mid.md").exists()


def test_a_move_never_overwrites_what_is_at_its_destination(tmp_path: Path) -> None:
    root = tmp_path / "root"
    engine.install(plan(root, {"old.md": b"o\n"}), ctx(tmp_path))
    stamp(root, "0.0.1")
    (root / "new.md").write_bytes(b"the user's\n")
    probe = Probe("x-move", "0.0.2", [Move("old.md", "new.md")])
    result = engine.install(plan(root, {"old.md": b"o\n"}), ctx(tmp_path), migrations=[probe])
    assert (root / "new.md").read_bytes() == b"the user's\n"
    assert ("skip", root / "old.md") in [(a.verb, a.path) for a in result.actions]


def test_a_foreign_manifest_is_not_migrated(tmp_path: Path) -> None:
    root = tmp_path / "root"
    engine.install(plan(root, {"old.md": b"o\n"}), ctx(tmp_path))
    path = root / "msd-file-manifest.json"
    doc = json.loads(path.read_text())
    doc["installer_version"] = "0.0.1"  # edited by hand: no longer what this user's msd wrote
    path.write_text(json.dumps(doc))
    probe = Probe("x-move", "0.0.2", [Move("old.md", "new.md")])
    before = snapshot(root)
    engine.install(plan(root, {"old.md": b"o\n"}), ctx(tmp_path), migrations=[probe], dry_run=True)
    assert probe.calls == [] and snapshot(root) == before


def test_version_order() -> None:
    assert version_key("0.0.2") < version_key("0.1.0") < version_key("0.10.0")
    assert version_key("adopted") < version_key("0.0.1")
    assert version_key("?") < version_key("0.0.1")


def _guard(root: Path, label: str) -> Plan:
    from msd_install.installer.plan import ITEM, ConfigEntry

    hook = {"type": "command", "command": "run-guard", "timeout": 5}
    value = {"matcher": "Bash", "hooks": [hook]}
    entry = ConfigEntry(
        root / "settings.json", "json", ITEM, ("hooks", "PreToolUse"), value,
        label=label, marker="run-guard",
    )  # fmt: skip
    return Plan("claude", "global", root, (FileOp(root / "a.md", b"a\n"),), entries=(entry,))


def test_a_migration_that_only_renames_a_config_entry_is_applied(tmp_path: Path) -> None:
    """A migration whose only operation renames a recorded config entry (no file to move,
    nothing rewritten) changes the manifest alone: the upgrade resolves against that, so the
    entry keeps the timeout the user tuned and is recorded under its new name."""
    from msd_install.installer.migration import RenameConfigEntry

    root = tmp_path / "root"
    engine.install(_guard(root, "hook old"), ctx(tmp_path))
    settings = root / "settings.json"
    settings.write_text(settings.read_text().replace('"timeout": 5', '"timeout": 30'))
    stamp(root, "0.0.1")
    tuned = settings.read_bytes()
    probe = Probe("x-rename", "0.0.2", [RenameConfigEntry("hook old", "hook new")])
    engine.install(_guard(root, "hook new"), ctx(tmp_path), migrations=[probe])
    assert probe.calls == ["0.0.1"]
    assert settings.read_bytes() == tuned  # the user's timeout, kept; the entry not re-added
    config = manifest(root)["config"]
    assert isinstance(config, list)
    labels = [op.get("label") for record in config for op in record["ops"]]
    assert [x for x in labels if x != "container"] == ["hook new"], labels
