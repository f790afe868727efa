"""Markdown files with YAML frontmatter, written for a runtime.

Adapters convert the payload's frontmatter field by field and render it here. Strings are
always written double-quoted (JSON escaping is valid YAML), so no value can turn into another
type (``on``, ``1.0``, ``null``) or break the block, whatever the payload holds.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from ..payload import Document


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    return _NOT_YAML.sub(_escape, json.dumps(str(value), ensure_ascii=False))


# characters JSON leaves raw that YAML rejects or reads as line breaks (NEL, LS, PS)
_NOT_YAML = re.compile("[\\x7f-\\x9f\\u2028\\u2029\\ud800-\\udfff\\ufffe\\uffff]")


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def _key(key: str) -> str:
    plain = key.replace("-", "").replace("_", "").isalnum() and key[:1].isalpha()
    return key if plain else json.dumps(key)


def frontmatter(meta: Mapping[str, Any], indent: str = "") -> str:
    """YAML for a mapping of scalars, lists of scalars and nested mappings."""
    lines: list[str] = []
    for key, value in meta.items():
        if isinstance(value, Mapping):
            lines.append(f"{indent}{_key(key)}:" + ("" if value else " {}"))
            if value:
                lines.append(frontmatter(value, indent + "  ").rstrip("\n"))
        elif isinstance(value, list | tuple):
            lines.append(f"{indent}{_key(key)}:" + ("" if value else " []"))
            lines += [f"{indent}  - {_scalar(item)}" for item in value]
        else:
            lines.append(f"{indent}{_key(key)}: {_scalar(value)}")
    return "\n".join(lines) + "\n"


def document(meta: Mapping[str, Any], body: str) -> str:
    """A Markdown file: ``---`` frontmatter ``---`` then the body as given."""
    return f"---\n{frontmatter(meta)}---\n{body}"


def meta_of(doc: Document) -> dict[str, Any]:
    return dict(doc.meta)


def tools_of(doc: Document, key: str = "tools") -> list[str]:
    """A payload ``tools:``/``allowed-tools:`` field as a list (a comma string or a list)."""
    value = doc.get(key)
    if isinstance(value, str):
        return [t.strip() for t in value.split(",") if t.strip()]
    if isinstance(value, list):
        return [str(t).strip() for t in value if str(t).strip()]
    return []
