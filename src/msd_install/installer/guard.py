"""Where each change of a run is made: a ``Spot`` confined to the root or the project.

Resolution decides on reads; the tree may change before the change is made (a directory
swapped for a symlink out of the root). The ``Guard`` turns each step's path into a spot whose
directory was reached, right then, without leaving the place the run may change, and the
transaction records the undo at that same spot (``dirfd``).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..errors import FileAccessError
from .confine import inside, real_target, show
from .dirfd import Dir, Dirs, EscapeError, Spot, lstat_at, open_root


class Guard:
    """The confinement of one run.

    ``follow_links`` is True when the root's manifest is one this user's msd-install wrote
    (or there is none yet): then the links in the tree are the user's own (dotfile managers
    link ``~/.claude/skills`` elsewhere) and are followed. Otherwise nothing is changed
    through a symlink that leads out of the root, and outside the root only the config files
    the runtime's adapter names (and directories on the way to them) are touched.

    ``fence`` (a --local install: the project) is a directory whose links are followed only
    while they stay inside it, whoever wrote the manifest: a cloned project's committed
    ``.mcp.json -> ~/.claude.json`` or ``.claude/skills -> ~/.config/autostart`` is never
    written through.

    Under a foreign manifest or a fence, a spot's directory is opened from the pinned
    descriptor of the root (or fence) one component at a time (``dirfd.Dirs.beneath``), so a
    directory swapped for a symlink at any moment of the run, its rollback included, can never
    redirect a change out of it.
    """

    def __init__(
        self,
        root: Path,
        outside: frozenset[Path] = frozenset(),
        follow_links: bool = True,
        fence: Path | None = None,
    ) -> None:
        self.root = root
        self.outside = outside
        self.follow_links = follow_links
        self.fence = fence if follow_links else None
        self._pinned: Dir | None = None
        self._dirs: Dirs | None = None

    def pin(self, dirs: Dirs) -> Guard:
        """Open the root (or the fence) once for the run; its descriptor lives with ``dirs``."""
        self._dirs = dirs
        base = self.root if not self.follow_links else self.fence
        if base is not None:
            fd = open_root(base)
            self._pinned = None if fd is None else dirs.keep(fd)
        return self

    def locate(self, path: Path, action: str) -> Spot:
        """``action``: "write" (a file: through the user's own link when links are followed,
        never otherwise), "payload" (a file of msd's payload: never through a link, which
        resolution left in place only as a conflict; a link put there since is replaced, and
        put back on rollback), "link" (a symlink), "remove" or "dir"."""
        if self.follow_links:
            if self.fence is None or not path.is_relative_to(self.fence):
                if action != "write":
                    return self._by_path(path)
                spot = self._by_path(real_target(path))
                return Spot(spot.dir, spot.name, path)  # named as the run knows it (journal)
            return self._fenced(path, action)
        if (
            path == self.root
            or path in self.outside
            or (action == "dir" and any(o.is_relative_to(path) for o in self.outside))
        ):
            spot = self._by_path(path)
        elif not path.is_relative_to(self.root):
            raise self._refuse(path, "is outside the root")
        else:
            spot = self._beneath(self.root, path, "it")
        if action in ("write", "payload", "link") and _is_link(spot):
            raise self._refuse(path, "is a symlink")
        return spot

    def _fenced(self, path: Path, action: str) -> Spot:
        assert self.fence is not None
        spot = self._beneath(self.fence, path, "the project")
        if action != "write" or not _is_link(spot):
            return spot
        if not inside(path, self.fence):  # a config file linked out of the project
            raise self._refuse(path, "is a symlink leading out of the project")
        target = Path(os.path.realpath(path)).relative_to(os.path.realpath(self.fence))
        spot = self._beneath(self.fence, self.fence / target, "the project")
        return Spot(spot.dir, spot.name, path)

    def _by_path(self, path: Path) -> Spot:
        return (self._dirs if self._dirs is not None else Dirs()).by_path(path)

    def _beneath(self, base: Path, path: Path, name: str) -> Spot:
        dirs = self._dirs if self._dirs is not None else Dirs()
        try:
            return dirs.beneath(None if self._pinned is None else self._pinned.fd, base, path)
        except EscapeError as exc:
            raise self._refuse(
                path, f"passes through {show(exc.component)}, a symlink leading out of {name}"
            ) from None

    def _refuse(self, path: Path, why: str) -> FileAccessError:
        if self.fence is not None:
            return FileAccessError(
                f"{why} ({self.fence}): msd-install does not follow it in a --local install; "
                "every change of this run was rolled back",
                path=path,
            )
        return FileAccessError(
            f"{why} (relative to {self.root}) since msd-install read the manifest; "
            "every change of this run was rolled back",
            path=path,
        )


def _is_link(spot: Spot) -> bool:
    now = lstat_at(spot)
    return now is not None and stat.S_ISLNK(now.st_mode)
