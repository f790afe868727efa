"""Shared test helpers: fake homes, tree snapshots, running the real CLI."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent

Tree = dict[str, Any]


def snapshot(root: Path, *, stat: bool = False) -> Tree:
    """Every path under ``root``: bytes and mode (plus mtime and inode when ``stat``);
    a directory as its mode; a symlink as the link itself (never followed, dangling is fine);
    a FIFO or device as its type and mode."""
    out: Tree = {}
    for dirpath, dirnames, filenames in os.walk(root):
        base = Path(dirpath)
        for name in dirnames + filenames:
            p = base / name
            rel = p.relative_to(root).as_posix()
            if p.is_symlink():
                out[rel] = ("link", os.readlink(p))
            elif p.is_dir():
                out[rel + "/"] = oct(p.stat().st_mode & 0o7777)
            elif not p.is_file():  # a FIFO or a device: never read (it could block forever)
                out[rel] = ("special", oct(p.lstat().st_mode))
            elif stat:
                st = p.lstat()
                out[rel] = (p.read_bytes(), st.st_mode, st.st_mtime_ns, st.st_ino)
            else:
                out[rel] = (p.read_bytes(), oct(p.stat().st_mode & 0o7777))
    return out


def restore(root: Path, tree: Tree) -> None:
    """Put ``root`` back to ``tree`` (a ``snapshot(root)``): what is new goes, what changed or
    went is written back with its bytes and mode. For the files real runtime CLIs write into
    a home they run in (state, caches, a version stamp), which are theirs and not under test."""
    for rel in sorted(set(snapshot(root)) - set(tree), reverse=True):  # children first
        path = root / rel.rstrip("/")
        if path.is_symlink() or not path.is_dir():
            path.unlink()
        else:
            shutil.rmtree(path)
    now = snapshot(root)
    for rel, entry in sorted(tree.items()):
        if now.get(rel) == entry:
            continue
        path = root / rel.rstrip("/")
        if rel.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
            path.chmod(int(entry, 8))
        elif entry[0] == "link":
            path.unlink(missing_ok=True)
            path.symlink_to(entry[1])
        elif entry[0] != "special":
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.is_symlink():
                path.unlink()
            path.write_bytes(entry[0])
            path.chmod(int(entry[1], 8))


def build(root: Path, spec: dict[str, str | bytes]) -> None:
    """Create files from a {relative path: content} spec."""
    for rel, content in spec.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)


def cli_env(home: Path, **extra: str) -> dict[str, str]:
    # CI is dropped too: the CI runner sets it, and a run that sees it never prompts, so a
    # test of the prompts on a terminal would pass here and fail there.
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "XDG_")) and k != "CI"
    }
    env.update(
        HOME=str(home),
        XDG_STATE_HOME=str(home / ".local/state"),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local/share"),
    )
    env.update(extra)
    return env


def run_cli(
    args: list[str], home: Path, cwd: Path | None = None, *, stdin: str | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "msd_install", *args],
        cwd=cwd or home,
        env=cli_env(home, **env),
        capture_output=True,
        text=True,
        input=stdin if stdin is not None else "",
        timeout=120,
    )


def run_json(args: list[str], home: Path, cwd: Path | None = None, **env: str) -> dict[str, Any]:
    proc = run_cli([*args, "--json"], home, cwd, **env)
    assert proc.returncode in (0, 1), proc.stderr
    doc: dict[str, Any] = json.loads(proc.stdout)
    return doc


def verbs(doc: dict[str, Any]) -> dict[str, int]:
    out: dict[str, int] = {}
    for result in doc["results"]:
        for action in result["actions"]:
            out[action["verb"]] = out.get(action["verb"], 0) + 1
    return out


def uninstall_claude(ctx: Any, root: Path | None = None, **kw: Any) -> Any:
    """``engine.uninstall`` as the CLI calls it: with the Claude adapter's bounds for ``ctx``
    (the config and state files a manifest in that root may name)."""
    from msd_install.installer import engine
    from msd_install.payload import load
    from msd_install.runtimes import ADAPTERS

    adapter = ADAPTERS["claude"]
    where = adapter.root(ctx) if root is None else root
    return engine.uninstall("claude", ctx, where, lambda: adapter.plan(ctx, load()).bounds(), **kw)


REGISTRY = ".local/state/msd/manifests.json"


def snapshot_but_registry(home: Path) -> Tree:
    """``snapshot(home)`` without the record of which manifests this user's msd-install wrote
    (installer/registry.py): it stays in the home while any install exists, even a local one."""
    tree = snapshot(home)
    tree.pop(REGISTRY, None)
    for folder in (".local/state/msd/", ".local/state/", ".local/"):
        if not any(k.startswith(folder) and k != folder for k in tree):
            tree.pop(folder, None)
    return tree


def global_context(home: Path, **kw: Any) -> Any:
    """The ``Context`` of a global run for a user whose home is ``home`` (the record of
    manifests in ``home/.state`` unless ``state_dir`` says otherwise), this Python."""
    from msd_install.installer.context import GLOBAL, Context

    kw.setdefault("state_dir", home / ".state")
    return Context(
        home=home, cwd=home, env={}, scope=GLOBAL, interpreter=Path(sys.executable), **kw
    )


AS_NOBODY = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"]


def as_nobody_possible() -> bool:
    """Root with ``setpriv``: a test can run msd-install as the user nobody."""
    return hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("setpriv") is not None


@contextlib.contextmanager
def open_tmp() -> Iterator[Path]:
    """A temporary folder (mode 755) that another user can reach (pytest's own are mode
    700): for tests that run msd-install as nobody (``AS_NOBODY``). Skips the test where
    the temporary directory's parents are closed to others."""
    import stat
    import tempfile

    import pytest

    base = Path(tempfile.gettempdir())
    for folder in (base, *base.parents):
        if not folder.stat().st_mode & stat.S_IXOTH:
            pytest.skip(f"{folder} is closed to other users")
    with tempfile.TemporaryDirectory(prefix="msd-test-nobody-") as tmp:
        Path(tmp).chmod(0o755)
        yield Path(tmp)
