"""On runtimes without agent files (Windsurf, Trae, Hermes, Antigravity) a pack's agents are
instructions files, and Hermes keeps skills in category folders: a pack's go under the pack's
own folders (``<root>/<pack>/agents/``, Hermes ``skills/<pack>/``), never under MSD Core's
(``msd-core/agents/``, ``skills/msd/``), and its converted text points there. So uninstalling
MSD Core leaves the pack working and complete, and the pack's uninstall then gives back the
original tree byte for byte."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from packkit import make_pack

from helpers import build, run_cli, snapshot

ROOTS = {
    "windsurf": ".codeium/windsurf",
    "trae": ".trae",
    "hermes": ".hermes",
    "antigravity": ".gemini/config",
}
# how the converted text tells the agent where an agent's instructions are
_READ = re.compile(r"read ((?:~|/)\S+?/agents/[a-z0-9-]+\.md)")


def _ok(args: list[str], home: Path) -> str:
    proc = run_cli([*args, "--yes"], home)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    return proc.stdout


def _files(root: Path, name: str) -> dict[str, bytes]:
    doc = json.loads((root / name).read_text())
    return {rel: (root / rel).read_bytes() for rel in doc["files"]}


@pytest.mark.parametrize("runtime", sorted(ROOTS))
def test_msd_core_uninstall_leaves_the_pack_whole(tmp_path: Path, runtime: str) -> None:
    home = tmp_path / "home"
    build(home, {"notes.txt": "mine\n"})
    original = snapshot(home)
    pack = make_pack(tmp_path / "acme")
    flag = [f"--{runtime}", "--global"]
    _ok([*flag, "--payload", str(pack)], home)
    _ok(flag, home)
    root = home / ROOTS[runtime]
    packs = _files(root, "msd-file-manifest.acme.json")
    assert "acme/agents/acme-reviewer.md" in packs
    assert not [rel for rel in packs if rel.startswith(("msd-core/", "skills/msd/"))]
    if runtime == "hermes":
        assert "skills/acme/acme-lint/SKILL.md" in packs

    _ok([*flag, "--uninstall"], home)
    assert not (root / "msd-core").exists()
    assert not (root / "skills/msd").exists()
    assert _files(root, "msd-file-manifest.acme.json") == packs  # complete, byte for byte
    named = set()
    for rel, data in packs.items():
        for ref in _READ.findall(data.decode("utf-8", "replace")):
            # inside quotes (Hermes' delegate_task context="...") a global path is absolute
            ref = ref.replace(f"{home}/", "~/", 1)
            assert (home / ref[2:]).is_file(), f"{rel} names {ref}"
            named.add(ref)
    assert f"~/{ROOTS[runtime]}/acme/agents/acme-reviewer.md" in named

    _ok([*flag, "--uninstall", "--pack", "acme"], home)
    assert snapshot(home) == original
