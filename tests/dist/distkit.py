"""Helpers for the distribution tests: building, reading archives, sandboxed pipx / uv / pip.

Every tool runs with its homes and caches inside the test's own folder (``tools``) and with a
throw-away ``HOME``: nothing of the real user's is read or written. pipx, uv and build come
from the ``test`` extra (the venv's bin folder); a missing one fails the test, never skips it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from msd_install import __version__
from msd_install.installer.context import resolved_interpreter

BIN = Path(sys.executable).parent
# What a source checkout holds that is not source: Python's own caches.
NOT_SOURCE = ("__pycache__",)


WHEEL = f"msd_install-{__version__}-py3-none-any.whl"
# The commands as a user types them in a checkout after `python -m build` (and as the docs
# show them): the wheel by its path relative to the checkout.
PIPX_RUN = ["pipx", "run", "--spec", f"dist/{WHEEL}", "msd-install"]
UVX = ["uvx", "--from", f"dist/{WHEEL}", "msd-install"]
INSTALL = ["--claude", "--global", "--yes"]
UNINSTALL = ["--claude", "--global", "--uninstall", "--yes"]
VENV_BY_PIP = [
    ["python3", "-m", "venv", "msd-venv"],
    ["msd-venv/bin/pip", "install", f"dist/{WHEEL}"],
]
VENV_BY_UV = [
    ["uv", "venv", "msd-venv"],
    ["uv", "pip", "install", "--python", "msd-venv", f"dist/{WHEEL}"],
]


@dataclass(frozen=True)
class Built:
    wheel: Path
    sdist: Path
    seconds: float


def require(tool: str) -> Path:
    """A console script of the test extra (pipx, uv, uvx); fails the test when it is missing."""
    path = BIN / tool
    if not path.exists():
        pytest.fail(f"{tool} is not in {BIN}: install the test extra (bash scripts/venv)")
    return path


def tool_env(tools: Path, home: Path, **extra: str) -> dict[str, str]:
    """The environment for pipx, uv and pip: their homes, caches and bins under ``tools``,
    ``HOME`` a test home whose msd state stays where a user's would (``~/.local/state``)."""
    bin_dir = tools / "bin"  # pipx, uv and uvx alone: not the msd-install of this test venv
    bin_dir.mkdir(parents=True, exist_ok=True)
    for tool in ("pipx", "uv", "uvx"):
        if not (bin_dir / tool).exists():
            (bin_dir / tool).symlink_to(require(tool))
    # how this machine reaches the index (certificates, proxies, mirrors) is the machine's
    keep = ("LANG", "LC_ALL", "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "NO_PROXY")
    keep += ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "no_proxy")
    keep += ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_TRUSTED_HOST")
    keep += ("PIP_CERT", "PIP_DEFAULT_TIMEOUT")  # never pip's cache or target: those are ours
    keep += ("UV_INDEX_URL", "UV_DEFAULT_INDEX", "UV_EXTRA_INDEX_URL", "UV_NATIVE_TLS")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    # pip's site-wide configuration (index mirrors, constraints) is the machine's, as for a
    # user; its per-user one lives under XDG_CONFIG_HOME, which is ours.
    env.update(
        PATH=f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin",
        HOME=str(home),
        TMPDIR=str(tools / "tmp"),
        XDG_CACHE_HOME=str(tools / "cache"),
        XDG_CONFIG_HOME=str(tools / "config"),
        XDG_DATA_HOME=str(tools / "data"),
        XDG_STATE_HOME=str(home / ".local/state"),
        PIPX_HOME=str(tools / "pipx"),
        PIPX_BIN_DIR=str(tools / "pipx-bin"),
        PIPX_MAN_DIR=str(tools / "pipx-man"),
        UV_CACHE_DIR=str(tools / "uv-cache"),
        UV_TOOL_DIR=str(tools / "uv-tools"),
        UV_TOOL_BIN_DIR=str(tools / "uv-bin"),
        UV_PYTHON_INSTALL_DIR=str(tools / "uv-python"),
        # uv may only use an interpreter that is here (it would download one otherwise)
        UV_PYTHON_DOWNLOADS="never",
        UV_PYTHON=str(resolved_interpreter()),
        NO_COLOR="1",
    )
    (tools / "tmp").mkdir(exist_ok=True)
    env.update(extra)
    return env


def run(
    argv: list[str], env: dict[str, str], cwd: Path, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        argv,
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=timeout,
    )
    assert proc.returncode == 0, f"{argv}: rc={proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


def build(args: list[str], source: Path, out: Path) -> None:
    """``python -m build ARGS --outdir OUT SOURCE``, its pip caches under ``OUT``."""
    tools = out / ".tools"
    env = tool_env(tools, tools / "home")
    run([sys.executable, "-m", "build", *args, "--outdir", str(out), str(source)], env, out)


def wheel_files(wheel: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(wheel) as archive:
        return {i.filename: archive.read(i) for i in archive.infolist() if not i.is_dir()}


def sdist_files(sdist: Path) -> dict[str, bytes]:
    """The sdist's files by path inside its top folder (``msd_install-<version>/``)."""
    out: dict[str, bytes] = {}
    with tarfile.open(sdist) as archive:
        for member in archive.getmembers():
            if member.isfile():
                handle = archive.extractfile(member)
                assert handle is not None
                out[member.name.split("/", 1)[1]] = handle.read()
            else:
                assert member.isdir(), f"{member.name}: neither a file nor a folder"
    return out


def unpack(sdist: Path, where: Path) -> Path:
    with tarfile.open(sdist) as archive:
        if hasattr(tarfile, "data_filter"):  # Python >= 3.10.12 / 3.11.4
            archive.extractall(where, filter="data")
        else:  # pragma: no cover - the members were checked by sdist_files
            archive.extractall(where)
    (top,) = where.iterdir()
    return top


def source_files(root: Path) -> dict[str, bytes]:
    """The files of a source folder as a checkout has them, by path relative to ``root``."""
    out: dict[str, bytes] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in NOT_SOURCE)
        for name in filenames:
            if not name.endswith(".pyc"):
                path = Path(dirpath) / name
                out[path.relative_to(root).as_posix()] = path.read_bytes()
    return out


def venv_from_wheel(checkout: Path, env: dict[str, str], commands: list[list[str]]) -> Path:
    """``msd-venv`` made in ``checkout`` by ``commands`` (VENV_BY_PIP or VENV_BY_UV, as the
    how-to shows them; ``python3`` is this test's interpreter); returns its bin folder."""
    for argv in commands:
        run([sys.executable, *argv[1:]] if argv[0] == "python3" else argv, env, checkout)
    return checkout / "msd-venv/bin"


# A user's own configuration, which an install must keep and an uninstall give back byte for
# byte (comments, key order, indentation, their own hook and MCP server).
USER_SETTINGS = """{
    "model": "opus",
    "permissions": {"allow": ["Bash(ls:*)"]},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo mine"}]}
        ]
    }
}
"""
USER_FILES = {
    ".claude/settings.json": USER_SETTINGS,
    ".claude.json": '{"numStartups": 7, "mcpServers": {"mine": {"command": "my-server"}}}',
    ".codex/config.toml": '# my codex\nmodel = "gpt-5"  # keep this comment\n\n'
    '[mcp_servers.mine]\ncommand = "my-server"\n',
}


def settings_hooks(doc: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(event, matcher, command) of every command hook in a Claude-shaped ``hooks`` table
    (Claude's settings.json, Codex's hooks.json)."""
    out = []
    for event, groups in doc.get("hooks", {}).items():
        for group in groups:
            for hook in group["hooks"]:
                out.append((event, group.get("matcher", ""), hook["command"]))
    return out


def mentions(root: Path, needle: str) -> list[str]:
    """The files under ``root`` whose bytes hold ``needle``."""
    found = []
    for dirpath, _, filenames in os.walk(root):
        for name in filenames:
            path = Path(dirpath) / name
            if not path.is_symlink() and needle.encode() in path.read_bytes():
                found.append(path.relative_to(root).as_posix())
    return found
