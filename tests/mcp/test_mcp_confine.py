"""Every case of the bad-input list (design/mcp-server.md), against the real file tools.

Tools are called in-process through their ToolSpec (the same objects the server dispatches to)
on real trees in tmp_path; test_mcp_protocol.py covers the same path through the wire.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from msd_install.msdcore.confine import realpath, resolve
from msd_install.msdcore.fstools import FILE_TOOLS
from msd_install.msdcore.safeio import read_bytes
from msd_install.msdcore.safewrite import write_bytes
from msd_install.msdcore.toolspec import ToolContext, ToolError

TOOLS = {t.name: t for t in FILE_TOOLS}


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """``<tmp>/w/project`` (the root, with siblings) and ``<tmp>/outside`` (a secret)."""
    root = tmp_path / "w" / "project"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "a.txt").write_text("inside\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("SECRET\n")
    for sibling in (
        "project2",
        "project-old",
        "project_backup",
        "projectile",
        "project.bak",
        "project-evil",
    ):
        (tmp_path / "w" / sibling).mkdir()
        (tmp_path / "w" / sibling / "x").write_text("sibling\n")
    return root, outside


def call(root: Path, name: str, **args: Any) -> dict[str, Any]:
    return TOOLS[name].run(ToolContext(root=Path(os.path.realpath(root))), args)


def refused(root: Path, name: str, code: str = "outside_workspace", **args: Any) -> str:
    """Assert the call is refused with ``code`` ('|'-separated alternatives allowed)."""
    with pytest.raises(ToolError) as info:
        call(root, name, **args)
    assert info.value.code in code.split("|"), info.value.message
    return info.value.message


# Each path-taking tool, with the extra arguments it needs.
PATH_TOOLS = [
    ("read_text_file", "path", {}),
    ("get_file_info", "path", {}),
    ("list_directory", "path", {}),
    ("directory_tree", "path", {}),
    ("search_files", "path", {"pattern": "*"}),
    ("write_file", "path", {"content": "x"}),
    ("edit_file", "path", {"edits": [{"old_text": "a", "new_text": "b"}]}),
    ("create_directory", "path", {}),
    ("move_file", "source", {"destination": "moved"}),
    ("move_file", "destination", {"source": "sub/a.txt"}),
    ("workspace_info", "project_path", {}),
]
TRAVERSALS = [
    "../x",
    "a/../../x",
    "sub/./../../x",
    "..",
    "sub/../..",
    "../project2/x",
    "../project-evil/x",
]


@pytest.mark.parametrize(("tool", "key", "extra"), PATH_TOOLS)
@pytest.mark.parametrize("path", TRAVERSALS)
def test_lexical_traversal_is_refused_by_every_tool(
    layout: tuple[Path, Path], tool: str, key: str, extra: dict[str, Any], path: str
) -> None:
    root, _ = layout
    # move_file refuses '..' as a source/destination name before resolving it
    refused(root, tool, "outside_workspace|invalid_path", **{key: path, **extra})
    assert (root / "sub" / "a.txt").read_text() == "inside\n"


@pytest.mark.parametrize(("tool", "key", "extra"), PATH_TOOLS)
def test_absolute_outside_and_sibling_prefixes_are_refused(
    layout: tuple[Path, Path], tool: str, key: str, extra: dict[str, Any]
) -> None:
    root, outside = layout
    paths = ["/etc/passwd", "/", f"{root}/..", str(outside / "secret.txt")]
    paths += [
        f"{root.parent}/{s}/x"
        for s in ("project2", "project-old", "project_backup", "projectile", "project.bak")
    ]
    paths += [f"{root}2", f"{root}-old/x"]
    for path in paths:
        refused(root, tool, "outside_workspace|invalid_path", **{key: path, **extra})


def test_absolute_path_inside_the_root_is_accepted(layout: tuple[Path, Path]) -> None:
    root, _ = layout
    assert call(root, "read_text_file", path=str(root / "sub" / "a.txt"))["content"] == "inside\n"
    assert call(root, "list_directory", path=str(root))["path"] == "."


@pytest.mark.parametrize(
    "name",
    ["..test", "test..", "te..st", "100%", "%2e%2e", "with space", "ünïcødé", "~", "file:", "..."],
)
def test_names_that_only_look_odd_are_plain_names(layout: tuple[Path, Path], name: str) -> None:
    root, _ = layout
    out = call(root, "write_file", path=f"{name}/f.txt", content="ok\n", create_parents=True)
    assert out["path"] == f"{name}/f.txt"
    assert (root / name / "f.txt").read_text() == "ok\n"
    assert call(root, "read_text_file", path=f"{name}/f.txt")["content"] == "ok\n"


@pytest.mark.parametrize("path", ["~/x", "file://x", "%2e%2e/%2e%2e/x"])
def test_tilde_uri_and_percent_forms_are_not_expanded_or_decoded(
    layout: tuple[Path, Path], path: str
) -> None:
    root, _ = layout
    call(root, "write_file", path=path, content="literal\n", create_parents=True)
    assert (root / Path(path)).read_text() == "literal\n"
    assert not (Path.home() / "x").is_file() or (Path.home() / "x").read_text() != "literal\n"


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("a\x00b", "invalid_path"),
        ("", "invalid_path"),
        (None, "invalid_path"),
        (5, "invalid_path"),
        (["a"], "invalid_path"),
        ("x" * 5000, "name_too_long"),
        ("d/" + "n" * 300, "name_too_long"),
        ("\udc80", "invalid_path"),
        ("C:foo", "invalid_path"),
        ("C:\\x", "invalid_path"),
        ("\\\\server\\share", "invalid_path"),
        ("\\x", "invalid_path"),
        ("a\\..\\..\\x", "invalid_path"),
        ("sub/a.txt ", "invalid_path"),
        ("trailing /x", "invalid_path"),
    ],
)
@pytest.mark.parametrize(("tool", "key", "extra"), PATH_TOOLS)
def test_malformed_paths_are_refused(
    layout: tuple[Path, Path], tool: str, key: str, extra: dict[str, Any], path: object, code: str
) -> None:
    root, _ = layout
    refused(root, tool, code, **{key: path, **extra})


def test_move_refuses_the_root_and_dot_forms(layout: tuple[Path, Path]) -> None:
    root, _ = layout
    for path in (".", str(root), "sub/.", "sub/.."):
        refused(root, "move_file", "invalid_path", source=path, destination="elsewhere")


# --- filesystem cases ---


@pytest.fixture
def links(layout: tuple[Path, Path]) -> tuple[Path, Path]:
    root, outside = layout
    (root / "abs_link").symlink_to(outside / "secret.txt")
    (root / "rel_link").symlink_to(os.path.relpath(outside / "secret.txt", root))
    (root / "dirlink").symlink_to(outside)
    (root / "chain1").symlink_to("chain2")
    (root / "chain2").symlink_to(outside)
    (root / "dangling").symlink_to(outside / "created-by-attack.txt")
    return root, outside


@pytest.mark.parametrize(
    "link", ["abs_link", "rel_link", "dirlink/secret.txt", "chain1/secret.txt"]
)
@pytest.mark.parametrize(
    ("tool", "extra"),
    [
        ("read_text_file", {}),
        ("get_file_info", {}),
        ("write_file", {"content": "PWNED"}),
        ("edit_file", {"edits": [{"old_text": "SECRET", "new_text": "PWNED"}]}),
    ],
)
def test_symlinks_out_of_the_root_are_refused(
    links: tuple[Path, Path], link: str, tool: str, extra: dict[str, Any]
) -> None:
    root, outside = links
    message = refused(root, tool, path=link, **extra)
    assert str(outside) not in message  # the outside target is not revealed
    assert (outside / "secret.txt").read_text() == "SECRET\n"


@pytest.mark.parametrize("link", ["dirlink", "chain1"])
def test_symlinked_directories_out_of_the_root_cannot_be_listed_or_walked(
    links: tuple[Path, Path], link: str
) -> None:
    root, _ = links
    refused(root, "list_directory", path=link)
    refused(root, "directory_tree", path=link)
    refused(root, "search_files", path=link, pattern="*")
    refused(root, "write_file", path=f"{link}/new.txt", content="x")
    refused(root, "create_directory", path=f"{link}/newdir")
    assert not (root.parent.parent.parent / "outside" / "new.txt").exists()


def test_recursive_tools_list_symlinks_without_descending(links: tuple[Path, Path]) -> None:
    root, _ = links
    tree = call(root, "directory_tree", max_depth=5)["entries"]
    kinds = {e["path"]: e["type"] for e in tree}
    assert kinds["dirlink"] == "symlink" and kinds["chain1"] == "symlink"
    assert not any("secret" in e["path"] for e in tree)
    found = call(root, "search_files", pattern="**", max_depth=10)["matches"]
    assert not any("secret" in p for p in found)
    listing = call(root, "list_directory")["entries"]
    assert {e["name"]: e["type"] for e in listing}["dirlink"] == "symlink"


def test_dangling_symlink_out_of_the_root_is_never_created(links: tuple[Path, Path]) -> None:
    root, outside = links
    refused(root, "write_file", path="dangling", content="x")
    refused(root, "create_directory", path="dangling")
    assert not (outside / "created-by-attack.txt").exists()


def test_symlink_replaced_between_check_and_open_is_refused(layout: tuple[Path, Path]) -> None:
    root, outside = layout
    real_root = Path(os.path.realpath(root))
    target = resolve(real_root, "sub/a.txt")  # validated while sub/ is a real directory
    (root / "sub").rename(root / "sub-old")
    (root / "sub").symlink_to(outside)  # the attacker swaps the directory for a link
    (outside / "a.txt").write_text("OUTSIDE\n")
    with pytest.raises(OSError):
        read_bytes(real_root, target.parts, 1024)
    with pytest.raises(OSError):
        write_bytes(ToolContext(root=real_root), target.parts, b"PWNED")
    assert (outside / "a.txt").read_text() == "OUTSIDE\n"


def test_leaf_replaced_by_symlink_after_check_is_not_written_through(
    layout: tuple[Path, Path],
) -> None:
    root, outside = layout
    real_root = Path(os.path.realpath(root))
    target = resolve(real_root, "sub/a.txt")
    (root / "sub" / "a.txt").unlink()
    (root / "sub" / "a.txt").symlink_to(outside / "secret.txt")
    with pytest.raises(OSError):
        read_bytes(real_root, target.parts, 1024)
    with pytest.raises(ToolError) as info:
        write_bytes(ToolContext(root=real_root), target.parts, b"PWNED")
    assert info.value.code == "path_changed"
    assert (outside / "secret.txt").read_text() == "SECRET\n"


def test_symlinks_inside_the_root_keep_working(layout: tuple[Path, Path], tmp_path: Path) -> None:
    root, _ = layout
    (root / "alias.txt").symlink_to("sub/a.txt")
    (root / "subalias").symlink_to("sub")
    assert call(root, "read_text_file", path="alias.txt")["path"] == "sub/a.txt"
    assert call(root, "read_text_file", path="subalias/a.txt")["content"] == "inside\n"
    call(root, "write_file", path="alias.txt", content="через ссылку\n")
    assert (root / "alias.txt").is_symlink()
    assert (root / "sub" / "a.txt").read_text() == "через ссылку\n"
    # The root given through a symlink: both forms of absolute paths work.
    (tmp_path / "rootlink").symlink_to(root)
    linked = tmp_path / "rootlink"
    ctx_root = Path(os.path.realpath(linked))
    out = TOOLS["read_text_file"].run(
        ToolContext(root=ctx_root), {"path": str(linked / "sub" / "a.txt")}
    )
    assert out["path"] == "sub/a.txt"
    out = TOOLS["read_text_file"].run(
        ToolContext(root=ctx_root), {"path": str(root / "sub" / "a.txt")}
    )
    assert out["path"] == "sub/a.txt"


def test_hardlink_to_an_outside_file_is_not_written(layout: tuple[Path, Path]) -> None:
    root, outside = layout
    os.link(outside / "secret.txt", root / "hard.txt")
    refused(root, "write_file", "hardlinked", path="hard.txt", content="PWNED")
    refused(
        root,
        "edit_file",
        "hardlinked",
        path="hard.txt",
        edits=[{"old_text": "SECRET", "new_text": "PWNED"}],
    )
    assert (outside / "secret.txt").read_text() == "SECRET\n"
    assert call(root, "get_file_info", path="hard.txt")["nlink"] == 2  # visible to the agent


def test_fifo_and_directories_are_not_read_as_files(layout: tuple[Path, Path]) -> None:
    root, _ = layout
    os.mkfifo(root / "pipe")
    refused(root, "read_text_file", "not_a_file", path="pipe")  # returns at once, no hang
    refused(root, "read_text_file", "is_a_directory", path="sub")
    refused(root, "write_file", "not_a_file", path="sub", content="x")


SEGMENTS = st.sampled_from(
    ["..", ".", "", "sub", "a.txt", "dirlink", "inlink", "new", "%2e%2e", "~", "x y"]
)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(parts=st.lists(SEGMENTS, min_size=1, max_size=8), absolute=st.booleans())
def test_resolve_never_yields_a_path_outside_the_root(
    links: tuple[Path, Path], parts: list[str], absolute: bool
) -> None:
    root, _ = links
    if not (root / "inlink").is_symlink():
        (root / "inlink").symlink_to("sub")
    real_root = Path(os.path.realpath(root))
    raw = "/".join(parts)
    if absolute:
        raw = f"{root}/{raw}"
    try:
        target = resolve(real_root, raw)
    except ToolError as exc:
        assert exc.code in ("outside_workspace", "invalid_path")
        return
    real = os.path.realpath(target.real)
    assert os.path.commonpath([real, str(real_root)]) == str(real_root)
    assert target.real == real_root.joinpath(*target.parts)


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(parts=st.lists(SEGMENTS | st.sampled_from(["loop", "up", "chain1"]), min_size=1, max_size=8))
def test_the_fast_realpath_agrees_with_os_realpath(
    links: tuple[Path, Path], parts: list[str]
) -> None:
    root, _ = links
    if not (root / "inlink").is_symlink():
        (root / "inlink").symlink_to("sub")
        (root / "sub" / "loop").symlink_to("loop")
        (root / "sub" / "up").symlink_to("../sub/../dirlink")
    real_root = Path(os.path.realpath(root))
    path = f"{real_root}/{'/'.join(parts)}"
    assert realpath(real_root, path) == os.path.realpath(path)
