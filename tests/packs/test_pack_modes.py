"""A pack's files get the mode they need: 0755 for what runs (an execute bit in the pack, a
``#!`` first line, a script ``hooks.json`` registers), 0644 for the rest (data and text beside
the hooks, a skill's reference). A pack from an archive that lost the execute bits still
installs hooks that run. An update that changes only a mode applies it; a reinstall with
nothing changed writes nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from packkit import make_pack

from helpers import build, run_cli, snapshot, snapshot_but_registry

EXTRA: dict[str, str | bytes] = {
    "hooks/rules.json": '{"deny": ["rm -rf /"]}\n',
    "hooks/lib/words.txt": "forbidden\n",
    "hooks/tool": "#!/bin/sh\necho tool\n",  # run directly by a hook, no extension
    "skills/lint/data.yaml": "rules: [tabs]\n",
    "skills/lint/scripts/fix": "#!/bin/sh\nexit 0\n",
    "references/table.csv": "a,b\n",
}
ROOTS = {"claude": ".claude", "codex": ".codex", "gemini": ".gemini"}


def _ok(args: list[str], home: Path) -> str:
    proc = run_cli([*args, "--yes"], home)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    return proc.stdout


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o7777


def _modes(root: Path, pack: str = "acme") -> dict[str, int]:
    doc = json.loads((root / f"msd-file-manifest.{pack}.json").read_text())
    return {rel: _mode(root / rel) for rel in doc["files"]}


@pytest.mark.parametrize("runtime", sorted(ROOTS))
@pytest.mark.parametrize("archive", [False, True], ids=["checkout", "zip"])
def test_modes_follow_the_pack(tmp_path: Path, runtime: str, archive: bool) -> None:
    home = tmp_path / "home"
    home.mkdir()
    pack = make_pack(tmp_path / "acme", extra=EXTRA)
    if archive:  # an archive that keeps no mode: every file 0644
        for path in pack.rglob("*"):
            if path.is_file():
                path.chmod(0o644)
    _ok([f"--{runtime}", "--global", "--payload", str(pack)], home)
    root = home / ROOTS[runtime]
    modes = _modes(root)
    hooks = {rel: m for rel, m in modes.items() if rel.startswith("hooks/acme/")}
    assert hooks == {
        "hooks/acme/guard.py": 0o755,  # registered: always
        "hooks/acme/format.sh": 0o755,
        "hooks/acme/banner.js": 0o755,
        "hooks/acme/tool": 0o755,  # #!
        "hooks/acme/helper.py": 0o644 if archive else 0o755,  # imported: its bit as it is
        "hooks/acme/lib/common.sh": 0o644 if archive else 0o755,
        "hooks/acme/lib/index.js": 0o644 if archive else 0o755,
        "hooks/acme/rules.json": 0o644,
        "hooks/acme/lib/words.txt": 0o644,
    }
    skill = {rel.split("acme-lint/")[1]: m for rel, m in modes.items() if "acme-lint/" in rel}
    assert skill["data.yaml"] == skill["reference.md"] == skill["SKILL.md"] == 0o644
    assert skill["scripts/fix"] == 0o755
    assert skill["scripts/run_lint.py"] == (0o644 if archive else 0o755)
    assert modes["acme/references/table.csv"] == 0o644
    assert modes["acme/scripts/check.sh"] == 0o755  # #! (and its bit in a checkout)


def test_an_update_that_changes_only_a_mode_applies_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    build(home, {".claude/settings.json": '{\n  "model": "opus"\n}\n'})
    original = snapshot(home)
    pack = make_pack(tmp_path / "acme", extra=EXTRA)
    os.chmod(pack / "hooks/rules.json", 0o755)
    claude = ["--claude", "--global"]
    _ok([*claude, "--payload", str(pack)], home)
    rules = home / ".claude/hooks/acme/rules.json"
    assert _mode(rules) == 0o755
    os.chmod(pack / "hooks/rules.json", 0o644)
    out = _ok([*claude, "--payload", str(pack)], home)
    assert out.splitlines()[0].endswith(" identical, 1 updated"), out  # that file alone
    assert _mode(rules) == 0o644
    doc = json.loads((home / ".claude/msd-file-manifest.acme.json").read_text())
    assert doc["files"]["hooks/acme/rules.json"]["mode"] == 0o644
    # nothing changed: nothing written (bytes, modes, times and inodes all as they were)
    before = snapshot(home, stat=True)
    again = _ok([*claude, "--payload", str(pack)], home)
    assert "update" not in again and "create" not in again
    assert snapshot(home, stat=True) == before
    _ok([*claude, "--uninstall", "--pack", "acme"], home)
    assert snapshot_but_registry(home) == original
