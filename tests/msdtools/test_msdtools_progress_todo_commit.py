"""``progress``, ``todo add|list|done`` and ``commit`` (with a real git repository)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from msdtools_util import cli_env, fails, ok, run, write


def test_progress_json_and_bar(project: Path) -> None:
    doc = ok(project, "progress")
    assert doc["percent"] == 75 and doc["total_phases"] == 2 and doc["completed_phases"] == 1
    assert doc["total_plans"] == 3 and doc["completed_plans"] == 2
    assert doc["current_phase"]["number"] == "2"
    assert doc["bar"] == "[###############-----] 75% 1/2 phases, 2/3 plans"
    bar = ok(project, "progress", "--format", "bar")
    assert bar == {"format": "bar", "bar": doc["bar"], "percent": 75}
    fails(project, "progress", "--format", "xml", code="invalid_value")


def test_todos_round_trip(project: Path) -> None:
    first = ok(project, "todo", "add", 'Cache "quoted": titles', "--area", "perf")
    assert (
        first["id"] == "001"
        and first["path"] == ".planning/todos/pending/001-cache-quoted-titles.md"
    )
    assert ok(project, "todo", "add", "Second idea")["id"] == "002"
    listed = ok(project, "todo", "list")
    assert [(t["id"], t["title"], t["area"]) for t in listed["pending"]] == [
        ("001", 'Cache "quoted": titles', "perf"),
        ("002", "Second idea", "general"),
    ]
    done = ok(project, "todo", "done", "1")
    assert done["path"] == ".planning/todos/completed/001-cache-quoted-titles.md"
    assert not (project / first["path"]).exists()
    everything = ok(project, "todo", "list", "--all")
    assert [t["id"] for t in everything["pending"]] == ["002"]
    assert everything["completed"][0]["completed"].endswith("Z") and everything["count"] == 1
    assert ok(project, "todo", "add", "Third")["id"] == "003"  # ids are never reused
    fails(project, "todo", "done", "1", code="not_found")
    fails(project, "todo", "done", "abc", code="invalid_value")
    fails(project, "todo", "add", "  ", code="invalid_value")


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, env=_git_env(), check=True, capture_output=True, text=True
    ).stdout


def _git_env() -> dict[str, str]:
    return cli_env(
        {
            "GIT_AUTHOR_NAME": "T",
            "GIT_AUTHOR_EMAIL": "t@example.invalid",
            "GIT_COMMITTER_NAME": "T",
            "GIT_COMMITTER_EMAIL": "t@example.invalid",
            "GIT_CONFIG_GLOBAL": "/dev/null",
            "GIT_CONFIG_NOSYSTEM": "1",
        }
    )


@pytest.fixture
def repo(project: Path) -> Path:
    _git(project, "init", "-q")
    _git(project, "add", "src/app.py")
    _git(project, "commit", "-q", "-m", "code")
    return project


def test_commit_records_planning_files_only(repo: Path) -> None:
    write(repo, {"src/app.py": "print('changed')\n", "src/staged.py": "x = 1\n"})
    _git(repo, "add", "src/staged.py")
    code, doc = run(repo, "commit", "docs: plan phase 2", env=_git_env())
    assert code == 0 and doc["committed"] is True
    assert (
        all(f.startswith(".planning/") for f in doc["files"])
        and ".planning/STATE.md" in doc["files"]
    )
    assert _git(repo, "log", "-1", "--format=%s").strip() == "docs: plan phase 2"
    assert _git(repo, "rev-parse", "HEAD").strip() == doc["sha"]
    status = _git(repo, "status", "--porcelain")
    assert " M src/app.py" in status and "A  src/staged.py" in status  # untouched, still staged
    code, doc = run(repo, "commit", "again", env=_git_env())
    assert code == 0 and doc == {"committed": False, "reason": "nothing to commit", "files": []}


def test_commit_listed_files_and_refusals(repo: Path) -> None:
    write(repo, {"docs/notes.md": "n\n"})
    code, doc = run(repo, "commit", "notes", "--files", "docs/notes.md", env=_git_env())
    assert code == 0 and doc["files"] == ["docs/notes.md"]
    code, doc = run(repo, "commit", "x", "--files", "../outside.md", env=_git_env())
    assert code == 1 and doc["error"]["code"] == "outside_project"
    code, doc = run(repo, "commit", "x", "--files", "missing.md", env=_git_env())
    assert code == 1 and doc["error"]["code"] == "git_failed"
    code, doc = run(repo, "commit", " ", env=_git_env())
    assert code == 1 and doc["error"]["code"] == "invalid_value"


def test_commit_docs_false_does_nothing(repo: Path) -> None:
    ok(repo, "config", "set", "commit_docs", "false")
    head = _git(repo, "rev-parse", "HEAD")
    code, doc = run(repo, "commit", "docs", env=_git_env())
    assert code == 0 and doc["committed"] is False and "commit_docs is false" in doc["reason"]
    assert _git(repo, "rev-parse", "HEAD") == head


def test_commit_outside_a_repository(project: Path) -> None:
    code, doc = run(project, "commit", "docs", env=_git_env())
    assert code == 1 and doc["error"]["code"] == "not_a_git_repo"
