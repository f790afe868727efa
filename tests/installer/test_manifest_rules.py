"""Every rule a manifest must pass before msd-install acts on it, with the exact error line.

A manifest comes from disk, and a project's manifest comes with the project: each rule below
is one way a hostile or damaged manifest could have reached outside the root. One base
manifest that passes; each case changes one field and expects exactly one refusal line.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from msd_install.errors import ManifestError
from msd_install.installer import manifest
from msd_install.installer.confine import show
from msd_install.installer.plan import Bounds
from msd_install.installer.registry import Registry

HINT = (
    "nothing was changed; one that came with a cloned project can be deleted; to set it aside "
    "and rebuild it from the files on disk, run msd-install --adopt with the same runtime and "
    "scope flags"
)
ADOPT = (
    "nothing was changed; to set it aside and rebuild it from the files on disk, run "
    "msd-install --adopt with the same runtime and scope flags"
)
OURS = "a" * 64
BASE: dict[str, Any] = {
    "format": 1,
    "installer_version": "0.1.0",
    "runtime": "claude",
    "scope": "local",
    "files": {
        "a.md": {"sha256": OURS, "mode": 0o644},
        "hooks/h.py": {"sha256": OURS, "mode": 0o755},
    },
    "config": [
        {
            "file": "settings.json",
            "fmt": "json",
            "created": True,
            "ops": [
                {"op": "member", "path": [], "key": "hooks", "sha256": OURS, "interior": "\n  "},
                {"op": "item", "path": ["hooks", "X"], "sha256": OURS, "marker": "m", "label": "l"},
                {
                    "op": "replace",
                    "path": [],
                    "key": "statusLine",
                    "sha256": OURS,
                    "previous": '{"command": "mine"}',
                },
            ],
        },
        {"file": "../.mcp.json", "fmt": "jsonc", "created": False, "ops": []},
    ],
    "backups": [{"path": "a.md", "backup": "msd-backups/a.md", "mode": 0o600}],
    "dirs": [".", "..", "../..", "hooks"],
    "state": ["msd-core/cache/msd-update-check.json"],
    "interpreter": "/usr/bin/python3",
}


@pytest.fixture()
def root(tmp_path: Path) -> Path:
    r = tmp_path / "project/.claude"
    r.mkdir(parents=True)
    return r


def bounds_for(root: Path) -> Bounds:
    return Bounds(
        frozenset({root / "settings.json", root.parent / ".mcp.json"}),
        frozenset({root / "msd-core/cache/msd-update-check.json"}),
    )


def load(root: Path, doc: Any, registry: Registry | None = None) -> manifest.Manifest | None:
    (root / manifest.MANIFEST_NAME).write_text(json.dumps(doc))
    return manifest.load(root, lambda: bounds_for(root), registry)


def refusal(root: Path, doc: Any) -> str:
    with pytest.raises(ManifestError) as caught:
        load(root, doc)
    line = caught.value.one_line()
    assert "\n" not in line and caught.value.exit_code == 4
    prefix = f"{root / manifest.MANIFEST_NAME}: install manifest refused: "
    assert line.startswith(prefix) and line.endswith(f" ({HINT})"), line
    return line[len(prefix) : -len(HINT) - 3]


def test_the_base_manifest_passes(root: Path) -> None:
    found = load(root, BASE)
    assert found is not None and not found.trusted  # no registry: foreign, restricted


def with_file(rel: str) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        doc["files"][rel] = {"sha256": OURS, "mode": 0o644}

    return change


def setter(*where: Any, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        node = doc
        for key in where[:-1]:
            node = node[key]
        node[where[-1]] = value

    return change


def deleter(*where: Any) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        node = doc
        for key in where[:-1]:
            node = node[key]
        del node[where[-1]]

    return change


PATH_RULES = {
    "/etc/passwd": "is absolute",
    "C:/Windows/x": "is absolute",
    "../x": "has a '..' component",
    "a/../../x": "has a '..' component",
    "a/./b": "has a '.' component",
    "./a": "has a '.' component",
    "a//b": "has an empty component",
    "a/": "has an empty component",
    "": "is empty",
    "a\\..\\b": "has a backslash",
    "a\x00b": "has a control character",
    "a\nb": "has a control character",
    "a\x1b[2Jb": "has a control character",
    "a\u202eb": "has a control character",
    "a\ud800b": "has a control character",
    "x" * 256: "has a component that is too long",
    "a/" * 2100 + "a": "is too long",
    "msd-file-manifest.json": "is one of msd-install's own bookkeeping files",
    ".msd-install.lock": "is one of msd-install's own bookkeeping files",
    "msd-backups/a.md": "is one of msd-install's own bookkeeping files",
    "msd-local-patches/a.md": "is one of msd-install's own bookkeeping files",
    "settings.json": "is a config or state file, not a file of msd's",
    "msd-core/cache/msd-update-check.json": "is a config or state file, not a file of msd's",
}


@pytest.mark.parametrize("rel", list(PATH_RULES), ids=[repr(r)[:40] for r in PATH_RULES])
def test_file_paths(root: Path, rel: str) -> None:
    doc = copy.deepcopy(BASE)
    with_file(rel)(doc)
    shown = show(rel)
    assert refusal(root, doc) == f"files: {shown} {PATH_RULES[rel]}"


def test_a_long_path_is_shown_with_both_ends() -> None:
    """A path too long to print whole keeps where it starts and the file it names."""
    long = "/tmp/" + "deep/" * 40 + "dotfiles/guard.py"
    shown = show(long)
    assert len(shown) == 82  # 80 characters and the quotes
    assert shown.startswith("'/tmp/deep/") and shown.endswith("/dotfiles/guard.py'")
    assert "..." in shown
    assert show("short/path.md") == "'short/path.md'"


NOT_CONFIG = (
    "is not a config file this runtime uses for this root "
    "(expected '../.mcp.json' or 'settings.json')"
)
NOT_STATE = (
    "is not a file msd writes at run time in this root "
    "(expected 'msd-core/cache/msd-update-check.json')"
)
F = "files['a.md']"
C = "config[0]"
OP = "config[0].ops[0]"
CASES: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    # top level
    ("runtime", setter("runtime", value=5), "'runtime' is not a string without control characters"),
    (
        "scope",
        setter("scope", value="lo\x1bcal"),
        "'scope' is not a string without control characters",
    ),
    (
        "version",
        setter("installer_version", value=["1"]),
        "'installer_version' is not a string without control characters",
    ),
    (
        "interp-rel",
        setter("interpreter", value="bin/python"),
        "'interpreter' 'bin/python' is not an absolute path",
    ),
    ("interp-nul", setter("interpreter", value="/bin/py\x00"), "'interpreter' is not a path"),
    ("files-list", setter("files", value=["a.md"]), "'files' is not an object"),
    ("config-obj", setter("config", value={}), "'config' is not a list"),
    ("backups-str", setter("backups", value="x"), "'backups' is not a list"),
    ("dirs-int", setter("dirs", value=[1]), "'dirs' is not a list of strings"),
    ("state-str", setter("state", value="x"), "'state' is not a list of strings"),
    # file records
    (
        "sha-short",
        setter("files", "a.md", "sha256", value="abc"),
        f"{F}.sha256 is not 64 lowercase hex digits",
    ),
    (
        "sha-upper",
        setter("files", "a.md", "sha256", value="A" * 64),
        f"{F}.sha256 is not 64 lowercase hex digits",
    ),
    (
        "mode-neg",
        setter("files", "a.md", "mode", value=-1),
        f"{F}.mode is not a file mode (0 to 0o7777)",
    ),
    (
        "mode-big",
        setter("files", "a.md", "mode", value=0o10000),
        f"{F}.mode is not a file mode (0 to 0o7777)",
    ),
    (
        "mode-bool",
        setter("files", "a.md", "mode", value=True),
        f"{F}.mode is not a file mode (0 to 0o7777)",
    ),
    (
        "mode-str",
        setter("files", "a.md", "mode", value="644"),
        f"{F}.mode is not a file mode (0 to 0o7777)",
    ),
    (
        "adopted",
        setter("files", "a.md", "adopted", value="yes"),
        f"{F}.adopted is not true or false",
    ),
    ("record", setter("files", "a.md", value=[OURS]), f"{F} is not an object"),
    # config records
    (
        "cfg-outside",
        setter("config", 0, "file", value="../.bashrc"),
        f"{C}.file '../.bashrc' {NOT_CONFIG}",
    ),
    (
        "cfg-abs",
        setter("config", 0, "file", value="/etc/hosts"),
        f"{C}.file '/etc/hosts' {NOT_CONFIG}",
    ),
    (
        "cfg-home",
        setter("config", 0, "file", value="../../.claude.json"),
        f"{C}.file '../../.claude.json' {NOT_CONFIG}",
    ),
    (
        "cfg-twice",
        setter("config", 1, "file", value="settings.json"),
        "config[1].file 'settings.json' is listed twice",
    ),
    ("cfg-int", setter("config", 0, "file", value=1), f"{C}.file is not a string"),
    ("cfg-record", setter("config", 0, value="settings.json"), f"{C} is not an object"),
    (
        "cfg-fmt",
        setter("config", 0, "fmt", value=None),
        f"{C}.fmt is not one of json, jsonc, json-comments, toml, yaml",
    ),
    (
        "cfg-created",
        setter("config", 0, "created", value="yes"),
        f"{C}.created is not true or false",
    ),
    ("cfg-ops", setter("config", 0, "ops", value={}), f"{C}.ops is not a list"),
    ("op-record", setter("config", 0, "ops", 0, value=[]), f"{OP} is not an object"),
    (
        "op-kind",
        setter("config", 0, "ops", 0, "op", value="delete"),
        f"{OP}.op is not one of member, item, replace",
    ),
    (
        "op-path",
        setter("config", 0, "ops", 0, "path", value="hooks"),
        f"{OP}.path is not a list of keys",
    ),
    (
        "op-path-int",
        setter("config", 0, "ops", 0, "path", value=[0]),
        f"{OP}.path is not a list of keys",
    ),
    (
        "op-path-deep",
        setter("config", 0, "ops", 0, "path", value=["k"] * 65),
        f"{OP}.path is not a list of keys",
    ),
    (
        "op-key",
        deleter("config", 0, "ops", 0, "key"),
        f"{OP}.key is not a string without control characters",
    ),
    (
        "op-sha",
        setter("config", 0, "ops", 0, "sha256", value="0"),
        f"{OP}.sha256 is not 64 lowercase hex digits",
    ),
    (
        "op-label",
        setter("config", 0, "ops", 1, "label", value="\x1b]0;pwned\x07"),
        "config[0].ops[1].label is not a string without control characters",
    ),
    (
        "op-marker",
        setter("config", 0, "ops", 1, "marker", value="a\x00b"),
        "config[0].ops[1].marker is not a string without NUL",
    ),
    (
        "interior-member",
        setter("config", 0, "ops", 0, "interior", value='"hooks": {"X": []}'),
        f"{OP}.interior is not just whitespace",
    ),
    (
        "interior-comment-json",
        setter("config", 0, "ops", 0, "interior", value="// hi\n"),
        f"{OP}.interior is not just whitespace",
    ),
    (
        "interior-type",
        setter("config", 0, "ops", 0, "interior", value=5),
        f"{OP}.interior is not a string",
    ),
    (
        "previous-two",
        setter("config", 0, "ops", 2, "previous", value='1, "hooks": {}'),
        "config[0].ops[2].previous is not exactly one JSON value",
    ),
    (
        "previous-missing",
        deleter("config", 0, "ops", 2, "previous"),
        "config[0].ops[2].previous is not a string",
    ),
    (
        "previous-bad",
        setter("config", 0, "ops", 2, "previous", value="{"),
        "config[0].ops[2].previous is not exactly one JSON value",
    ),
    # backups
    (
        "bk-not-ours",
        setter("backups", 0, "path", value="../../.bash_aliases"),
        "backups[0].path '../../.bash_aliases' is not one of the manifest's files",
    ),
    (
        "bk-path-int",
        setter("backups", 0, "path", value=3),
        "backups[0].path (not a string) is not one of the manifest's files",
    ),
    (
        "bk-twice",
        lambda d: d["backups"].append(dict(d["backups"][0])),
        "backups[1].path 'a.md' has two backups",
    ),
    (
        "bk-elsewhere",
        setter("backups", 0, "backup", value="evil.sh"),
        "backups[0].backup 'evil.sh' is not 'msd-backups/a.md'",
    ),
    (
        "bk-abs",
        setter("backups", 0, "backup", value="/etc/shadow"),
        "backups[0].backup '/etc/shadow' is not 'msd-backups/a.md'",
    ),
    (
        "bk-up",
        setter("backups", 0, "backup", value="../msd-backups/a.md"),
        "backups[0].backup '../msd-backups/a.md' is not 'msd-backups/a.md'",
    ),
    (
        "bk-mode",
        setter("backups", 0, "mode", value=0o17777),
        "backups[0].mode is not a file mode (0 to 0o7777)",
    ),
    (
        "bk-link-and-file",
        setter("backups", 0, "link", value="/etc/passwd"),
        "backups[0].link is not a symlink target (with an empty 'backup')",
    ),
    (
        "bk-link-empty",
        setter("backups", 0, value={"path": "a.md", "backup": "", "link": ""}),
        "backups[0].link is not a symlink target (with an empty 'backup')",
    ),
    (
        "bk-link-nul",
        setter("backups", 0, value={"path": "a.md", "backup": "", "link": "/x\x00"}),
        "backups[0].link is not a symlink target (with an empty 'backup')",
    ),
    ("bk-record", setter("backups", 0, value="a.md"), "backups[0] is not an object"),
    # dirs
    ("dir-up", lambda d: d["dirs"].append("../x"), "dirs: '../x' has a '..' component"),
    (
        "dir-up-down",
        lambda d: d["dirs"].append("../../.ssh"),
        "dirs: '../../.ssh' has a '..' component",
    ),
    ("dir-abs", lambda d: d["dirs"].append("/tmp"), "dirs: '/tmp' is absolute"),
    ("dir-mixed", lambda d: d["dirs"].append("a/.."), "dirs: 'a/..' has a '..' component"),
    ("dir-empty", lambda d: d["dirs"].append(""), "dirs: '' is empty"),
    # state
    ("state-out", lambda d: d["state"].append("../.bashrc"), f"state: '../.bashrc' {NOT_STATE}"),
    ("state-other", lambda d: d["state"].append("a.md"), f"state: 'a.md' {NOT_STATE}"),
    (
        "state-abs",
        lambda d: d["state"].append("/srv/.bashrc"),
        f"state: '/srv/.bashrc' {NOT_STATE}",
    ),
]


@pytest.mark.parametrize(("change", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_fields(root: Path, change: Callable[[dict[str, Any]], None], expected: str) -> None:
    doc = copy.deepcopy(BASE)
    change(doc)
    assert refusal(root, doc) == expected


def test_toml_and_yaml_texts_are_left_to_their_verifying_editors(root: Path) -> None:
    """Only JSON text is spliced back unchecked; the TOML and YAML editors parse every
    splice and refuse one that changes anything but our entry (tested with them)."""
    doc = copy.deepcopy(BASE)
    doc["config"][1]["fmt"] = "yaml"
    doc["config"][1]["ops"] = [
        {"op": "replace", "path": [], "key": "k", "sha256": OURS, "previous": "a: 1\nb: 2"},
        {"op": "member", "path": [], "key": "j", "sha256": OURS, "interior": '["x: 1\n", ""]'},
    ]
    assert load(root, doc) is not None
    doc["config"][1]["ops"][0]["previous"] = 3
    assert refusal(root, doc) == "config[1].ops[0].previous is not a string"


def test_the_first_problem_is_the_one_reported(root: Path) -> None:
    doc = copy.deepcopy(BASE)
    doc["state"].append("/etc/x")
    doc["files"]["/etc/passwd"] = {"sha256": OURS, "mode": 0}
    assert refusal(root, doc) == "files: '/etc/passwd' is absolute"


def test_jsonc_interior_may_hold_comments(root: Path) -> None:
    doc = copy.deepcopy(BASE)
    doc["config"][1]["ops"] = [
        {"op": "member", "path": [], "key": "k", "sha256": OURS, "interior": "\n  // mine\n"}
    ]
    assert load(root, doc) is not None
    doc["config"][1]["ops"][0]["interior"] = '/* */ "k": 1'
    assert refusal(root, doc) == "config[1].ops[0].interior is not just whitespace or comments"


def test_a_path_through_a_symlink_out_of_the_root_refuses_a_foreign_manifest(
    root: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    (outside / "sub").mkdir(parents=True)
    (root / "hooks").symlink_to(outside)  # a cloned project can hold any link
    assert refusal(root, BASE) == (
        "files: 'hooks/h.py' passes through 'hooks', a symlink leading out of the root"
    )
    (root / "hooks").unlink()
    (root / "hooks").mkdir()
    (root / "hooks/deep").symlink_to(outside / "sub")
    doc = copy.deepcopy(BASE)
    with_file("hooks/deep/x.py")(doc)
    assert refusal(root, doc) == (
        "files: 'hooks/deep/x.py' passes through 'hooks/deep', a symlink leading out of the root"
    )
    (root / "msd-backups").symlink_to(outside)
    doc = copy.deepcopy(BASE)
    assert refusal(root, doc) == (
        "backups: 'msd-backups/a.md' passes through 'msd-backups', a symlink leading out of "
        "the root"
    )
    (root / "msd-backups").unlink()
    (root / "msd-core").symlink_to(outside)
    assert refusal(root, BASE) == (
        "state: 'msd-core/cache/msd-update-check.json' passes through 'msd-core', a symlink "
        "leading out of the root"
    )
    (root / "msd-core").unlink()
    (root / "gone").symlink_to(outside)
    doc["dirs"].append("gone")
    assert (
        refusal(root, doc)
        == "dirs: 'gone' passes through 'gone', a symlink leading out of the root"
    )


def test_links_that_stay_inside_the_root_are_fine(root: Path) -> None:
    (root / "real").mkdir()
    (root / "hooks").symlink_to("real")
    (root / "loop").symlink_to("loop")  # a loop resolves nowhere outside either
    doc = copy.deepcopy(BASE)
    with_file("loop/x")(doc)
    assert load(root, doc) is not None


def test_a_manifest_the_user_wrote_keeps_following_their_links(root: Path, tmp_path: Path) -> None:
    """Dotfile managers link ~/.claude/skills elsewhere: the user's own install keeps working."""
    (tmp_path / "dotfiles").mkdir()
    (root / "hooks").symlink_to(tmp_path / "dotfiles")
    registry = Registry(tmp_path / "state/manifests.json")
    registry.path.parent.mkdir()
    doc = copy.deepcopy(BASE)
    (root / manifest.MANIFEST_NAME).write_text(json.dumps(doc))
    with pytest.raises(ManifestError):
        manifest.load(root, lambda: bounds_for(root), registry)
    digest = manifest.Manifest(
        root=root,
        runtime="claude",
        scope="local",
        files=doc["files"],
        config=doc["config"],
        backups=doc["backups"],
        dirs=doc["dirs"],
        state=doc["state"],
        interpreter=doc["interpreter"],
        installer_version=doc["installer_version"],
    ).digest()
    record = {"format": 1, "roots": {os.path.realpath(root): digest}, "dirs": []}
    registry.path.write_text(json.dumps(record))
    found = manifest.load(root, lambda: bounds_for(root), registry)
    assert found is not None and found.trusted
    assert found.dirs == BASE["dirs"] and found.backups == BASE["backups"]


def test_a_foreign_manifest_is_restricted(root: Path) -> None:
    doc = copy.deepcopy(BASE)
    doc["backups"] = [
        {"path": "a.md", "backup": "msd-backups/a.md", "mode": 0o4755},
        {"path": "hooks/h.py", "backup": "", "link": "/etc/passwd", "mode": 0},
    ]
    found = load(root, doc)
    assert found is not None and not found.trusted
    assert found.backups == [{"path": "a.md", "backup": "msd-backups/a.md", "mode": 0o755}]
    assert found.dirs == [".", "hooks"]  # nothing above the root
    ops = found.config[0]["ops"]
    assert [op["op"] for op in ops] == ["member", "item", "member"]
    assert all("marker" not in op and "previous" not in op for op in ops)
    assert found.withheld == [
        "hooks/h.py was a symlink to '/etc/passwd': not re-created",
        "settings.json: statusLine: the value msd replaced is not put back",
    ]


def test_the_manifest_file_itself(root: Path, tmp_path: Path) -> None:
    path = root / manifest.MANIFEST_NAME
    bounds = lambda: bounds_for(root)  # noqa: E731

    def line() -> str:
        with pytest.raises(ManifestError) as caught:
            manifest.load(root, bounds, None)
        return caught.value.one_line()

    (tmp_path / "elsewhere.json").write_text(json.dumps(BASE))
    path.symlink_to(tmp_path / "elsewhere.json")
    not_plain = (
        "install manifest refused: it is not a plain file (a symlink, a directory or a device)"
    )
    assert line() == f"{path}: {not_plain} ({HINT})"
    path.unlink()
    os.mkfifo(path)  # would block a plain read forever
    assert line() == f"{path}: {not_plain} ({HINT})"
    path.unlink()
    with open(path, "wb") as handle:
        handle.truncate((16 << 20) + 1)
    assert line() == f"{path}: install manifest refused: it is larger than 16 MiB ({HINT})"
    path.write_text("[" * 100_000 + "]" * 100_000)
    assert line() == (f"{path}: install manifest is not valid JSON (nested too deeply) ({ADOPT})")
    path.write_text('{"format": ' + "1" * 5000 + "}")
    assert "install manifest is not valid JSON" in line()
    path.write_text('{"format": true}')
    assert line() == f"{path}: install manifest has no format version ({ADOPT})"
    path.write_bytes(b'{"format": 1, "runtime": "\xff"}')
    assert "install manifest is not valid JSON" in line()
