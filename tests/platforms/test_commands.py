"""The exact commands each adapter registers on Windows and macOS, global and local, planned
through a simulated ``Context`` (its ``platform``, a ``C:/`` home, the chosen interpreter)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from msd_install.errors import UsageError
from msd_install.installer.context import GLOBAL, LOCAL, Context
from msd_install.payload import load
from msd_install.runtimes import ADAPTERS

WIN_HOME = "C:/Users/Jane Doe"
WIN_PY = f"{WIN_HOME}/AppData/Local/Programs/Python/Python312/python.exe"
MAC_HOME = "/Users/jane"
MAC_PY = "/opt/homebrew/bin/python3.12"


def windows(scope: str, **extra: Any) -> Context:
    values: dict[str, Any] = {
        "home": Path(WIN_HOME),
        "cwd": Path(f"{WIN_HOME}/src/app"),
        "platform": "win32",
        "interpreter": Path(WIN_PY),
        "state_dir": Path(f"{WIN_HOME}/AppData/Local/msd"),
    }
    return Context(scope=scope, **(values | extra))


def macos(scope: str) -> Context:
    return Context(
        home=Path(MAC_HOME),
        cwd=Path(f"{MAC_HOME}/src/app"),
        platform="darwin",
        interpreter=Path(MAC_PY),
        state_dir=Path(f"{MAC_HOME}/Library/Application Support/msd"),
        scope=scope,
    )


def registered(name: str, ctx: Context) -> tuple[str, dict[str, Any]]:
    """The secret guard's command line and the MCP server entry, as the adapter plans them."""
    plan = ADAPTERS[name].plan(ctx, load())
    (server,) = [e.value for e in plan.entries if e.label == "MCP server msd"]
    guards = [e.value for e in plan.entries if e.label == "hook msd-secret-read-guard"]
    if not guards:
        return "", server
    guard = guards[0]
    return (guard["hooks"][0] if "hooks" in guard else guard)["command"], server


GUARD = "hooks/msd-secret-read-guard.py"
WALK = (
    '-c "import os,sys;r=sys.argv[1];c=os.getcwd();f=next((p for p in (os.path.abspath('
    "os.path.join(c,*['..']*i,r)) for i in range(64)) if os.path.isfile(p)),r);"
    "sys.argv=[f,*sys.argv[2:]];exec(compile(open(f,'rb').read(),f,'exec'),"
    "{'__name__':'__main__','__file__':f})\""
)


@pytest.mark.parametrize(
    ("name", "folder", "tail"),
    [
        ("claude", ".claude", ""),
        ("codex", ".codex", ""),
        ("gemini", ".gemini", " --dialect gemini"),
        ("cursor", ".cursor", " --dialect cursor"),
    ],
)
def test_windows_global_hooks_are_quoted_forward_slash_paths(
    name: str, folder: str, tail: str
) -> None:
    command, server = registered(name, windows(GLOBAL))
    assert command == f'"{WIN_PY}" -I -S "{WIN_HOME}/{folder}/{GUARD}"{tail}'
    assert "\\" not in command and "$" not in command and "`" not in command
    assert server["command"] == WIN_PY
    assert server["args"] == ["-I", "-S", f"{WIN_HOME}/{folder}/msd-core/bin/msd-mcp"]
    assert server["env"] == {"MSD_AUDIT_LOG": f"{WIN_HOME}/AppData/Local/msd/audit.jsonl"}


def test_windows_global_opencode_server_is_one_argv_with_forward_slashes() -> None:
    _, server = registered("opencode", windows(GLOBAL))
    assert server == {
        "type": "local",
        "command": [WIN_PY, "-I", "-S", f"{WIN_HOME}/.config/opencode/msd-core/bin/msd-mcp"],
        "environment": {"MSD_AUDIT_LOG": f"{WIN_HOME}/AppData/Local/msd/audit.jsonl"},
        "enabled": True,
    }


def test_windows_backslash_paths_are_written_with_forward_slashes() -> None:
    """On a real Windows machine the context holds backslash paths; what is registered is
    the same as from forward-slash ones."""
    ctx = windows(GLOBAL, interpreter=Path(WIN_PY.replace("/", "\\")))
    command, server = registered("claude", ctx)
    assert command == f'"{WIN_PY}" -I -S "{WIN_HOME}/.claude/{GUARD}"'
    assert server["command"] == WIN_PY


@pytest.mark.parametrize(
    ("name", "folder", "script"),
    [
        ("claude", ".claude", f'"$CLAUDE_PROJECT_DIR"/.claude/{GUARD}'),
        ("codex", ".codex", f'{WALK} ".codex/{GUARD}"'),
        ("gemini", ".gemini", f"$GEMINI_PROJECT_DIR/.gemini/{GUARD} --dialect gemini"),
        ("cursor", ".cursor", f'{WALK} ".cursor/{GUARD}" --dialect cursor'),
        ("opencode", ".opencode", None),
    ],
)
@pytest.mark.parametrize("make", [windows, macos], ids=["windows", "macos"])
def test_local_installs_are_the_same_on_every_platform(
    name: str, folder: str, script: str | None, make: Any
) -> None:
    """A committed install names ``python3`` and project-relative paths whichever platform
    made it, so a clone on Linux, macOS or Windows runs the same files."""
    command, server = registered(name, make(LOCAL))
    if script is not None:
        assert command == f"python3 -I -S {script}"
    args = ["-I", "-S", f"{folder}/msd-core/bin/msd-mcp"]
    if name == "opencode":
        assert server["command"] == ["python3", *args] and "environment" not in server
    else:
        assert server["command"] == "python3" and server["args"] == args
        assert "env" not in server
    linux = Context(home=Path("/home/j"), cwd=Path("/home/j/src/app"), scope=LOCAL)
    assert (command, server) == registered(name, linux)


@pytest.mark.parametrize(
    ("name", "folder", "tail"),
    [
        ("claude", ".claude", ""),
        ("codex", ".codex", ""),
        ("gemini", ".gemini", " --dialect gemini"),
        ("cursor", ".cursor", " --dialect cursor"),
    ],
)
def test_macos_global_names_the_stable_homebrew_link(name: str, folder: str, tail: str) -> None:
    command, server = registered(name, macos(GLOBAL))
    assert command == f'"{MAC_PY}" -I -S "{MAC_HOME}/{folder}/{GUARD}"{tail}'
    assert server["command"] == MAC_PY
    assert server["env"] == {
        "MSD_AUDIT_LOG": f"{MAC_HOME}/Library/Application Support/msd/audit.jsonl"
    }


def test_macos_global_opencode() -> None:
    _, server = registered("opencode", macos(GLOBAL))
    assert server["command"] == [
        MAC_PY, "-I", "-S", f"{MAC_HOME}/.config/opencode/msd-core/bin/msd-mcp"
    ]  # fmt: skip


@pytest.mark.parametrize("char", ["$", "%", "`"])
def test_windows_refuses_a_path_no_quoting_protects_in_every_shell(char: str) -> None:
    """``$`` and a backtick expand inside double quotes in PowerShell and sh, ``%`` in cmd,
    and no escape means the same in all three: refused before anything is written."""
    ctx = windows(GLOBAL, interpreter=Path(f"C:/Py{char}thon/python.exe"))
    with pytest.raises(UsageError) as err:
        registered("claude", ctx)
    assert err.value.one_line() == (
        f"C:/Py{char}thon/python.exe cannot be named in a hook command on Windows: {char!r} "
        "would be expanded by cmd or PowerShell inside quotes (use a Python and a home "
        'directory whose paths have no $, %, ` or ")'
    )


def test_a_windows_root_is_normalised_in_windows_terms() -> None:
    ctx = windows(GLOBAL, config_dir=Path("C:/Users/Jane Doe/tools/../cfg/./claude"))
    assert ADAPTERS["claude"].root(ctx).as_posix() == "C:/Users/Jane Doe/cfg/claude"
    assert ADAPTERS["claude"].root(windows(LOCAL)).as_posix() == f"{WIN_HOME}/src/app/.claude"
