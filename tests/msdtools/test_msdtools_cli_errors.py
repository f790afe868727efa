"""Every failure is one JSON document on stdout with the documented exit code, no traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from msdtools_util import cli_env, fails, ok, run


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["bogus"],
        ["state"],
        ["state", "frobnicate"],
        ["state", "get"],
        ["state", "update", "status"],
        ["state", "patch"],
        ["phase", "insert", "2"],
        ["template", "fill"],
        ["frontmatter", "validate", "x.md"],
        ["init", "plan-phase", "--phase"],
        ["progress", "--unknown-flag"],
    ],
)
def test_usage_errors_exit_2_with_json(project: Path, args: list[str]) -> None:
    code, doc = run(project, *args)
    assert code == 2
    assert doc["error"]["code"] == "usage" and doc["error"]["message"].startswith("msd-tools")


def test_no_project_errors(tmp_path: Path) -> None:
    fails(tmp_path, "state", "update", "status", "executing", code="no_project")
    fails(tmp_path, "phase", "add", "X", code="no_project")
    fails(tmp_path, "todo", "add", "X", code="no_project")
    fails(tmp_path, "roadmap", "analyze", code="no_roadmap")
    assert list(tmp_path.iterdir()) == []  # nothing was created


def test_cwd_option(project: Path, tmp_path: Path) -> None:
    doc = ok(tmp_path, "--cwd", str(project), "state", "get", "status")
    assert doc["value"] == "not_started"
    assert ok(tmp_path, "state", "get", "status", "--cwd", str(project / "src"))["value"]
    fails(tmp_path, "--cwd", str(tmp_path / "missing"), "progress", code="not_found")


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["frontmatter", "get", "../outside.md"], "outside_project"),
        (["frontmatter", "get", "/etc/hostname"], "outside_project"),
        (["frontmatter", "get", "a\\..\\b.md"], "invalid_path"),
        (["frontmatter", "get", "C:/x.md"], "invalid_path"),
        (["frontmatter", "get", "link/secret.md"], "outside_project"),
        (["verify", "plan-structure", "link/secret.md"], "outside_project"),
        (["frontmatter", "set", "link/secret.md", "k", "v"], "outside_project"),
    ],
)
def test_paths_stay_inside_the_project(
    project: Path, tmp_path: Path, args: list[str], code: str
) -> None:
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "secret.md").write_text("---\nk: 1\n---\n")
    (project / "link").symlink_to(secret)
    fails(project, *args, code=code)
    assert (secret / "secret.md").read_text() == "---\nk: 1\n---\n"


def test_symlinked_planning_dir_leaving_the_project_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "phases").mkdir(parents=True)
    project = tmp_path / "p"
    project.mkdir()
    (project / ".planning").symlink_to(elsewhere)
    fails(project, "todo", "add", "x", code="outside_project")
    assert not (elsewhere / "todos").exists()


def test_filesystem_surprises_are_clear_errors(project: Path) -> None:
    (project / ".planning/STATE.md").unlink()
    (project / ".planning/STATE.md").mkdir()
    code, doc = run(project, "state", "load")
    assert code == 1 and doc["error"]["code"] == "invalid_path"
    assert doc["error"]["message"] == ".planning/STATE.md: is a directory"
    (project / ".planning/STATE.md").rmdir()
    (project / ".planning/STATE.md").write_bytes(b"---\nstatus: \xff\n---\n")
    code, doc = run(project, "state", "load")
    assert code == 1 and doc["error"]["code"] == "invalid_file"


def test_stdout_is_only_the_json_and_stderr_is_quiet(project: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "msd_install.msdcore.tools_cli", "state", "get", "nope"],
        cwd=project,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1 and proc.stderr == ""
    assert proc.stdout.startswith('{"error": ') and proc.stdout.count("\n") == 1


def test_help_is_plain_text_exit_0(project: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "msd_install.msdcore.tools_cli", "--help"],
        cwd=project,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0 and "usage: msd-tools" in proc.stdout
