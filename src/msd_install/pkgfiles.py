"""A package's data files, without importing ``importlib.resources`` where it is not needed.

``importlib.resources.files`` returns a ``pathlib.Path`` for a package that lives in a folder
(every pip or pipx install), but importing it costs ~7 ms (tempfile, random, shutil, zipfile
come with it) on every run of every verb. So a package in a folder is given its folder
directly; only a package in a zip goes through ``importlib.resources``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:  # pragma: no cover
        from importlib.abc import Traversable


def files(package: str) -> Traversable:
    """The data of the (imported) package ``package``, as ``importlib.resources.files``."""
    module = sys.modules.get(package)
    origin = getattr(getattr(module, "__spec__", None), "origin", None)
    if module is not None and isinstance(origin, str):
        init = Path(origin)
        if init.name == "__init__.py" and init.is_file():
            return init.parent
    from importlib import resources

    return resources.files(package)
