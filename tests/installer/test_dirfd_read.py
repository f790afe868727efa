"""``dirfd.read_at``: the bytes of a plain file, or None for anything else, never an error.

Everything msd reads of its own (the record, a journal's backups, a file it is about to
replace) goes through it; a directory, a FIFO or a link put in a file's place is not a file
of msd's, and reading one must neither fail with a misleading error nor block.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

from msd_install.installer.dirfd import Spot, read_at


def _spot(path: Path) -> Spot:
    return Spot(None, str(path), path)


def test_a_plain_file_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "f"
    data = os.urandom(200_000)
    path.write_bytes(data)
    assert read_at(_spot(path), len(data)) == data
    assert read_at(_spot(path), len(data) - 1) is None  # over the limit
    (tmp_path / "empty").write_bytes(b"")
    assert read_at(_spot(tmp_path / "empty"), 0) == b""


def test_anything_but_a_plain_file_reads_as_none(tmp_path: Path) -> None:
    folder = tmp_path / "d"
    folder.mkdir()
    fifo = tmp_path / "p"
    os.mkfifo(fifo)
    (tmp_path / "target").write_bytes(b"x")
    link = tmp_path / "l"
    link.symlink_to(tmp_path / "target")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "s"))  # a socket cannot even be opened (ENXIO)
    try:
        for path in (
            folder,
            fifo,
            link,
            tmp_path / "s",
            tmp_path / "absent",
            tmp_path / "target" / "under",
        ):
            assert read_at(_spot(path), 1 << 20) is None, path
    finally:
        sock.close()
