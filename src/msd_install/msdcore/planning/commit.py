"""``commit``: record planning documents in git, honouring ``commit_docs``.

Only ``.planning/`` is committed by default; other paths must be listed with ``--files`` and
must be inside the project. The commit names its paths (``git commit -- <paths>``), so
whatever else the user has staged stays staged and out of this commit.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping

from ..toolspec import JSONObject, ToolError
from . import config
from .project import PLANNING, Project


def _git(project: Project, env: Mapping[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    git = shutil.which("git", path=env.get("PATH"))
    if git is None:
        raise ToolError("no_git", "git is not installed or not on PATH")
    return subprocess.run(
        [git, *args],
        cwd=project.root,
        env=dict(env),
        capture_output=True,
        text=True,
        check=False,
    )


def _fail(proc: subprocess.CompletedProcess[str], what: str) -> ToolError:
    detail = (proc.stderr or proc.stdout).strip().splitlines()
    return ToolError("git_failed", f"{what}: {detail[0] if detail else f'exit {proc.returncode}'}")


def commit(project: Project, message: str, files: list[str] | None = None) -> JSONObject:
    project.require_planning()
    if not message.strip():
        raise ToolError("invalid_value", "a commit needs a non-empty message")
    if not config.flag(config.effective(project), "commit_docs"):
        return {
            "committed": False,
            "reason": "commit_docs is false in .planning/config.json: nothing committed",
            "files": [],
        }
    env = project.env
    paths = [project.rel(project.user_path(f)) for f in files] if files else [PLANNING]
    if _git(project, env, "rev-parse", "--is-inside-work-tree").returncode != 0:
        raise ToolError("not_a_git_repo", f"{project.root}: not inside a git work tree")
    if not files and _git(project, env, "check-ignore", "-q", PLANNING).returncode == 0:
        return {"committed": False, "reason": ".planning/ is ignored by git", "files": []}
    add = _git(project, env, "add", "-A", "--", *paths)
    if add.returncode != 0:
        raise _fail(add, "git add")
    staged = _git(project, env, "diff", "--cached", "--name-only", "--", *paths)
    changed = [line for line in staged.stdout.splitlines() if line]
    if not changed:
        return {"committed": False, "reason": "nothing to commit", "files": []}
    done = _git(project, env, "commit", "-q", "-m", message, "--", *paths)
    if done.returncode != 0:
        raise _fail(done, "git commit")
    sha = _git(project, env, "rev-parse", "HEAD").stdout.strip()
    return {"committed": True, "sha": sha, "message": message, "files": changed}
