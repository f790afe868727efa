"""The one error hierarchy. The CLI maps these to exit codes (see docs/reference/cli.md).

User-facing errors carry the file they are about and a hint; they are printed as one line,
never with a traceback. Anything that is not an ``MsdError`` is a bug: exit 3.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path


class MsdError(Exception):
    """Base of every error msd-install reports to a user."""

    exit_code = 4

    def __init__(self, message: str, *, path: Path | None = None, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.path = path
        self.hint = hint
        # what the runs before this error finished (one JSON result each): a multi-runtime
        # run stops at the first error, and the user must still see what was done
        self.done: list[dict[str, object]] = []

    def one_line(self) -> str:
        where = f"{self.path}: " if self.path is not None else ""
        tail = f" ({self.hint})" if self.hint else ""
        return f"{where}{self.message}{tail}"


class UsageError(MsdError):
    """Wrong flags or a request that cannot be made on this command line."""

    exit_code = 2


class UnusablePathError(UsageError):
    """HOME, the project or ``--config-dir`` has a name msd-install cannot write into config
    files (not valid UTF-8): an environment it cannot work in, reported like a usage error."""


class ConfigFileError(MsdError):
    """A user's config file we must edit cannot be parsed or would not validate."""

    exit_code = 4


class ManifestError(MsdError):
    """The install manifest is unreadable or of a format this version cannot read."""

    exit_code = 4


class FileAccessError(MsdError):
    """The operating system refused a read or write (permissions, read-only disk, ...)."""

    exit_code = 4


class PatchError(MsdError):
    """A saved local patch (``msd-local-patches/``) is unreadable, malformed or hostile."""

    exit_code = 4


class ConcurrentChangeError(MsdError):
    """A file changed between reading and writing it (another program wrote it)."""

    exit_code = 5


class LockTimeoutError(MsdError):
    """Another msd-install run holds the lock of the same runtime root."""

    exit_code = 5


class WorkerLostError(MsdError):
    """A worker of a side-by-side run (``parallel.py``) ended without reporting its run
    (killed outright): that run's journal is rolled back by the next run."""

    exit_code = 4


class PayloadError(MsdError):
    """The bundled payload is inconsistent (a packaging bug, but reported cleanly)."""

    exit_code = 3


class PackError(UsageError):
    """A pack given with ``--payload DIR`` is malformed: every problem found, one line each
    (``<file>: <problem>``), reported together before anything is written."""

    def __init__(self, directory: Path, problems: list[str], total: int | None = None):
        # ``total``: the problems found, when ``problems`` shows only the first of them
        n = len(problems) if total is None else total
        count = f"{n} problem{'s' if n != 1 else ''}"
        super().__init__(f"not a valid pack ({count}); nothing was written", path=directory)
        self.problems = [" ".join(p.split()) for p in problems]  # one line each, always
        self.directory = directory
        self.total = total

    def __reduce__(
        self,
    ) -> tuple[type[PackError], tuple[Path, list[str], int | None], dict[str, object]]:
        return (type(self), (self.directory, self.problems, self.total), self.__dict__)
