"""The wheel run the way a user runs a tool without installing it: ``pipx run --spec <wheel>``
(uv backend, and pip backend as pipx has without uv) and ``uvx --from <wheel>``, into a home
that already has the user's own configuration. The install is the one the source tree makes,
byte for byte; nothing in it points into the runner's throw-away venv; the uninstall gives
the home back exactly as it was."""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import pytest
from distkit import (
    INSTALL,
    PIPX_RUN,
    UNINSTALL,
    USER_FILES,
    UVX,
    WHEEL,
    Built,
    mentions,
    run,
    settings_hooks,
    tool_env,
)

from helpers import build, run_cli, snapshot
from msd_install.installer.context import resolved_interpreter
from msd_install.payload import load

RUNNERS = {
    "pipx-uv-backend": (PIPX_RUN, {"PIPX_DEFAULT_BACKEND": "uv"}),
    "pipx-pip-backend": (PIPX_RUN, {"PIPX_DEFAULT_BACKEND": "pip"}),
    "uvx": (UVX, {}),
}


@pytest.mark.parametrize("runner", list(RUNNERS))
def test_the_wheel_run_by_pipx_or_uvx_installs_and_uninstalls(
    built: Built, tools: Path, tmp_path: Path, runner: str
) -> None:
    checkout = tmp_path / "checkout"
    (checkout / "dist").mkdir(parents=True)
    shutil.copy(built.wheel, checkout / "dist" / WHEEL)
    home = tmp_path / "home"
    build(home, USER_FILES)
    before = snapshot(home)
    launcher, extra = RUNNERS[runner]
    env = tool_env(tools, home, **extra)

    run([*launcher, *INSTALL], env, checkout)
    installed = snapshot(home)
    claude = home / ".claude"
    for hook in load().hooks:
        assert (claude / "hooks" / hook.script).is_file(), hook.script
    assert (claude / "msd-core/bin/msd-mcp").is_file()
    assert (claude / "msd-core/bin/msd-tools").is_file()
    settings = json.loads((claude / "settings.json").read_text())
    assert settings["model"] == "opus" and settings["permissions"] == {"allow": ["Bash(ls:*)"]}
    commands = [c for _, _, c in settings_hooks(settings)] + [settings["statusLine"]["command"]]
    assert "echo mine" in commands
    ours = [shlex.split(c) for c in commands if c != "echo mine"]
    assert len(ours) == len([h for h in load().hooks if h.event])
    for argv in ours:  # the stable base interpreter and a script in ~/.claude/hooks
        assert argv[:3] == [str(resolved_interpreter()), "-I", "-S"]
        assert Path(argv[3]).parent == claude / "hooks" and Path(argv[3]).is_file()
    server = json.loads((home / ".claude.json").read_text())["mcpServers"]
    assert server["mine"] == {"command": "my-server"}
    assert server["msd"]["command"] == str(resolved_interpreter())
    assert mentions(home, str(tools)) == []  # nothing names the runner's venv or caches

    run([*launcher, *UNINSTALL], env, checkout)
    assert snapshot(home) == before

    # the same install from the source tree (this test venv) writes the same bytes
    assert run_cli(INSTALL, home).returncode == 0
    assert snapshot(home) == installed
    assert run_cli(UNINSTALL, home).returncode == 0
    assert snapshot(home) == before
