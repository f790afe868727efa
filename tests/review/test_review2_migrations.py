"""Adversarial review (review2) of installer migrations: each test is a bug found, marked
strict xfail until it is fixed."""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from msd_install.installer import engine
from msd_install.installer.context import Context
from msd_install.installer.fs import Transaction
from msd_install.installer.manifest import MANIFEST_NAME
from msd_install.installer.migration import Move, Op, View
from msd_install.installer.plan import FileOp, Plan
from msd_install.installer.registry import Registry


@dataclass
class Probe:
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
    """The manifest as ``version`` of msd-install wrote it (the registry vouching for it)."""
    path = root / MANIFEST_NAME
    doc = json.loads(path.read_text())
    doc["installer_version"] = version
    data = (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode()
    path.write_bytes(data)
    tx = Transaction()
    Registry(ctx(root.parent).manifest_registry()).record(
        tx, root, hashlib.sha256(data).hexdigest()
    )
    tx.commit()


@pytest.mark.parametrize(
    ("written_by", "ships_in"), [("1.0.0rc12", "1.0.5"), ("0.2.0rc1", "0.2.1")]
)
def test_a_migration_newer_than_a_pre_release_install_runs(
    tmp_path: Path, written_by: str, ships_in: str
) -> None:
    root = tmp_path / "root"
    engine.install(plan(root, {"old.md": b"o\n"}), ctx(tmp_path))
    stamp(root, written_by)
    probe = Probe("x-move", ships_in, [Move("old.md", "new.md")])
    result = engine.install(plan(root, {"new.md": b"o\n"}), ctx(tmp_path), migrations=[probe])
    assert ("migrate", root / "new.md") in [(a.verb, a.path) for a in result.actions]


def test_an_edit_in_the_old_engine_directory_can_be_reapplied(tmp_path: Path) -> None:
    from helpers import run_cli
    from lifecycle.fixtures import install_version

    claude = ["--claude", "--global", "--yes"]
    root = install_version(tmp_path, "0.0.2")
    old = root / "msd/workflows/help.md"
    old.write_bytes(old.read_bytes() + b"\nmy note: always answer in French\n")
    assert run_cli(claude, tmp_path).returncode in (0, 1)
    proc = run_cli([*claude, "--reapply"], tmp_path)
    moved = root / "msd-core/workflows/help.md"
    assert b"my note: always answer in French" in moved.read_bytes(), proc.stdout


def test_an_edited_secret_guard_hook_is_offered_to_reapply(tmp_path: Path) -> None:
    from helpers import run_cli
    from lifecycle.fixtures import install_version

    claude = ["--claude", "--global", "--yes"]
    root = install_version(tmp_path, "0.0.1")
    old = root / "hooks/msd-secret-guard.py"
    old.write_bytes(old.read_bytes() + b"\n# my tweak: also guard ~/.aws/config\n")
    assert run_cli(claude, tmp_path).returncode in (0, 1)
    proc = run_cli([*claude, "--reapply"], tmp_path)
    # renamed in 0.0.2 (0001), then split into a launcher and its code in 0.1.0 (0003)
    new = root / "hooks/msd-secret-read-guard-code.py"
    assert b"my tweak: also guard ~/.aws/config" in new.read_bytes(), proc.stdout
    assert proc.returncode == 0, proc.stdout  # merged cleanly, into the code
