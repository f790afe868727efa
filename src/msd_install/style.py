"""How text output looks on the stream it goes to: colour only on a terminal, never with
``NO_COLOR`` (no-color.org: set and not empty) nor on a ``TERM=dumb`` terminal.

Colour never carries meaning alone: every coloured word is also there as text, so a log, a
pipe or ``NO_COLOR`` loses nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TextIO

import click

# verb -> colour of its word in the per-file lines and the summaries
VERB_COLOURS = {
    "create": "green",
    "update": "yellow",
    "remove": "magenta",
    "restore": "green",
    "backup": "cyan",
    "kept": "cyan",
    "conflict": "red",
}


@dataclass(frozen=True)
class Style:
    color: bool = False

    def paint(self, text: str, fg: str | None = None, *, bold: bool = False) -> str:
        if not self.color or (fg is None and not bold):
            return text
        return click.style(text, fg=fg, bold=bold or None)  # False would emit a reset code

    def verb(self, verb: str, width: int = 9) -> str:
        """The verb padded to ``width`` (the padding stays outside the colour codes)."""
        return self.paint(verb, VERB_COLOURS.get(verb)) + " " * max(0, width - len(verb))


PLAIN = Style()


def for_stream(stream: TextIO, env: Mapping[str, str]) -> Style:
    return Style(color=wants_colour(stream, env))


def wants_colour(stream: TextIO, env: Mapping[str, str]) -> bool:
    if env.get("NO_COLOR") or env.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or replaced stream
        return False
