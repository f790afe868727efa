"""The canonical hash of a config value: how an entry of ours is recognised in a user's file.

The same value hashes the same in JSON, TOML and YAML (canonical JSON text), so the manifest
records one hash per entry whatever the file's format.
"""

from __future__ import annotations

import hashlib
from typing import Any

from .jsonparse import canonical


def value_hash(value: Any) -> str:
    # surrogatepass: a user's file may hold a lone surrogate escape ("\\ud83d"); hash it anyway
    try:
        text = canonical(value)
    except (TypeError, ValueError):  # a TOML/YAML value JSON has no type for
        text = canonical(_jsonable(value))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _jsonable(value: Any) -> Any:
    """A user's TOML or YAML value (dates, times, bytes, sets, keys that are not strings) in
    JSON types, only to hash it. Every such value is tagged with a NUL, which no value of
    msd's holds, so it can never hash like one of ours."""
    if isinstance(value, dict):
        return {_tag(k) if not isinstance(k, str) else k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, (str, int, float)):
        return value
    if isinstance(value, (set, frozenset)):
        return sorted(_tag(v) for v in value)
    return _tag(value)


def _tag(value: Any) -> str:
    return f"\0{type(value).__name__}:{value!r}"


def has_string(value: Any, marker: str) -> bool:
    """Does ``value`` hold a string exactly equal to ``marker`` (never a substring match)?"""
    if isinstance(value, str):
        return value == marker
    if isinstance(value, dict):
        return any(has_string(v, marker) for v in value.values())
    if isinstance(value, list):
        return any(has_string(v, marker) for v in value)
    return False
