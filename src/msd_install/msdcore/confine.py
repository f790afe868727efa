"""Path confinement: the one place that decides whether a path argument may be touched.

Every path a tool receives goes through ``resolve``: it is checked lexically (type, empty, NUL,
Windows forms, length), made absolute against the workspace root, ``realpath``-ed, and accepted
only if the real path lies inside the real root, compared component by component (never as a
string prefix, so ``/w/project2`` is not inside ``/w/project``). Names that merely look odd are
plain names and are not decoded or expanded: ``..test``, ``test..``, ``%2e%2e``, ``~/x``,
``file://x``. Absolute paths are accepted when they resolve inside the root, so an agent may pass
back the absolute paths it sees.

The result carries the real path's components relative to the root; ``safeio`` opens them one
by one with ``O_NOFOLLOW``, so a symlink planted after this check cannot redirect the access.
The root itself is checked once at startup (``mcp.config.workspace_root``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from .toolspec import ToolError

MAX_PATH_CHARS = 4096
MAX_NAME_BYTES = 255
_DRIVE = re.compile(r"^[A-Za-z]:")


@dataclass(frozen=True)
class Target:
    """A confined path: its real absolute form and its components below the root."""

    real: Path
    parts: tuple[str, ...]

    @property
    def rel(self) -> str:
        """The workspace-relative form shown to clients (``.`` for the root itself)."""
        return "/".join(self.parts) or "."


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


def _inside(root: Path, real: str) -> tuple[str, ...] | None:
    parts = Path(real).parts
    n = len(root.parts)
    return tuple(parts[n:]) if parts[:n] == root.parts else None


def resolve(root: Path, raw: object, field: str = "path", *, follow_leaf: bool = True) -> Target:
    """Confine ``raw`` to ``root`` (a realpath). ``follow_leaf=False`` keeps a final symlink
    itself (for moves) instead of its target; its directory is still fully resolved."""
    text = check_raw(raw, field)
    # Plain string joining: pathlib would fold 'x/.' into 'x' before we can refuse it.
    joined = text if text.startswith("/") else f"{root}/{text}"
    try:
        if follow_leaf:
            real = os.path.realpath(joined)
        else:
            head, _, leaf = joined.rstrip("/").rpartition("/")
            if leaf in ("", ".", ".."):
                raise ToolError("invalid_path", f"{field} must name an entry, not '{text}'")
            real = os.path.realpath(head or "/").rstrip("/") + "/" + leaf
    except OSError as exc:
        raise ToolError("invalid_path", f"{field} cannot be resolved: {exc.strerror}") from None
    parts = _inside(root, real)
    if parts is None:
        # The resolved location is deliberately not echoed: it may describe the outside.
        raise ToolError("outside_workspace", f"{field} '{text}' resolves outside the workspace")
    return Target(Path(real), parts)
