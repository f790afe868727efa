"""Where ``--reapply`` puts a merge with conflicts: live, or beside its patch set.

A conflict is written between ``<<<<<<<`` and ``>>>>>>>`` lines. In a Markdown file (a
skill, a command, a workflow: prose an agent reads) that is readable and safe to leave live
until you settle it. In any other file the runtime runs or parses (a hook script, the MCP
launcher, ``msd-tools``, a TOML command, a YAML or JSON file) the markers would break it: a
guard hook that no longer parses stops guarding. So the rule, by the file's name and mode
alone (the same for every runtime): markers go live only into a ``.md``/``.mdc``/
``.markdown`` file without an execute bit; for every other file the version the upgrade
installed stays live and the conflicted merge is written to
``msd-local-patches/<set>/conflicts/<path>``, where you settle it; ``--reapply`` (or
``--reapply --done``) then installs it once no marker line is left.
"""

from __future__ import annotations

from .merge import END, MIDDLE, START

CONFLICTS = "conflicts"  # inside a patch set's folder, beside user/ and base/
_DOCUMENTS = (".md", ".mdc", ".markdown")


def markers_live(rel: str, mode: int) -> bool:
    """May a merge with conflict markers be written into msd's file ``rel`` itself?"""
    return rel.lower().endswith(_DOCUMENTS) and not mode & 0o111


def aside(rel: str) -> str:
    """The conflicted merge of ``rel``, relative to its patch set's folder."""
    return f"{CONFLICTS}/{rel}"


def has_markers(data: bytes) -> bool:
    """Does ``data`` still hold a line of the markers ``merge`` writes?"""
    return any(line.startswith((START, END)) or line == MIDDLE for line in data.splitlines())
