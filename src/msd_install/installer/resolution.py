"""What an install's resolution decides with: its steps, and where it may look.

``Resolution`` collects the steps of one install and knows the confinement of the run: under
a foreign manifest nothing is reached through a symlink leading out of the root, and in a
--local install nothing through one leading out of the project (``fence``). Its ``read``
reads a file that will be copied somewhere (a backup, a local patch) beneath that boundary,
so that a directory swapped for a symlink after the manifest was checked can never bring an
outside file's bytes into the root.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ConfigFileError
from .confine import OUT_OF_PROJECT, escaping_link, inside, read_beneath, read_plain, show
from .fs import read_file
from .manifest import FOREIGN_CONFIG, FOREIGN_LINK
from .steps import MakeDir, Step, missing_dirs

if TYPE_CHECKING:
    from .preview import Preview


@dataclass
class Resolution:
    steps: list[Step] = field(default_factory=list)
    planned_dirs: set[Path] = field(default_factory=set)
    not_installed: set[Path] = field(default_factory=set)  # plan files left out (conflicts)
    # False under a foreign manifest: nothing is done through a link leading out of the root
    follow_links: bool = True
    # --local: the project came from elsewhere (a clone), so its links are followed only
    # while they stay inside it, whoever wrote the manifest (``None``: global, all followed)
    fence: Path | None = None
    digest: str = ""  # of the manifest this run leaves behind (the user's registry records it)
    # directories seen to exist: a folder of many files is looked at once, not once per file
    present: set[Path] = field(default_factory=set)
    # a dry run of a migrating upgrade: the tree as the migrations would leave it (``preview``),
    # asked before the disk, so that the dry run decides what the real run decides
    preview: Preview | None = None
    # folders of msd's an upgrade empties, to be removed (``emptied.prune``): one filled by
    # the time it is removed stays, and is reported (it is no longer listed: yours now)
    pruned: set[Path] = field(default_factory=set)

    def blocked(self, root: Path, path: Path) -> str | None:
        """Why ``path`` is not reached in this run (a component that is a symlink leading out
        of the root under a foreign manifest, or out of the project in a --local install)."""
        fence = root if not self.follow_links else self.fence
        if fence is None or not path.is_relative_to(fence):
            return None
        link = escaping_link(fence, path.relative_to(fence).as_posix())
        return None if link is None else f"{show(link)} is {self._why_link()}"

    def config_link(self, path: Path) -> str | None:
        """Why the config file ``path``, a symlink, is not written through, or None."""
        if not path.is_symlink():
            return None
        if not self.follow_links:
            return f"a symlink, not written through: {FOREIGN_CONFIG}"
        fence = self.fence
        if fence is None or not path.is_relative_to(fence) or inside(path, fence):
            return None
        return f"a symlink {OUT_OF_PROJECT}"

    def read(self, root: Path, path: Path) -> bytes | None:
        """The bytes of the plain file at ``path`` (None when absent), reached without
        leaving the run's boundary; anything but a plain file there is an error."""
        if self.preview is not None and self.preview.knows(path):
            return self.preview.read(path)
        fence = root if not self.follow_links else self.fence
        if fence is None or not path.is_relative_to(fence):
            return read_file(path)
        data = read_beneath(fence, path)
        if data is None and os.path.lexists(path):
            raise ConfigFileError(
                "something msd-install does not read is in the way (a link, a FIFO, a device "
                "or a file over 64 MiB)",
                path=path,
            )
        return data

    def read_config(self, path: Path) -> bytes | None:
        """A config file's bytes (``fs.read_file``: through a link), None when absent."""
        if self.preview is not None and self.preview.knows(path):
            return self.preview.read(path)
        return read_file(path)

    def read_plain(self, path: Path) -> bytes | None:
        """``confine.read_plain``: the bytes of the plain file at ``path``, else None."""
        if self.preview is not None and self.preview.knows(path):
            return self.preview.read(path)
        return read_plain(path)

    def lstat(self, path: Path) -> os.stat_result | None:
        """``os.lstat`` of ``path``, None when nothing is there."""
        if self.preview is not None and self.preview.knows(path):
            return self.preview.lstat(path)
        try:
            return os.lstat(path)
        except (FileNotFoundError, NotADirectoryError):
            return None

    def lexists(self, path: Path) -> bool:
        return self.lstat(path) is not None

    def exists(self, path: Path) -> bool:
        """``path.exists()``, or a folder the migrations of a dry run would make."""
        return (self.preview is not None and path in self.preview.dirs) or path.exists()

    def _why_link(self) -> str:
        return FOREIGN_LINK if not self.follow_links else f"a symlink {OUT_OF_PROJECT}"

    def ensure_parent(self, path: Path) -> None:
        if path.parent in self.planned_dirs or path.parent in self.present:
            return
        made = self.preview.dirs if self.preview is not None else set()
        missing = missing_dirs(path, self.planned_dirs | made if made else self.planned_dirs)
        if not missing:
            self.present.add(path.parent)
        for directory in missing:
            self.planned_dirs.add(directory)
            self.steps.append(MakeDir(directory))
