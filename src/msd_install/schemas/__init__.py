"""Published JSON Schemas of runtime settings files (copied verbatim, see SOURCES.md)."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from ..pkgfiles import files


@cache
def load(name: str) -> dict[str, Any]:
    """The schema ``<name>.json`` bundled with this package."""
    text = files(__name__).joinpath(f"{name}.json").read_text(encoding="utf-8")
    doc: dict[str, Any] = json.loads(text)
    return doc
