"""Which Python a global install registers, per platform: a pure choice over a simulated
file system (``Probe``), so macOS, Windows and version-manager layouts are checked on Linux."""

from __future__ import annotations

import posixpath
import sys
from pathlib import Path

import pytest

from msd_install.errors import UsageError
from msd_install.installer.context import resolved_interpreter
from msd_install.installer.interpreter import Probe, choose_interpreter

V = (3, 12, 4)


def machine(files: dict[str, str] | set[str], links: dict[str, str] | None = None) -> Probe:
    """A file system of ``files`` (path -> text, or just paths) and symlinks (path -> target)."""
    texts = files if isinstance(files, dict) else dict.fromkeys(files, "")
    links = links or {}

    def realpath(path: str) -> str:
        for _ in range(40):
            parts = path.split("/")
            for i in range(len(parts), 0, -1):
                head = "/".join(parts[:i])
                if head in links:
                    target = links[head]
                    target = (
                        target
                        if target.startswith("/")
                        else posixpath.join(posixpath.dirname(head), target)
                    )
                    path = posixpath.normpath("/".join([target, *parts[i:]]))
                    break
            else:
                return path
        raise AssertionError("link loop")

    def exists(path: str) -> bool:
        return path in texts or (path in links and realpath(path) in texts)

    return Probe(realpath, exists, texts.get)


def choose(platform: str, executable: str, base: str | None, probe: Probe, **env: str) -> str:
    return choose_interpreter(
        platform=platform,
        env={"HOME": "/Users/jane", **env},
        executable=executable,
        base_executable=base,
        version=V,
        probe=probe,
    )


# -- Linux: the realpath of the base interpreter, as before, but never a venv ---------------


def test_linux_resolves_the_base_interpreter_through_its_links() -> None:
    probe = machine({"/usr/bin/python3.12"}, {"/usr/bin/python3": "python3.12"})
    venv = "/home/jane/.local/pipx/venvs/msd-install/bin/python"
    assert choose("linux", venv, "/usr/bin/python3", probe) == "/usr/bin/python3.12"


def test_linux_pipx_cache_venv_with_copied_binary_names_the_base_of_its_pyvenv_cfg() -> None:
    """A ``pipx run``/``uvx`` cache venv made with copies: its python is a file, not a link,
    and ``_base_executable`` may still name it; the venv's ``home`` is what outlives it."""
    cache = "/home/jane/.cache/uv/archive-v0/Ab12/bin"
    probe = machine(
        {
            f"{cache}/python3": "",
            "/home/jane/.cache/uv/archive-v0/Ab12/pyvenv.cfg": "home = /usr/local/bin\n",
            "/usr/local/bin/python3": "",
        }
    )
    python = f"{cache}/python3"
    assert choose("linux", python, python, probe) == "/usr/local/bin/python3"


def test_a_venv_whose_base_is_gone_is_refused_in_one_line() -> None:
    probe = machine({"/tmp/v/bin/python3", "/tmp/v/pyvenv.cfg"})
    with pytest.raises(UsageError) as err:
        choose("linux", "/tmp/v/bin/python3", None, probe)
    assert err.value.one_line().startswith(
        "/tmp/v/bin/python3 belongs to a virtual environment (/tmp/v/pyvenv.cfg) whose base "
        "Python cannot be found (run msd-install with a Python that is installed"
    )


def test_this_process_gets_an_existing_interpreter_outside_any_venv() -> None:
    chosen = resolved_interpreter()
    assert chosen.is_file() and chosen.is_absolute()
    assert not (chosen.parent / "pyvenv.cfg").exists()
    assert not (chosen.parent.parent / "pyvenv.cfg").exists()
    assert chosen == Path(sys._base_executable).resolve()  # type: ignore[attr-defined]


# -- macOS: never a Cellar path, never a shim ------------------------------------------------

CELLAR = "/opt/homebrew/Cellar/python@3.12/3.12.4/Frameworks/Python.framework/Versions/3.12"


@pytest.mark.parametrize("prefix", ["/opt/homebrew", "/usr/local"])
def test_macos_homebrew_keeps_the_bin_link_not_the_cellar(prefix: str) -> None:
    real = f"{CELLAR.replace('/opt/homebrew', prefix)}/bin/python3.12"
    probe = machine(
        {real},
        {f"{prefix}/bin/python3.12": real, f"{prefix}/opt/python@3.12/bin/python3.12": real},
    )
    venv = "/Users/jane/.local/pipx/venvs/msd-install/bin/python"
    assert choose("darwin", venv, real, probe) == f"{prefix}/bin/python3.12"
    assert choose("darwin", venv, f"{prefix}/bin/python3.12", probe) == f"{prefix}/bin/python3.12"


def test_macos_homebrew_without_the_bin_link_uses_the_opt_link() -> None:
    real = f"{CELLAR}/bin/python3.12"
    probe = machine({real}, {"/opt/homebrew/opt/python@3.12/bin/python3.12": real})
    assert choose("darwin", real, real, probe) == "/opt/homebrew/opt/python@3.12/bin/python3.12"


def test_macos_cellar_without_any_stable_link_is_refused_with_brew_link() -> None:
    real = f"{CELLAR}/bin/python3.12"
    with pytest.raises(UsageError) as err:
        choose("darwin", real, real, machine({real}))
    line = err.value.one_line()
    assert "inside Homebrew's Cellar" in line and "(brew link python@3.12," in line


def test_linux_homebrew_is_resolved_as_on_linux() -> None:
    """Only macOS gets the Cellar rule: Linuxbrew users are on the Linux rules (as before)."""
    real = "/home/linuxbrew/.linuxbrew/Cellar/python@3.12/3.12.4/bin/python3.12"
    probe = machine({real}, {"/home/linuxbrew/.linuxbrew/bin/python3.12": real})
    assert choose("linux", real, "/home/linuxbrew/.linuxbrew/bin/python3.12", probe) == real


def test_macos_python_org_framework_is_kept() -> None:
    real = "/Library/Frameworks/Python.framework/Versions/3.12/bin/python3.12"
    probe = machine({real}, {"/usr/local/bin/python3.12": real})
    assert choose("darwin", real, "/usr/local/bin/python3.12", probe) == real


@pytest.mark.parametrize(
    ("shim", "env", "real"),
    [
        (
            "/Users/jane/.pyenv/shims/python3",
            {},
            "/Users/jane/.pyenv/versions/3.12.4/bin/python3.12",
        ),
        (
            "/opt/pyenv/shims/python",
            {"PYENV_ROOT": "/opt/pyenv"},
            "/opt/pyenv/versions/3.12.4/bin/python3.12",
        ),
        (
            "/Users/jane/.asdf/shims/python3",
            {},
            "/Users/jane/.asdf/installs/python/3.12.4/bin/python3.12",
        ),
        (
            "/Users/jane/.local/share/mise/shims/python3",
            {},
            "/Users/jane/.local/share/mise/installs/python/3.12.4/bin/python3.12",
        ),
    ],
)
def test_macos_version_manager_shims_resolve_to_the_running_version(
    shim: str, env: dict[str, str], real: str
) -> None:
    bindir = posixpath.dirname(real)
    probe = machine({shim, real}, {f"{bindir}/python3": "python3.12"})
    assert choose("darwin", shim, shim, probe, **env) == real
    assert choose("linux", shim, None, probe, **env) == real  # same rule on Linux


def test_a_shim_of_a_version_that_is_not_installed_is_refused() -> None:
    shim = "/Users/jane/.pyenv/shims/python3"
    with pytest.raises(UsageError) as err:
        choose("darwin", shim, shim, machine({shim}))
    assert err.value.one_line() == (
        "/Users/jane/.pyenv/shims/python3 is a pyenv shim and "
        "/Users/jane/.pyenv/versions/3.12.4/bin/python3 does not exist (run msd-install with "
        "the Python of a pyenv version, e.g. /Users/jane/.pyenv/versions/<version>/bin/python3)"
    )


# -- Windows: the base installation's python.exe, forward slashes, never the Store stub ------

WIN_BASE = "C:/Users/Jane Doe/AppData/Local/Programs/Python/Python312/python.exe"


def test_windows_venv_names_the_base_python_exe_with_forward_slashes() -> None:
    venv = "C:\\Users\\Jane Doe\\pipx\\venvs\\msd-install\\Scripts\\python.exe"
    probe = machine({WIN_BASE})
    assert choose("win32", venv, WIN_BASE.replace("/", "\\"), probe) == WIN_BASE


def test_windows_base_still_in_a_venv_follows_pyvenv_cfg_home() -> None:
    venv = "C:\\work\\.venv\\Scripts\\python.exe"
    home = "C:\\Users\\Jane Doe\\AppData\\Local\\Programs\\Python\\Python312"
    probe = machine(
        {"C:/work/.venv/Scripts/python.exe": "", "C:/work/.venv/pyvenv.cfg": f"home = {home}\n",
         WIN_BASE: ""}
    )  # fmt: skip
    assert choose("win32", venv, venv, probe) == WIN_BASE


def test_windows_store_stub_becomes_the_package_alias() -> None:
    apps = "C:/Users/Jane Doe/AppData/Local/Microsoft/WindowsApps"
    alias = f"{apps}/PythonSoftwareFoundation.Python.3.12_qbz5n2kfra8p0/python.exe"
    probe = machine({f"{apps}/python.exe", alias})
    stub = f"{apps}/python.exe".replace("/", "\\")
    assert choose("win32", stub, stub, probe) == alias
    assert choose("win32", alias, None, probe) == alias  # the alias itself is kept


def test_windows_store_stub_without_a_store_python_is_refused() -> None:
    stub = "C:\\Users\\Jane Doe\\AppData\\Local\\Microsoft\\WindowsApps\\python3.exe"
    with pytest.raises(UsageError) as err:
        choose("win32", stub, None, machine({stub.replace("\\", "/")}))
    assert err.value.one_line().startswith(
        "C:/Users/Jane Doe/AppData/Local/Microsoft/WindowsApps/python3.exe is the Microsoft "
        "Store's stub, not a Python msd can register (run msd-install with the python.exe"
    )


def test_windows_paths_are_not_resolved_through_links() -> None:
    """A realpath through a Store alias lands in C:/Program Files/WindowsApps, which users
    cannot execute: Windows paths are taken as they are."""
    probe = machine({WIN_BASE}, {WIN_BASE: "C:/Program Files/WindowsApps/x/python.exe"})
    assert choose("win32", WIN_BASE, WIN_BASE, probe) == WIN_BASE
