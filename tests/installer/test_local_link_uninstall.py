"""A --local uninstall changes nothing outside the project, as the install does not: files
behind a symlink of the project's that leads out of it are kept and named (the real run used
to stop there, exit 4, on every retry, while its dry run said it would remove them), and a
root reached through such a link is refused whole, as the install refuses it."""

from __future__ import annotations

import re
from pathlib import Path

from helpers import run_cli, snapshot

LOCAL = ["--claude", "--local", "--yes"]


def test_files_behind_a_link_out_of_the_project_are_kept(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    assert run_cli(LOCAL, tmp_path, project).returncode == 0
    (project / ".claude/msd-core").rename(tmp_path / "core-out")
    (project / ".claude/msd-core").symlink_to(tmp_path / "core-out")
    outside = snapshot(tmp_path / "core-out", stat=True)
    dry = run_cli([*LOCAL, "--uninstall", "--dry-run"], tmp_path, project)
    real = run_cli([*LOCAL, "--uninstall"], tmp_path, project)
    assert dry.returncode == real.returncode == 0, real.stdout + real.stderr
    removed = re.search(r"(\d+) to remove", dry.stdout)
    assert removed is not None and f": {removed.group(1)} removed, " in real.stdout
    assert "msd-core/VERSION  (leads out of the project (a symlink): kept)" in real.stdout
    assert snapshot(tmp_path / "core-out", stat=True) == outside
    assert sorted(p.name for p in (project / ".claude").iterdir()) == ["msd-core"]  # yours


def test_a_root_reached_through_a_link_out_of_the_project_is_refused(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    assert run_cli(LOCAL, tmp_path, project).returncode == 0
    (project / ".claude").rename(tmp_path / "claude-out")
    (project / ".claude").symlink_to(tmp_path / "claude-out")
    before = snapshot(tmp_path, stat=True)
    for extra in (["--uninstall"], ["--uninstall", "--dry-run"], ["--reapply"]):
        proc = run_cli([*LOCAL, *extra], tmp_path, project)
        assert proc.returncode == 4, proc.stdout + proc.stderr
        assert "a symlink leading out of the project" in proc.stderr
    assert snapshot(tmp_path, stat=True) == before
