"""A cloned project with committed symlinks and no manifest, installed --local, through the
real CLI. The project is untrusted input like a committed manifest: its links are followed
only while they stay inside it.

Before: with no manifest every link was followed, so `msd-install --claude --local` in the
clone added msd's server to ~/.claude.json (committed `.mcp.json -> ../../.claude.json`),
22 hook commands running the clone's scripts to the global settings.json (committed
`.claude/settings.json -> ~/.claude/settings.json`), or 28 files to ~/.config/autostart
(committed `.claude/skills -> ~/.config/autostart`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import build, run_cli, snapshot

LOCAL = ["--claude", "--local", "--yes"]
WHY = (
    "a symlink leading out of the project, not followed in a --local install (a cloned "
    "project could point it anywhere)"
)
HOME_FILES = {
    ".claude.json": '{"numStartups": 3}\n',
    ".claude/settings.json": '{\n  "model": "opus"\n}\n',
    ".config/autostart/keep.desktop": "[Desktop Entry]\n",
}
LINKS = {
    # committed link -> where it points, relative to the link
    ".mcp.json": "../../.claude.json",
    ".claude/settings.json": "../../../.claude/settings.json",
    ".claude/skills": "../../../.config/autostart",
}


def clone_with(tmp_path: Path, link: str) -> tuple[Path, Path]:
    home = tmp_path / "home"
    build(home, {**HOME_FILES, "src/proj/app.py": "x = 1\n"})
    project = home / "src/proj"
    (project / link).parent.mkdir(parents=True, exist_ok=True)
    (project / link).symlink_to(LINKS[link])
    return home, project


def outside_the_project(home: Path, *, record: bool = False) -> dict[str, object]:
    """The home but the project (and, with ``record``, the user's record of their manifests,
    which an install adds and the last uninstall takes away)."""
    skip = ("src/", ".local/") if record else ("src/",)
    return {k: v for k, v in snapshot(home).items() if not k.startswith(skip)}


@pytest.mark.parametrize("link", list(LINKS))
def test_a_committed_link_out_of_the_project_is_a_conflict_and_nothing_outside_changes(
    tmp_path: Path, link: str
) -> None:
    home, project = clone_with(tmp_path, link)
    before = outside_the_project(home)
    for _ in range(2):  # the second run's manifest is the user's own: still not followed
        proc = run_cli(LOCAL, home, cwd=project)
        assert proc.returncode == 1, proc.stderr  # 1: a conflict left something out
        assert WHY in proc.stdout
        assert outside_the_project(home, record=True) == before
    proc = run_cli([*LOCAL, "--uninstall"], home, cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert outside_the_project(home) == before
    assert (project / link).readlink() == Path(LINKS[link])


def test_a_committed_root_linked_out_of_the_project_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    build(home, {**HOME_FILES, "src/proj/app.py": "x = 1\n"})
    project = home / "src/proj"
    (project / ".claude").symlink_to("../../.config/autostart")
    before = snapshot(home)
    proc = run_cli(LOCAL, home, cwd=project)
    assert proc.returncode == 4, proc.stderr
    assert proc.stderr.splitlines() == [
        f"msd-install: error: {project / '.claude'}: passes through '.claude', a symlink "
        f"leading out of the project ({project}): msd-install does not install a --local "
        "runtime through it (nothing was changed; replace the link with a directory, or "
        "install into its target with --global --config-dir)"
    ]
    assert snapshot(home) == before


def test_links_that_stay_inside_the_project_are_still_followed(tmp_path: Path) -> None:
    """A monorepo sharing its skills: `.claude/skills -> ../shared/skills`."""
    home = tmp_path / "home"
    build(home, {"src/proj/shared/skills/README.md": "ours\n"})
    project = home / "src/proj"
    (project / ".claude").mkdir()
    (project / ".claude/skills").symlink_to("../shared/skills")
    before = snapshot(home)
    proc = run_cli(LOCAL, home, cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert (project / "shared/skills/msd-help/SKILL.md").is_file()
    assert run_cli([*LOCAL, "--uninstall"], home, cwd=project).returncode == 0
    assert snapshot(home) == before
