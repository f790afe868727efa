"""Config file formats: one byte-preserving editor per format, behind one interface.

``configedit`` reconciles our entries with any document that offers ``ConfigDoc``: the JSON /
JSONC span editor (``jsonedit``), the TOML splice editor (``tomledit``) and the YAML splice
editor (``yamledit``). Each editor parses
the user's text, refuses a file it cannot parse, and edits by splicing so that every insertion
has an exact inverse. A format is named in ``ConfigEntry.fmt`` and in the manifest.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..errors import ConfigFileError


class Inserted(Protocol):
    @property
    def interior(self) -> str | None: ...


class ConfigDoc(Protocol):
    text: str
    implicit_parents: bool  # True: adding ``a.b.c`` creates ``a`` and ``b`` by itself

    def node(self, path: tuple[Any, ...]) -> Any: ...
    def value_text(self, path: tuple[Any, ...]) -> str: ...
    def add_member(self, path: tuple[Any, ...], key: str, value: Any) -> tuple[Any, Any]: ...
    def append_item(self, path: tuple[Any, ...], value: Any) -> tuple[Any, Any]: ...
    def remove_member(
        self, path: tuple[Any, ...], key: str, interior: str | None = None
    ) -> Any: ...
    def remove_item(
        self, path: tuple[Any, ...], index: int, interior: str | None = None
    ) -> Any: ...
    def replace_value(self, path: tuple[Any, ...], value: Any) -> tuple[Any, str]: ...
    def replace_value_text(self, path: tuple[Any, ...], raw: str) -> Any: ...


@dataclass(frozen=True)
class Format:
    name: str
    empty: str  # what a config file we create starts as (and is removed at, on uninstall)
    label: str  # for error messages: "invalid JSON", "invalid TOML"

    def is_empty(self, text: str) -> bool:
        """Does ``text`` hold nothing but what a file we create starts as, give or take
        whitespace (a runtime that rewrites its file indents ``{}`` its own way: ``{\n}``)?
        A comment is not whitespace: a file holding one is someone's."""
        return text.translate(_NO_WS) == self.empty.translate(_NO_WS)


_NO_WS = str.maketrans("", "", " \t\r\n")  # JSON's, TOML's and YAML's blanks between tokens


FORMATS = {
    "json": Format("json", "{}\n", "JSON"),
    "jsonc": Format("jsonc", "{}\n", "JSON"),
    # comments, but no trailing commas (Gemini CLI and Qwen Code fail on one)
    "json-comments": Format("json-comments", "{}\n", "JSON"),
    "toml": Format("toml", "", "TOML"),
    "yaml": Format("yaml", "", "YAML"),
}


def fmt_of(name: str) -> Format:
    try:
        return FORMATS[name]
    except KeyError:
        raise ConfigFileError(f"unknown config format {name!r}") from None


def parse_text(fmt: str, text: str) -> ConfigDoc:
    """A document of ``fmt`` for ``text``; raises ``ValueError`` subclasses on bad syntax."""
    if fmt == "toml":
        from .tomledit import TomlDocument

        return TomlDocument(text)
    if fmt == "yaml":
        from .yamledit import YamlDocument

        return YamlDocument(text)
    from .jsonedit import JsonDocument

    doc = JsonDocument(text, jsonc=fmt in ("jsonc", "json-comments"), commas=fmt == "jsonc")
    if doc.root.kind != "object":
        raise NotAnObjectError("the top level is not a JSON object")
    return doc


class NotAnObjectError(ValueError):
    pass


class EditRefusedError(ValueError):
    """An editor will not make an edit without touching the user's own text (the file parses,
    but holds what we must edit in a form the editor cannot splice, e.g. an inline table)."""


def open_doc(path: Path, raw: bytes | None, fmt: str) -> ConfigDoc:
    """Parse a config file, or raise ``ConfigFileError`` naming the file and the position."""
    form = fmt_of(fmt)
    if raw is None:
        return parse_text(fmt, form.empty)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigFileError(f"not valid UTF-8 at byte {exc.start}", path=path) from None
    try:
        return parse_text(fmt, text)
    except NotAnObjectError as exc:
        raise ConfigFileError(str(exc), path=path) from None
    except (ValueError, RecursionError) as exc:
        raise ConfigFileError(
            f"invalid {form.label}: {exc}",
            path=path,
            hint="fix the file, then run msd-install again",
        ) from None
