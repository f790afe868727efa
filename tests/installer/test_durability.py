"""What a run fsyncs: each file that protects someone's data, and msd's new payload files
all at once (one ``os.sync``) before the manifest that lists them.

A real install runs in a child process whose ``os.fsync`` and ``os.sync`` record what they
are asked to sync (the path behind each descriptor, from /proc/self/fd), then do it. The
user's config file, the backup of a user's file replaced with --force, the manifest and the
journal must be fsynced; no skill, agent, hook or engine file msd writes anew is fsynced on its
own (one fsync each made an install spend most of its time in fsync): one ``os.sync`` makes
them durable before the manifest is written, since a manifest that lists a file a power cut
emptied would make the next run take msd's damaged file for the user's edit. An uninstall
writes no payload file and never calls ``os.sync``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import build, cli_env

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/fd").is_dir(), reason="needs /proc/self/fd to name a descriptor"
)

CHILD = r"""
import json, os, stat, sys

synced = []
real_fsync = os.fsync


def fsync(fd):
    path = os.readlink(f"/proc/self/fd/{fd}")
    kind = "dir" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file"
    synced.append([kind, path])
    return real_fsync(fd)


def sync():
    synced.append(["sync", ""])


os.fsync, os.sync = fsync, sync
from msd_install.entry import main

try:
    main(sys.argv[2:])
finally:
    with open(sys.argv[1], "w") as out:
        json.dump(synced, out)
"""


def synced(home: Path, args: list[str]) -> list[tuple[str, str]]:
    report = home.parent / f"{home.name}-synced.json"
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(report), *args],
        cwd=home,
        env=cli_env(home),
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    return [(kind, path) for kind, path in json.loads(report.read_text())]


def _final(path: str) -> str:
    """A temp file's name as the file it becomes (``.x.msd-tmp.<pid>.<hex>`` -> ``x``)."""
    head, _, leaf = path.rpartition("/")
    if ".msd-tmp." in leaf:
        leaf = leaf[1:].split(".msd-tmp.")[0]
    return f"{head}/{leaf}"


def test_install_fsyncs_what_protects_data_and_no_payload_file(tmp_path: Path) -> None:
    home = tmp_path / "home"
    root = home / ".claude"
    build(
        root,
        {
            "settings.json": '{\n  "model": "opus"\n}\n',
            "skills/msd-help/SKILL.md": "my own msd-help\n",
        },
    )
    got = synced(home, ["--claude", "--global", "--yes", "--force"])
    assert got.count(("sync", "")) == 1  # once, for every new payload file
    manifest = ("file", str(root / "msd-file-manifest.json"))
    last_manifest = max(i for i, (kind, p) in enumerate(got) if _final(p) == manifest[1])
    assert got.index(("sync", "")) < last_manifest  # before the manifest that lists them
    files = {_final(p) for kind, p in got if kind == "file"}
    assert str(root / "settings.json") in files  # the user's config file
    assert str(root / "msd-file-manifest.json") in files
    assert str(root / ".msd-journal/intent") in files
    backups = [f for f in files if f.startswith(str(root / "msd-backups") + "/")]
    assert backups, "the backup of the user's msd-help skill must be durable"
    payload = sorted(
        f
        for f in files
        if any(f.startswith(str(root / d) + "/") for d in ("skills", "agents", "hooks"))
        or f.startswith(str(root / "msd-core") + "/")
    )
    # the one payload path fsynced is the user's file --force replaced (it existed)
    assert payload == [str(root / "skills/msd-help/SKILL.md")]


def test_uninstall_never_calls_os_sync(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    synced(home, ["--claude", "--global", "--yes"])
    got = synced(home, ["--claude", "--global", "--yes", "--uninstall"])
    assert ("sync", "") not in got
    assert not (home / ".claude").exists()


def test_a_file_put_back_under_an_unchanged_manifest_is_durable_before_the_run_ends(
    tmp_path: Path,
) -> None:
    """A reinstall that re-creates a file of msd's the user deleted writes no new manifest
    (it lists the file already), so no manifest write makes it durable: the run must, before
    its journal goes, or a power cut would leave an empty file the manifest lists as msd's
    (the next run would take it for the user's edit)."""
    home = tmp_path / "home"
    home.mkdir()
    synced(home, ["--claude", "--global", "--yes"])
    skill = home / ".claude/skills/msd-help/SKILL.md"
    manifest = (home / ".claude/msd-file-manifest.json").read_bytes()
    skill.unlink()
    got = synced(home, ["--claude", "--global", "--yes"])
    assert skill.is_file()
    assert (home / ".claude/msd-file-manifest.json").read_bytes() == manifest  # unchanged
    assert got.count(("sync", "")) == 1
