"""Where ``--reapply`` puts a merge with conflicts: live, or beside its patch set.

A conflict is written between ``<<<<<<<`` and ``>>>>>>>`` lines. In a Markdown file (a
skill, a command, a workflow: prose an agent reads) that is readable and safe to leave live
until you settle it. In any other file the runtime runs or parses (a hook script, the MCP
launcher, ``msd-tools``, a TOML command, a YAML or JSON file) the markers would break it: a
guard hook that no longer parses stops guarding. So the rule, by the file's name and mode
alone (the same for every runtime): markers go live only into a ``.md``/``.mdc``/
``.markdown`` file without an execute bit, and only in its body: the YAML front matter of
an agent, a skill or a command (from its opening ``---`` line to the closing one) is parsed
by the runtime, so a merge with a marker there is set aside too. For every other file the
version the upgrade installed stays live and the conflicted merge is written to
``msd-local-patches/<set>/conflicts/<path>``, where you settle it; ``--reapply`` (or
``--reapply --done``) then installs it once no marker line is left.
"""

from __future__ import annotations

from .merge import END, MIDDLE, START

CONFLICTS = "conflicts"  # inside a patch set's folder, beside user/ and base/
_DOCUMENTS = (".md", ".mdc", ".markdown")


def markers_live(rel: str, mode: int, merged: bytes = b"") -> bool:
    """May ``merged``, with conflict markers, be written into msd's file ``rel`` itself?"""
    document = rel.lower().endswith(_DOCUMENTS) and not mode & 0o111
    return document and not _in_front_matter(merged.splitlines())


def _in_front_matter(lines: list[bytes]) -> bool:
    """Is a marker line in the front matter, or is its opening line in a conflict?"""
    if lines and lines[0].startswith(START):  # a side of the first conflict opens it?
        block = next((i for i, line in enumerate(lines) if line.startswith(END)), len(lines))
        return any(_fence(line) for line in lines[1:block])
    if not lines or not _fence(lines[0]):
        return False  # no front matter: every marker is in the body
    for line in lines[1:]:
        if _marker(line):
            return True
        if _fence(line):
            return False
    return False


def _fence(line: bytes) -> bool:
    return line.rstrip() == b"---"


def aside(rel: str) -> str:
    """The conflicted merge of ``rel``, relative to its patch set's folder."""
    return f"{CONFLICTS}/{rel}"


def has_markers(data: bytes) -> bool:
    """Does ``data`` still hold a line of the markers ``merge`` writes?"""
    return any(_marker(line) for line in data.splitlines())


def _marker(line: bytes) -> bool:
    return line.startswith((START, END)) or line == MIDDLE
