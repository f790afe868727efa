"""Which Python a global install registers, and which Pythons msd-install refuses to run under.

A global install names one interpreter in every hook command and MCP server entry; that
interpreter must outlive the install: never a venv (a ``pipx run`` / ``uvx`` cache venv
disappears), never a version manager's shim (a shell script costing ~100 ms per hook call,
whose answer changes with the directory), never a Homebrew ``Cellar/`` path (removed by the
next ``brew upgrade``), never the Windows Store's stub that opens the Store. The choice is a
pure function of what the process knows (platform, environment, ``sys.executable``,
``sys._base_executable``, its version) and of a ``Probe`` of the file system, so that every
platform's rules are tested on any machine.
"""

from __future__ import annotations

import ntpath
import os
import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..errors import UsageError


@dataclass(frozen=True)
class Probe:
    """The file-system questions the choice asks (real calls in ``REAL``, tables in tests)."""

    realpath: Callable[[str], str]
    exists: Callable[[str], bool]  # a file is there
    read: Callable[[str], str | None]  # a small text file (``pyvenv.cfg``), None if absent


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read(65536)
    except OSError:
        return None


REAL = Probe(os.path.realpath, os.path.isfile, _read)

# per-user shim folders of version managers; $VAR overrides the default root
_SHIM_ROOTS = (
    ("pyenv", "PYENV_ROOT", "~/.pyenv", "versions/{v}/bin/python3"),
    ("asdf", "ASDF_DATA_DIR", "~/.asdf", "installs/python/{v}/bin/python3"),
    ("mise", "MISE_DATA_DIR", "~/.local/share/mise", "installs/python/{v}/bin/python3"),
)
# the Windows Store's per-user aliases: the bare python.exe there is a stub that opens the
# Store; a package's own folder holds the alias that really starts that Python
_STORE_STUB = re.compile(r"/microsoft/windowsapps/python[0-9.]*\.exe$", re.IGNORECASE)
_STORE_ALIAS = "PythonSoftwareFoundation.Python.{xy}_qbz5n2kfra8p0/python.exe"


def choose_interpreter(
    *,
    platform: str,
    env: Mapping[str, str],
    executable: str,
    base_executable: str | None,
    version: tuple[int, int, int],
    probe: Probe = REAL,
) -> str:
    """The interpreter a global install names: on Windows with forward slashes."""
    if platform == "win32":
        return _windows(executable, base_executable, version, probe)
    path = base_executable or executable
    path = _shim_target(path, env, version, probe) or path
    path = probe.realpath(_outside_venv(path, "python3", probe))
    if platform == "darwin" and "/Cellar/" in path:
        return _homebrew_link(path, version, probe)
    return path


def _windows(executable: str, base: str | None, version: tuple[int, int, int], probe: Probe) -> str:
    # no realpath: Windows Pythons are not reached through symlinks, and resolving a Store
    # alias (a reparse point) leads into C:/Program Files/WindowsApps, which users cannot run
    path = _outside_venv(_slashed(base or executable), "python.exe", probe)
    if _STORE_STUB.search(path):
        alias = path.rsplit("/", 1)[0] + "/" + _STORE_ALIAS.format(xy=f"{version[0]}.{version[1]}")
        if not probe.exists(alias):
            raise UsageError(
                f"{path} is the Microsoft Store's stub, not a Python msd can register",
                hint="run msd-install with the python.exe of a real installation "
                "(python.org, the Python install manager or the Store's Python package)",
            )
        path = alias
    return path


def _slashed(path: str) -> str:
    """A Windows path normalised, with forward slashes (``C:/Python312/python.exe``)."""
    return ntpath.normpath(path).replace("\\", "/")


def _outside_venv(path: str, exe: str, probe: Probe) -> str:
    """``path`` itself, or the base interpreter of the venv it belongs to (``pyvenv.cfg``'s
    ``home``): a venv, above all a pipx/uv cache one, may be gone tomorrow. Windows paths
    arrive with forward slashes, so one flavour of path functions serves both."""
    bindir = posixpath.dirname(path)
    above = posixpath.dirname(bindir)
    cfgs = (posixpath.join(bindir, "pyvenv.cfg"), posixpath.join(above, "pyvenv.cfg"))
    cfg = next((c for c in cfgs if probe.exists(c)), None)
    if cfg is None:
        return path
    home = _cfg_home(probe.read(cfg) or "")
    if home and exe.endswith(".exe"):
        home = _slashed(home)
    for name in (posixpath.basename(path), exe) if home else ():
        base = posixpath.join(home, name)
        if probe.exists(base):
            return base
    raise UsageError(
        f"{path} belongs to a virtual environment ({cfg}) whose base Python cannot be found",
        hint="run msd-install with a Python that is installed on the machine, e.g. "
        "pipx install msd-install, or python3 -m pip install --user msd-install",
    )


def _cfg_home(text: str) -> str:
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip().lower() == "home":
            return value.strip()
    return ""


def _shim_target(
    path: str, env: Mapping[str, str], version: tuple[int, int, int], probe: Probe
) -> str | None:
    """The real binary behind a pyenv/asdf/mise shim: the version this process runs."""
    home = env.get("HOME", "")
    for manager, var, default, layout in _SHIM_ROOTS:
        root = env.get(var) or (home + default[1:] if home else "")
        root = posixpath.normpath(root) if root else ""  # HOME=/home/jane/ is the same home
        if not root or posixpath.dirname(path) != posixpath.join(root, "shims"):
            continue
        real = posixpath.join(root, layout.format(v=".".join(map(str, version))))
        if probe.exists(real):
            return real
        raise UsageError(
            f"{path} is a {manager} shim and {real} does not exist",
            hint=f"run msd-install with the Python of a {manager} version, "
            f"e.g. {posixpath.join(root, layout.format(v='<version>'))}",
        )
    return None


def _homebrew_link(path: str, version: tuple[int, int, int], probe: Probe) -> str:
    """The ``bin`` symlink Homebrew keeps for this Python across upgrades."""
    prefix = path.split("/Cellar/", 1)[0]
    xy = f"{version[0]}.{version[1]}"
    for link in (f"{prefix}/bin/python{xy}", f"{prefix}/opt/python@{xy}/bin/python{xy}"):
        if probe.exists(link):
            return link
    raise UsageError(
        f"{path} is inside Homebrew's Cellar, which the next brew upgrade removes, and "
        f"{prefix}/bin/python{xy} does not exist",
        hint=f"brew link python@{xy}, or run msd-install with another Python",
    )


def refuse_foreign_python(
    *, platform: str, env: Mapping[str, str], executable: str, cwd: str, osrelease: str, head: bytes
) -> None:
    """A Windows Python run from inside WSL would register ``C:/...`` commands into Linux
    configs (or Linux paths into Windows ones): refused with what to do instead.

    ``head``: the first bytes of ``executable`` (``MZ`` for a Windows program, which WSL
    runs through its interop; a Linux venv under ``/mnt/c/`` is an ELF file and welcome)."""
    wsl = "microsoft" in osrelease.lower() or bool(env.get("WSL_DISTRO_NAME"))
    windows_python = executable.lower().endswith(".exe") or head.startswith(b"MZ")
    on_wsl_share = platform == "win32" and cwd.replace("/", "\\").lower().startswith(
        ("\\\\wsl$\\", "\\\\wsl.localhost\\")
    )
    if (wsl and windows_python) or on_wsl_share:
        raise UsageError(
            f"msd-install is running inside WSL under a Windows Python ({executable}), which "
            "would register Windows paths for Linux runtimes",
            hint="install a Linux python3 in WSL (sudo apt install python3 pipx) and run "
            "msd-install with it; for Windows runtimes run it from Windows",
        )


def executable_head(path: str) -> bytes:
    """The first bytes of a program (``MZ``, ``\\x7fELF``, ``#!``), empty if unreadable."""
    try:
        with open(path, "rb") as handle:
            return handle.read(4)
    except OSError:
        return b""
