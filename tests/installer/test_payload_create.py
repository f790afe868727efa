"""A new payload file is created at its name (no temp file, no rename); what another program
put there after msd looked (the race ``fs._write_at`` is told about by a stale ``lstat``) is
replaced as a rename replaced it, never written into, and a rollback removes only msd's."""

from __future__ import annotations

import os
from pathlib import Path

from msd_install.installer import fs
from msd_install.installer.dirfd import Dirs


def test_a_new_file_is_created_at_its_name_with_its_mode(tmp_path: Path) -> None:
    dirs = Dirs()
    spot = dirs.by_path(tmp_path / "new.md")
    fs._write_at(spot, b"ours\n", 0o755, None, durable=False)
    dirs.close()
    assert (tmp_path / "new.md").read_bytes() == b"ours\n"
    assert (tmp_path / "new.md").stat().st_mode & 0o7777 == 0o755
    assert sorted(os.listdir(tmp_path)) == ["new.md"]  # no temp file left


def test_a_file_made_since_msd_looked_is_replaced_not_written_into(tmp_path: Path) -> None:
    theirs = tmp_path / "theirs.md"
    theirs.write_bytes(b"theirs, a longer text than ours\n")
    other = tmp_path / "other-name"
    os.link(theirs, other)  # replaced by a rename: the other name keeps their bytes
    dirs = Dirs()
    spot = dirs.by_path(theirs)
    fs._write_at(spot, b"ours\n", 0o644, None, durable=False)  # None: looked before it came
    dirs.close()
    assert theirs.read_bytes() == b"ours\n"
    assert other.read_bytes() == b"theirs, a longer text than ours\n"
    assert sorted(os.listdir(tmp_path)) == ["other-name", "theirs.md"]


def test_a_rollback_removes_the_created_files(tmp_path: Path) -> None:
    tx = fs.Transaction()
    tx.write_at(tx.dirs.by_path(tmp_path / "a.md"), b"a", 0o644, sync=False)
    tx.write_at(tx.dirs.by_path(tmp_path / "b.md"), b"b", 0o644, sync=False)
    assert sorted(os.listdir(tmp_path)) == ["a.md", "b.md"]
    tx.rollback()
    assert os.listdir(tmp_path) == []
