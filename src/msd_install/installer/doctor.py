"""``msd-install doctor``: is every install still healthy? Reads only.

For each root that has a manifest: every file of ours is there (and unmodified, or reported
as your local change), every config entry we recorded is still in its file, the config files
still parse, and the Python interpreter the hooks and the MCP server were registered with
still exists (a removed pyenv version or an upgraded Homebrew Cellar path breaks every hook
call; reinstalling re-registers the current one).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from .. import __version__
from ..errors import MsdError
from .configedit import open_doc
from .confine import read_plain
from .fs import read_file, sha256_bytes
from .manifest import Manifest
from .valuehash import has_string, value_hash

# an entry of ours the user changed, still running our script: their tuning, not a fault
TUNED = "changed by you: your tuning is kept (the next msd-install run records it)"
BUILT_INTO = (
    "changed by you: what you added stays yours, the next msd-install run registers msd's part anew"
)


@dataclass(frozen=True)
class Finding:
    level: str  # "problem" | "note"
    path: Path
    message: str


@dataclass
class Health:
    runtime: str
    scope: str
    root: Path
    installed: bool
    findings: list[Finding] = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        return not any(f.level == "problem" for f in self.findings)


def diagnose(manifest: Manifest) -> list[Finding]:
    out: list[Finding] = []
    if manifest.installer_version != __version__:
        from .baseline import ADOPTED  # the scan itself is --adopt's: only its version's name

        out.append(
            Finding(
                "note",
                manifest.path,
                (
                    "rebuilt by --adopt"
                    if manifest.installer_version == ADOPTED
                    else f"installed by msd-install {manifest.installer_version}"
                )
                + f"; this is {__version__}: run it again to upgrade",
            )
        )
    if manifest.interpreter and not os.access(manifest.interpreter, os.X_OK):
        out.append(
            Finding(
                "problem",
                Path(manifest.interpreter),
                "the Python that hooks and the MCP server run with is gone; "
                "run msd-install again to register the current one",
            )
        )
    for rel, record in sorted(manifest.files.items()):
        path = manifest.abs(rel)
        data = read_plain(path)
        if data is None and not os.path.lexists(path):
            out.append(Finding("problem", path, "missing"))
            continue
        if data is None:  # a link or a FIFO of the user's took its place: theirs, never read
            out.append(Finding("note", path, "replaced by you with something not a plain file"))
            continue
        if record.get("patched") == sha256_bytes(data):
            out.append(Finding("note", path, "your edits, merged by msd-install --reapply"))
        elif sha256_bytes(data) != record["sha256"]:
            out.append(
                Finding(
                    "note",
                    path,
                    "modified by you (saved to msd-local-patches/ before an upgrade replaces it)",
                )
            )
    for config in manifest.config:
        path = manifest.abs(config["file"])
        try:
            raw = read_file(path)
            if raw is None:
                out.append(Finding("problem", path, "missing: msd's entries in it are gone"))
                continue
            doc = open_doc(path, raw, config["fmt"])
        except MsdError as exc:
            out.append(Finding("problem", path, exc.message))
            continue
        for op in config["ops"]:
            if op.get("label") == "container":
                continue
            where = tuple(op["path"]) + ((op["key"],) if "key" in op else ())
            node = doc.node(where)
            marker = op.get("marker", "")
            if op["op"] == "item":
                items = node.items if node is not None and node.kind == "array" else []
                present = any(value_hash(i.value) == op["sha256"] for i in items)
                marked = [i.value for i in items if marker and has_string(i.value, marker)]
            else:
                present = node is not None and value_hash(node.value) == op["sha256"]
                marked = [node.value] if node and marker and has_string(node.value, marker) else []
            if not present and marked and manifest.trusted:
                label = op.get("label", ".".join(where))
                # what the next run decides: a hook of the user's inside ours is not a tuning
                from .tuning import merge

                built = (
                    "value" in op and merge(op["value"], marked[-1], op["value"], marker) is None
                )
                out.append(Finding("note", path, f"{label}: {BUILT_INTO if built else TUNED}"))
            elif not present:
                out.append(
                    Finding(
                        "problem", path, f"{op.get('label', '.'.join(where))}: missing or changed"
                    )
                )
    return out
