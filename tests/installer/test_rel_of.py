"""``rel_of``'s fast path (a path below the root by its text) agrees with ``os.path.relpath``."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from msd_install.installer.manifestcheck import rel_of

PART = st.sampled_from(["a", "b", "..", ".", "msd-core", "é", "x y", ".claude", "a..b"])
PARTS = st.lists(PART, min_size=0, max_size=5)


def reference(root: Path, path: Path) -> str:
    return Path(os.path.relpath(path, root)).as_posix()


@given(PARTS, PARTS, st.booleans())
def test_rel_of_is_relpath(root_parts: list[str], rest: list[str], absolute: bool) -> None:
    root = Path("/" if absolute else ".", "home", *root_parts)
    for path in (root.joinpath(*rest), Path("/", "home", *rest), root):
        assert rel_of(root, path) == reference(root, path), (root, path)


def test_rel_of_examples() -> None:
    root = Path("/home/u/.claude")
    assert rel_of(root, root / "commands/msd/help.md") == "commands/msd/help.md"
    assert rel_of(root, Path("/home/u/.claude.json")) == "../.claude.json"
    assert rel_of(root, Path("/home/u/.claudex/a")) == "../.claudex/a"
    assert rel_of(root, root / "a/../b") == "b"
    assert rel_of(root, root) == "."
    assert rel_of(Path("/"), Path("/etc/x")) == "etc/x"
