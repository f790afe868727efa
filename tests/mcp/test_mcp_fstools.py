"""What each file tool returns and refuses, on real trees (in-process through its ToolSpec)."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from msd_install.msdcore.fstools import FILE_TOOLS
from msd_install.msdcore.fstools_read import MAX_READ_BYTES
from msd_install.msdcore.globmatch import compile_glob
from msd_install.msdcore.toolspec import ToolContext, ToolError

TOOLS = {t.name: t for t in FILE_TOOLS}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "root"
    for rel, text in {
        "a.txt": "1\n2\n3\n4\n5",
        "docs/guide.md": "# guide\n",
        "docs/deep/more.md": "more\n",
        "docs/deep/deeper/most.md": "most\n",
        "src/main.py": "x = 1\nx = 1\n",
    }.items():
        (r / rel).parent.mkdir(parents=True, exist_ok=True)
        (r / rel).write_text(text)
    return r


def call(root: Path, name: str, **args: Any) -> dict[str, Any]:
    return TOOLS[name].run(ToolContext(root=root), args)


def code_of(root: Path, name: str, **args: Any) -> str:
    with pytest.raises(ToolError) as info:
        call(root, name, **args)
    return info.value.code


def test_read_offset_limit_and_last_line_without_newline(root: Path) -> None:
    out = call(root, "read_text_file", path="a.txt", offset=3, limit=5)
    assert (out["content"], out["lines_returned"], out["total_lines"]) == ("4\n5", 2, 5)
    assert out["truncated"] is False and out["size"] == 9
    assert call(root, "read_text_file", path="a.txt", limit=2)["truncated"] is True
    assert call(root, "read_text_file", path="a.txt", offset=99)["content"] == ""


def test_read_refuses_binary_non_utf8_and_oversized(root: Path) -> None:
    (root / "bin").write_bytes(b"ab\x00cd")
    (root / "latin").write_bytes("café".encode("latin-1"))
    with (root / "big").open("wb") as f:
        f.truncate(MAX_READ_BYTES + 1)
    assert code_of(root, "read_text_file", path="bin") == "not_text"
    assert code_of(root, "read_text_file", path="latin") == "not_text"
    assert code_of(root, "read_text_file", path="big") == "too_large"
    assert code_of(root, "read_text_file", path="nope") == "not_found"


def test_list_directory_sorted_with_types(root: Path) -> None:
    (root / "link").symlink_to("a.txt")
    entries = call(root, "list_directory")["entries"]
    assert [(e["name"], e["type"]) for e in entries] == [
        ("a.txt", "file"), ("docs", "directory"), ("link", "symlink"), ("src", "directory"),
    ]  # fmt: skip
    assert code_of(root, "list_directory", path="a.txt") == "not_a_directory"


def test_directory_tree_depth_and_entry_bounds(root: Path) -> None:
    tree = call(root, "directory_tree", path="docs", max_depth=2)
    assert [(e["path"], e["depth"]) for e in tree["entries"]] == [
        ("docs/deep", 1), ("docs/deep/deeper", 2), ("docs/deep/more.md", 2), ("docs/guide.md", 1),
    ]  # fmt: skip
    assert tree["truncated"] is False
    cut = call(root, "directory_tree", max_depth=16, max_entries=3)
    assert len(cut["entries"]) == 3 and cut["truncated"] is True


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("*.md", ["docs/deep/deeper/most.md", "docs/deep/more.md", "docs/guide.md"]),
        ("docs/*.md", ["docs/guide.md"]),
        ("docs/**/*.md", ["docs/deep/deeper/most.md", "docs/deep/more.md", "docs/guide.md"]),
        ("**/deeper", ["docs/deep/deeper"]),
        ("[ag]*", ["a.txt", "docs/guide.md"]),
        ("[!am]*.md", ["docs/guide.md"]),
        ("?.txt", ["a.txt"]),
        ("nothing*", []),
    ],
)
def test_search_files_globs(root: Path, pattern: str, expected: list[str]) -> None:
    out = call(root, "search_files", pattern=pattern)
    assert out["matches"] == expected and out["truncated"] is False


def test_search_is_bounded_and_scoped(root: Path) -> None:
    out = call(root, "search_files", pattern="*.md", max_results=1)
    assert out["matches"] == ["docs/deep/deeper/most.md"] and out["truncated"] is True
    assert call(root, "search_files", pattern="*.md", path="docs/deep", max_depth=1)["matches"] == [
        "docs/deep/more.md"
    ]


def test_glob_keeps_star_within_one_name() -> None:
    assert not compile_glob("a/*/b")("a/x/y/b")
    assert compile_glob("a/**/b")("a/x/y/b") and compile_glob("a/**/b")("a/b")
    assert not compile_glob("d/a**b")("d/a/x/b")  # "**" inside a name is a plain "*"
    assert compile_glob("[x-z]")("y") and not compile_glob("[x-z]")("-")


def test_get_file_info(root: Path) -> None:
    os.chmod(root / "a.txt", 0o640)
    info = call(root, "get_file_info", path="a.txt")
    assert info["type"] == "file" and info["size"] == 9 and info["mode"] == "0640"
    assert info["nlink"] == 1 and info["modified"].endswith("Z")
    assert call(root, "get_file_info", path=".")["type"] == "directory"


def test_write_creates_replaces_and_keeps_mode(root: Path) -> None:
    os.chmod(root / "a.txt", 0o600)
    out = call(root, "write_file", path="a.txt", content="new\n")
    assert out["created"] is False and (root / "a.txt").read_text() == "new\n"
    assert stat.S_IMODE((root / "a.txt").stat().st_mode) == 0o600
    assert call(root, "write_file", path="b.txt", content="")["created"] is True
    assert code_of(root, "write_file", path="x/y/z.txt", content="") == "not_found"
    assert call(root, "write_file", path="x/y/z.txt", content="", create_parents=True)["created"]
    assert not [p for p in root.rglob("*.tmp")]  # no temp files left behind


def test_edit_exact_once_and_dry_run(root: Path) -> None:
    edits = [{"old_text": "# guide", "new_text": "# Guide"}]
    dry = call(root, "edit_file", path="docs/guide.md", edits=edits, dry_run=True)
    assert (
        "-# guide\n+# Guide\n" in dry["diff"]
        and (root / "docs/guide.md").read_text() == "# guide\n"
    )
    call(root, "edit_file", path="docs/guide.md", edits=edits)
    assert (root / "docs/guide.md").read_text() == "# Guide\n"
    assert code_of(root, "edit_file", path="docs/guide.md", edits=edits) == "no_match"
    dup = [{"old_text": "x = 1", "new_text": "x = 2"}]
    assert code_of(root, "edit_file", path="src/main.py", edits=dup) == "ambiguous_match"
    assert (root / "src/main.py").read_text() == "x = 1\nx = 1\n"


def test_create_directory_is_idempotent(root: Path) -> None:
    assert call(root, "create_directory", path="n/m")["created"] is True
    assert call(root, "create_directory", path="n/m")["created"] is False
    assert code_of(root, "create_directory", path="a.txt/sub") == "not_a_directory"


def test_move_never_overwrites_and_moves_links_themselves(root: Path) -> None:
    assert code_of(root, "move_file", source="a.txt", destination="docs/guide.md") == "exists"
    (root / "ln").symlink_to("a.txt")
    out = call(root, "move_file", source="ln", destination="docs/ln")
    assert (
        out["type"] == "symlink" and (root / "docs/ln").is_symlink() and (root / "a.txt").exists()
    )
    assert call(root, "move_file", source="docs", destination="manual")["type"] == "directory"
    assert code_of(root, "move_file", source="gone", destination="x") == "not_found"
    assert (
        code_of(root, "move_file", source="manual", destination="manual/inside") == "invalid_path"
    )
