"""Upgrades keep ownership straight: adopted files, --force backups and stale files."""

from __future__ import annotations

import sys
from pathlib import Path

from helpers import snapshot, uninstall_claude
from msd_install.installer import engine
from msd_install.installer.context import Context
from msd_install.installer.plan import FileOp, Plan


def ctx(home: Path, force: bool = False) -> Context:
    return Context(home=home, cwd=home, interpreter=Path(sys.executable), force=force)


def plan(root: Path, files: dict[str, bytes]) -> Plan:
    return Plan("claude", "global", root, tuple(FileOp(root / k, v) for k, v in files.items()))


def test_an_adopted_file_that_a_new_version_changes_comes_back_on_uninstall(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "a.md").write_bytes(b"v1\n")  # the user already had exactly our v1
    before = snapshot(tmp_path)
    r1 = engine.install(plan(root, {"a.md": b"v1\n"}), ctx(tmp_path))
    assert [a.detail for a in r1.actions if a.path.name == "a.md"] == [
        "yours already; kept on uninstall"
    ]
    r2 = engine.install(plan(root, {"a.md": b"v2\n"}), ctx(tmp_path))
    assert {a.verb for a in r2.actions if a.path.name == "a.md"} == {"backup", "update"}
    assert (root / "a.md").read_bytes() == b"v2\n"
    uninstall_claude(ctx(tmp_path), root)
    assert snapshot(tmp_path) == before


def test_a_forced_file_dropped_by_an_upgrade_is_given_back(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "b.md").write_bytes(b"mine\n")
    (root / "b.md").chmod(0o600)
    before = snapshot(tmp_path)
    engine.install(plan(root, {"b.md": b"ours\n", "c.md": b"c\n"}), ctx(tmp_path, force=True))
    assert (root / "b.md").read_bytes() == b"ours\n"
    result = engine.install(plan(root, {"c.md": b"c\n"}), ctx(tmp_path))
    assert ("restore", root / "b.md") in [(a.verb, a.path) for a in result.actions]
    assert (root / "b.md").read_bytes() == b"mine\n"
    assert (root / "b.md").stat().st_mode & 0o777 == 0o600
    uninstall_claude(ctx(tmp_path), root)
    assert snapshot(tmp_path) == before
