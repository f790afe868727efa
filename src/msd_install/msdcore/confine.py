"""Path confinement: the one place that decides whether a path argument may be touched.

Every path a tool receives goes through ``resolve``: it is checked lexically (type, empty, NUL,
Windows forms, length), made absolute against the workspace root, ``realpath``-ed, and accepted
only if the real path lies inside the real root, compared component by component (never as a
string prefix, so ``/w/project2`` is not inside ``/w/project``). Names that merely look odd are
plain names and are not decoded or expanded: ``..test``, ``test..``, ``%2e%2e``, ``~/x``,
``file://x``. Absolute paths are accepted when they resolve inside the root, so an agent may pass
back the absolute paths it sees.

The result carries the real path's components relative to the root; ``safeio``/``safewrite``
open them one by one with ``O_NOFOLLOW`` from a descriptor of the root, so a symlink planted
after this check cannot redirect the access. That is the one confinement model of every tool
(file tools, planning tools, ``msd-tools``). Its symlink policy: a link named in an argument is
followed here, once, if it stays inside; listings never follow links; lock and temp files are
never followed (``follow_leaf=False``); no link pointing out is ever moved into place
(``linkcheck``). See docs/reference/mcp-server.md. The root itself is checked once at startup
(``mcp.config.workspace_root``).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from .toolerror import ToolError

MAX_PATH_CHARS = 4096
MAX_NAME_BYTES = 255
_DRIVE = re.compile(r"^[A-Za-z]:")


@dataclass(frozen=True)
class Target:
    """A confined path: the components of its real path below the root."""

    root: Path
    parts: tuple[str, ...]

    @property
    def real(self) -> Path:
        return self.root.joinpath(*self.parts)

    @property
    def rel(self) -> str:
        """The workspace-relative form shown to clients (``.`` for the root itself)."""
        return "/".join(self.parts) or "."

    def child(self, name: str) -> Target:
        """An entry found by listing this directory (reached without following anything)."""
        return Target(self.root, (*self.parts, name))

    @property
    def parent(self) -> Target:
        return Target(self.root, self.parts[:-1])


def check_raw(raw: object, field: str = "path") -> str:
    """Reject path arguments that are malformed before any filesystem lookup."""
    if not isinstance(raw, str):
        raise ToolError("invalid_path", f"{field} must be a string")
    if raw == "":
        raise ToolError("invalid_path", f"{field} is empty")
    if "\x00" in raw:
        raise ToolError("invalid_path", f"{field} contains a NUL byte")
    if "\\" in raw or _DRIVE.match(raw):
        raise ToolError("invalid_path", f"{field} uses a Windows form; use '/' separators")
    try:
        raw.encode("utf-8")
    except UnicodeEncodeError:
        raise ToolError("invalid_path", f"{field} is not valid Unicode") from None
    if len(raw) > MAX_PATH_CHARS:
        raise ToolError("name_too_long", f"{field} is longer than {MAX_PATH_CHARS} characters")
    for name in raw.split("/"):
        if len(name.encode("utf-8")) > MAX_NAME_BYTES:
            raise ToolError(
                "name_too_long", f"{field} has a name longer than {MAX_NAME_BYTES} bytes"
            )
        # Windows drops trailing spaces, so 'x ' and 'x' would be one file there. Trailing dots
        # stay allowed: 'test..' is an ordinary POSIX name.
        if name.endswith(" "):
            raise ToolError("invalid_path", f"{field} has a name ending in a space")
    return raw


def _inside(root: str, real: str) -> tuple[str, ...] | None:
    """The components of ``real`` below ``root`` (both real, absolute), compared as whole
    components: '/w/project2' is not inside '/w/project'."""
    if real == root:
        return ()
    if real.startswith(root + "/"):
        return tuple(real[len(root) + 1 :].split("/"))
    return None


def realpath(root: Path, path: str) -> str:
    """``os.path.realpath(path)``, cheaper for a path below ``root`` (itself a real path):
    the root's own components are not looked up again, only those below it, and the first
    symlink hands the rest to ``os.path.realpath``. (Only a speed-up: safety comes from the
    descriptor walk that follows, which refuses any symlink left in the result.)"""
    base = str(root)
    if base == "/" or not path.startswith(base + "/"):
        return os.path.realpath(path)
    real = base
    rest = path[len(base) + 1 :]
    while rest:
        name, _, rest = rest.partition("/")
        if name in ("", "."):
            continue
        if name == "..":
            real = real.rpartition("/")[0] or "/"
            continue
        candidate = f"{real}/{name}" if real != "/" else f"/{name}"
        try:
            link = stat.S_ISLNK(os.lstat(candidate).st_mode)
        except OSError:
            link = False  # like realpath: what is missing is joined as it is
        if link:
            return os.path.realpath(f"{candidate}/{rest}" if rest else candidate)
        real = candidate
    return real


def resolve(
    root: Path,
    raw: object,
    field: str = "path",
    *,
    follow_leaf: bool = True,
    base: tuple[str, ...] = (),
    within: tuple[str, ...] = (),
    outside: str = "outside_workspace",
) -> Target:
    """Confine ``raw`` to ``root`` (a realpath). ``follow_leaf=False`` keeps a final symlink
    itself (for moves and lock files) instead of its target; its directory is still resolved.

    A relative ``raw`` starts at ``root/base``; the result must lie in ``root/within`` too
    (a planning project inside the workspace). A refusal has the code ``outside``."""
    text = check_raw(raw, field)
    start = "/".join((str(root), *base))
    # Plain string joining: pathlib would fold 'x/.' into 'x' before we can refuse it.
    joined = text if text.startswith("/") else f"{start}/{text}"
    try:
        if follow_leaf:
            real = realpath(root, joined)
        else:
            head, _, leaf = joined.rstrip("/").rpartition("/")
            if leaf in ("", ".", ".."):
                raise ToolError("invalid_path", f"{field} must name an entry, not '{text}'")
            real = realpath(root, head or "/").rstrip("/") + "/" + leaf
    except OSError as exc:
        raise ToolError("invalid_path", f"{field} cannot be resolved: {exc.strerror}") from None
    parts = _inside(str(root).rstrip("/"), real)
    if parts is None or parts[: len(within)] != within:
        # The resolved location is deliberately not echoed: it may describe the outside.
        where = "the workspace" if outside == "outside_workspace" else "the project directory"
        raise ToolError(outside, f"{field} '{text}' resolves outside {where}")
    return Target(root, parts)
