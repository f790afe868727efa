"""The floor of a verifying uninstall in Python: ``python floor_uninstall.py ROOT [MODULES]``.

What any uninstall that removes only the files whose bytes are still the ones it wrote must
do at the least, done with the standard library alone and nothing else: read the manifest of
``ROOT``, then for each file it lists read it, hash it, compare, unlink it; then remove the
folders it lists, deepest first, and the manifest. No lock, no journal (no crash safety), no
config edits, no report. ``MODULES``: a file naming one module per line, imported first (the
modules a real ``msd-install --uninstall`` imports: the cost of the CLI's code alone); with
ROOT ``-`` only those imports are made.

bench/incumbent_bench.py (section ``floors``) times this as a whole process against the real
uninstall and the incumbent's, on the same settled install, so the note on issue 11 can say
what the uninstall target's floor is on this machine, measured and not guessed.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

root = sys.argv[1]
if len(sys.argv) > 2:
    with open(sys.argv[2], encoding="utf-8") as listing:
        for name in listing.read().split():
            try:
                importlib.import_module(name)
            except Exception:  # a module only its own package imports
                continue
if root == "-":
    sys.exit(0)
manifest_path = os.path.join(root, "msd-file-manifest.json")
with open(manifest_path, "rb") as handle:
    manifest = json.loads(handle.read())
kept = 0
for rel, entry in manifest["files"].items():
    path = os.path.join(root, rel)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        continue
    if hashlib.sha256(data).hexdigest() == entry["sha256"]:
        os.unlink(path)
    else:
        kept += 1


def quietly(remove: Callable[[str], None], path: str) -> None:
    """``remove(path)``, an error ignored (contextlib.suppress would import a module more)."""
    try:
        remove(path)
    except OSError:
        return


for rel in manifest.get("state", []):
    quietly(os.unlink, os.path.join(root, rel))
for name in ("msd-pristine.zlib", "msd-file-manifest.json"):
    quietly(os.unlink, os.path.join(root, name))
for rel in sorted(manifest["dirs"], key=lambda r: (r.count("/"), r), reverse=True):
    quietly(os.rmdir, os.path.normpath(os.path.join(root, rel)))
sys.exit(1 if kept else 0)
