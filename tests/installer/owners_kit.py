"""Shared by the owner and link tests: one user config file per format, and tree owners."""

from __future__ import annotations

import os
from pathlib import Path

from helpers import run_cli

# runtime flag, the config file it edits (relative to HOME), the user's own content there
FORMATS = {
    "json": ("--claude", ".claude/settings.json", b'{\n  "theme": "dark"\n}\n'),
    "toml": ("--codex", ".codex/config.toml", b'# mine\nmodel = "o3"\n'),
    "yaml": ("--hermes", ".hermes/config.yaml", b"# mine\nmodel: gpt-5\n"),
}


def install(flag: str, home: Path, *extra: str) -> None:
    proc = run_cli([flag, "--global", "-y", *extra], home)
    assert proc.returncode == 0, proc.stderr


def uninstall(flag: str, home: Path) -> None:
    proc = run_cli([flag, "--global", "-y", "--uninstall"], home)
    assert proc.returncode == 0, proc.stderr


def owners(root: Path) -> dict[str, tuple[int, int]]:
    """Every path under ``root`` (the root too) with its owner and group, links not followed."""
    out = {".": (root.lstat().st_uid, root.lstat().st_gid)}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            st = p.lstat()
            out[p.relative_to(root).as_posix()] = (st.st_uid, st.st_gid)
    return out


def leftovers(directory: Path) -> list[str]:
    """Temp or saved copies of ours left next to a config file."""
    return [n for n in os.listdir(directory) if ".msd-tmp." in n or ".msd-save." in n]
