"""Todos: one Markdown file per idea in ``.planning/todos/pending/``, moved to ``completed/``.

A todo file is ``<id>-<slug>.md`` with frontmatter ``id`` (three digits, unique across pending
and completed), ``title``, ``area``, ``created`` and, once done, ``completed``.
"""

from __future__ import annotations

import re
import time

from ..confine import Target
from ..toolspec import JSONObject, ToolError
from . import phasenum, yamlish
from .frontmatter import parse_text, with_key
from .fsio import atomic_write, ensure_dir, files_in, read_text, remove
from .locking import file_lock
from .project import Project, child

ID_RE = re.compile(r"^(?P<id>\d{3,})-.*\.md$")


def _dirs(project: Project) -> tuple[Target, Target]:
    return project.file("todos/pending"), project.file("todos/completed")


def _entries(project: Project, directory: Target) -> list[tuple[Target, JSONObject]]:
    """The todo files of a directory (regular files only: a symlink there is not a todo)."""
    out = []
    for name in files_in(project, directory):
        m = ID_RE.match(name)
        if not m:
            continue
        path = child(directory, name)
        rel = project.rel(path)
        data, _ = parse_text(read_text(project, path, rel), rel)
        out.append(
            (
                path,
                {
                    "id": m.group("id"),
                    "title": data.get("title", ""),
                    "area": data.get("area", ""),
                    "created": data.get("created"),
                    "completed": data.get("completed"),
                    "path": rel,
                },
            )
        )
    return out


def next_id(project: Project) -> str:
    """The id the next ``todo add`` will use (one more than any pending or completed id)."""
    ids = [int(e["id"]) for d in _dirs(project) for _, e in _entries(project, d)]
    return f"{max(ids, default=0) + 1:03d}"


def file_for(project: Project, todo_id: str, title: str) -> Target:
    return child(_dirs(project)[0], f"{todo_id}-{phasenum.slugify(' '.join(title.split()))}.md")


def find_pending(project: Project, todo_id: str) -> tuple[Target, JSONObject] | None:
    wanted = str(todo_id).strip()
    if not wanted.isdigit() or len(wanted) > 32:
        raise ToolError("invalid_value", f"{todo_id!r}: a todo id is a number such as 004")
    wanted = f"{int(wanted):03d}"
    return next((e for e in _entries(project, _dirs(project)[0]) if e[1]["id"] == wanted), None)


def todo_add(project: Project, title: str, area: str = "general") -> JSONObject:
    project.require_planning()
    title = " ".join(str(title).split())
    if not title:
        raise ToolError("invalid_value", "a todo needs a non-empty title")
    pending, _ = _dirs(project)
    with file_lock(project, project.lock(".lock")):
        ensure_dir(project, pending)
        todo_id = next_id(project)
        meta = {
            "id": todo_id,
            "title": title,
            "area": area,
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        text = f"---\n{yamlish.dump(meta)}---\n# {title}\n\n## Problem\n\n## Solution\n\nTBD\n"
        path = file_for(project, todo_id, title)
        atomic_write(project, path, text)
    return {"id": todo_id, "title": title, "area": area, "path": project.rel(path)}


def todo_list(project: Project, include_completed: bool = False) -> JSONObject:
    pending, completed = _dirs(project)
    result: JSONObject = {"pending": [e for _, e in _entries(project, pending)]}
    if include_completed:
        result["completed"] = [e for _, e in _entries(project, completed)]
    result["count"] = len(result["pending"])
    return result


def todo_done(project: Project, todo_id: str) -> JSONObject:
    project.require_planning()
    _, completed = _dirs(project)
    with file_lock(project, project.lock(".lock")):
        match = find_pending(project, todo_id)
        if match is None:
            raise ToolError("not_found", f"no pending todo with id {todo_id}")
        source, entry = match
        text = with_key(
            read_text(project, source, entry["path"]),
            "completed",
            time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            entry["path"],
        )
        ensure_dir(project, completed)
        target = child(completed, source.parts[-1])
        atomic_write(project, target, text)
        remove(project, source)
    return {"id": entry["id"], "title": entry["title"], "path": project.rel(target)}
