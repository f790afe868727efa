"""A hard-linked or symlinked config file (dotfile managers) keeps its links: install and
uninstall edit the one file every name shows (docs/explanation/ownership.md)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from owners_kit import FORMATS, install, leftovers, uninstall

from helpers import build


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_a_hard_linked_config_is_edited_in_place(tmp_path: Path, fmt: str) -> None:
    flag, rel, mine = FORMATS[fmt]
    home = tmp_path / "home"
    build(home, {rel: mine})
    config = home / rel
    other = home / "dotfiles" / config.name
    other.parent.mkdir()
    os.link(config, other)
    ino = config.stat().st_ino

    install(flag, home)
    after = config.read_bytes()
    assert after != mine and b"msd" in after
    assert other.read_bytes() == after  # every name sees the new bytes
    assert config.stat().st_ino == other.stat().st_ino == ino
    assert config.stat().st_nlink == 2
    assert leftovers(config.parent) == []

    uninstall(flag, home)
    assert config.read_bytes() == other.read_bytes() == mine
    assert config.stat().st_ino == ino and config.stat().st_nlink == 2
    assert leftovers(config.parent) == []


@pytest.mark.parametrize("absolute", [True, False], ids=["absolute", "relative"])
@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_a_symlinked_config_is_edited_at_its_target(
    tmp_path: Path, fmt: str, absolute: bool
) -> None:
    flag, rel, mine = FORMATS[fmt]
    home = tmp_path / "home"
    target = home / "dotfiles" / Path(rel).name
    build(home, {f"dotfiles/{target.name}": mine})
    config = home / rel
    config.parent.mkdir(parents=True)
    link = str(target) if absolute else os.path.relpath(target, config.parent)
    config.symlink_to(link)
    ino = target.stat().st_ino

    install(flag, home)
    assert config.is_symlink() and os.readlink(config) == link
    assert b"msd" in target.read_bytes()
    assert os.listdir(target.parent) == [target.name]  # nothing of ours beside the target
    assert leftovers(config.parent) == []
    assert target.stat().st_ino != ino  # the target itself is replaced atomically

    uninstall(flag, home)
    assert config.is_symlink() and os.readlink(config) == link
    assert target.read_bytes() == mine
    assert os.listdir(target.parent) == [target.name]


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_a_symlink_to_a_hard_linked_file_keeps_both(tmp_path: Path, fmt: str) -> None:
    flag, rel, mine = FORMATS[fmt]
    home = tmp_path / "home"
    build(home, {f"dotfiles/{Path(rel).name}": mine})
    target = home / "dotfiles" / Path(rel).name
    os.link(target, home / "dotfiles" / "backup")
    config = home / rel
    config.parent.mkdir(parents=True)
    config.symlink_to(target)

    install(flag, home)
    assert (home / "dotfiles/backup").read_bytes() == target.read_bytes() != mine
    uninstall(flag, home)
    assert (home / "dotfiles/backup").read_bytes() == target.read_bytes() == mine
    assert target.stat().st_nlink == 2 and config.is_symlink()


def test_a_hard_link_to_a_file_of_ours_is_never_written_through(tmp_path: Path) -> None:
    """The rule is for the user's config files only: msd's own files are always replaced."""
    home = tmp_path / "home"
    build(home, {".claude/settings.json": "{}\n"})
    install("--claude", home)
    ours = home / ".claude/skills/msd-help/SKILL.md"
    ours.write_text("edited by the user\n")
    os.link(ours, tmp_path / "shared.md")
    install("--claude", home, "--force")
    assert ours.read_text().startswith("---\nname: msd-help")
    assert (tmp_path / "shared.md").read_text() == "edited by the user\n"
