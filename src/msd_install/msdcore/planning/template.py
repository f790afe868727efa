"""``template fill``: locate the installed templates and substitute ``{{var}}`` placeholders.

Where the templates are, in order: ``$MSD_CORE_DIR/templates``; ``<root>/msd-core/templates``
when this package runs from an install (``<root>/msd-core/lib/msdcore``); the package data
``msd_install/payload/data/core/templates`` when it runs from the source tree or a pip install.

Substitution is strict both ways: a ``--var`` the template does not use is an error (a typo
would otherwise vanish), and so is a placeholder left without a value (a half-filled document
would otherwise be committed). ``date`` defaults to today's UTC date.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Mapping
from pathlib import Path

from ..toolspec import JSONObject, ToolError
from . import yamlish
from .frontmatter import split
from .fsio import MAX_DOC_BYTES, atomic_write, ensure_dir, exists
from .project import Project


def contained(path: Path, root: Path) -> bool:
    """True when the already-resolved ``path`` is ``root`` or below it (component-wise)."""
    return path == root or root in path.parents


def _read_template(path: Path, label: str) -> str:
    """A template from the installed tree (ours, not the workspace's), size-capped."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_DOC_BYTES + 1)
    except OSError as exc:
        raise ToolError("io_error", f"{label}: {exc.strerror}") from None
    if len(data) > MAX_DOC_BYTES:
        raise ToolError("too_large", f"{label}: larger than {MAX_DOC_BYTES} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError("invalid_file", f"{label}: not UTF-8 text") from None


PLACEHOLDER_RE = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
VAR_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")


def templates_dir(env: Mapping[str, str]) -> Path:
    override = env.get("MSD_CORE_DIR")
    if override:
        path = Path(override) / "templates"
        if not path.is_dir():
            raise ToolError("not_found", f"MSD_CORE_DIR={override}: no templates/ directory there")
        return path
    package = Path(__file__).resolve().parent.parent  # .../msdcore
    if package.parent.name == "lib":  # installed: <root>/msd-core/lib/msdcore
        installed = package.parent.parent / "templates"
        if installed.is_dir():
            return installed
    source = package.parent / "payload" / "data" / "core" / "templates"  # msd_install/msdcore
    if source.is_dir():
        return source
    raise ToolError("not_found", "cannot find the msd-core templates (set MSD_CORE_DIR)")


def find(env: Mapping[str, str], name: str) -> Path:
    base = templates_dir(env).resolve()
    if not name or "\x00" in name or "\\" in name or name.startswith("/"):
        raise ToolError("invalid_path", f"{name!r}: not a template name")
    for candidate in (name, f"{name}.md"):
        path = Path(os.path.realpath(base / candidate))
        if contained(path, base) and path.is_file():
            return path
        if not contained(path, base):
            raise ToolError("invalid_path", f"{name!r}: outside the templates directory")
    available = sorted(p.relative_to(base).as_posix() for p in base.rglob("*") if p.is_file())
    raise ToolError("not_found", f"no template {name!r} (available: {', '.join(available)})")


def fill_text(text: str, variables: Mapping[str, str], source: str) -> tuple[str, list[str]]:
    used = sorted(set(PLACEHOLDER_RE.findall(text)))
    bad = [k for k in variables if not VAR_NAME_RE.match(k)]
    if bad:
        raise ToolError("invalid_var", f"{', '.join(bad)}: variable names are snake_case")
    unknown = sorted(set(variables) - set(used))
    if unknown:
        raise ToolError(
            "unknown_var",
            f"{source} has no placeholder for {', '.join(unknown)} "
            f"(it uses: {', '.join(used) or 'none'})",
        )
    values = dict(variables)
    values.setdefault("date", time.strftime("%Y-%m-%d", time.gmtime()))
    missing = [k for k in used if k not in values]
    if missing:
        raise ToolError(
            "missing_var",
            f"{source} needs --var for {', '.join(missing)} (it uses: {', '.join(used)})",
        )
    plain = PLACEHOLDER_RE.sub(lambda m: values[m.group(1)], text)
    if not text.startswith("---\n"):
        return plain, used
    try:
        doc = split(text)
    except ToolError:
        return plain, used
    head = doc.head + _fill_frontmatter(doc.fm_text, values) + doc.tail
    try:
        yamlish.parse(split(head).fm_text)
    except yamlish.YamlError as exc:
        raise ToolError(
            "invalid_var", f"{source}: the values make its frontmatter unreadable ({exc})"
        ) from None
    return head + PLACEHOLDER_RE.sub(lambda m: values[m.group(1)], doc.body), used


def _fill_frontmatter(text: str, values: Mapping[str, str]) -> str:
    """Substitute inside frontmatter, escaping values that land in a double-quoted scalar, so
    a name such as ``Say "hi"`` cannot break the YAML."""
    out = []
    for line in text.splitlines(keepends=True):

        def one(m: re.Match[str], line: str = line) -> str:
            value = values[m.group(1)]
            quotes = len(re.findall(r'(?<!\\)"', line[: m.start()]))
            return json.dumps(value, ensure_ascii=False)[1:-1] if quotes % 2 else value

        out.append(PLACEHOLDER_RE.sub(one, line))
    return "".join(out)


def parse_vars(pairs: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise ToolError("invalid_var", f"{pair!r}: expected --var name=value")
        out[key.strip()] = value
    return out


# ---- operation shared by the CLI and the MCP tools --------------------------------------------


def template_fill(
    project: Project,
    name: str,
    variables: Mapping[str, str],
    out: str | None = None,
    force: bool = False,
) -> JSONObject:
    path = find(project.env, name)
    base = templates_dir(project.env).resolve()
    label = path.relative_to(base).as_posix()
    text, used = fill_text(_read_template(path, label), variables, label)
    result: JSONObject = {"template": label, "vars": used}
    if out is None:
        result["content"] = text
        return result
    target = project.user_path(out)
    if exists(project, target) and not force:
        raise ToolError(
            "exists", f"{project.rel(target)}: already exists (pass --force to replace)"
        )
    if len(target.parts) > len(project.base):
        ensure_dir(project, target.parent)
    atomic_write(project, target, text)
    result["path"] = project.rel(target)
    result["bytes"] = len(text.encode("utf-8"))
    return result
