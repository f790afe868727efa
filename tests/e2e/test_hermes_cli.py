"""The real Hermes Agent CLI (hermes-agent 0.19.0 from PyPI) against what msd-install wrote.

Hermes exits 0 even on errors, so every check reads what it prints and its logs/errors.log.
"""

from __future__ import annotations

import subprocess
from io import StringIO
from pathlib import Path

import pytest
from e2e_clis import mcp_initialize, py_bin_dir, require_py
from ruamel.yaml import YAML

from helpers import run_json, snapshot

pytestmark = pytest.mark.e2e


def hermes(home: Path, *args: str, cwd: Path | None = None) -> str:
    """Run hermes in a project directory (the msd server refuses to serve the home itself)."""
    exe = require_py("hermes")
    env = {
        "PATH": f"{py_bin_dir()}:/usr/bin:/bin",
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "NO_COLOR": "1",
        "TERM": "dumb",
        "COLUMNS": "200",
    }
    done = subprocess.run(
        [str(exe), *args],
        cwd=cwd or home.parent / "proj",
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def errors_log(home: Path) -> str:
    log = home / ".hermes/logs/errors.log"
    return log.read_text() if log.is_file() else ""


def test_hermes_loads_our_skills_server_and_hooks(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "proj").mkdir()
    before = snapshot(home)
    run_json(["--hermes", "--global", "--yes"], home)

    skills = hermes(home, "skills", "list")
    ours = [line for line in skills.splitlines() if "msd-" in line]
    assert len(ours) == 28, skills
    assert all("│ msd " in line and "enabled" in line for line in ours), skills

    hooks = hermes(home, "hooks", "list")
    assert "Configured shell hooks (2 total)" in hooks, hooks
    assert "msd-secret-read-guard.py" in hooks and "msd-validate-commit.py" in hooks
    assert "not allowlisted" in hooks  # the user approves them, not msd-install

    test = hermes(home, "mcp", "test", "msd")
    assert "✓ Connected" in test and "Tools discovered:" in test, test
    assert errors_log(home) == ""

    config = YAML(typ="safe").load(StringIO((home / ".hermes/config.yaml").read_text()))
    server = config["mcp_servers"]["msd"]
    answer = mcp_initialize(
        server["command"], server["args"], server["env"], tmp_path / "proj", home
    )
    assert answer["serverInfo"]["name"] == "msd-core"

    run_json(["--hermes", "--global", "--uninstall", "--yes"], home)
    left = {k for k in snapshot(home) if not k.startswith((".hermes", ".local", ".cache"))}
    assert left == set(before)
    assert not (home / ".hermes/skills/msd").exists()
    assert (
        not (home / ".hermes/config.yaml").exists()
        or "msd" not in (home / ".hermes/config.yaml").read_text()
    )


def test_our_hook_blocks_a_secret_read_in_hermes(tmp_path: Path) -> None:
    """Hermes fires our guard with its own payload and reads its block decision."""
    home = tmp_path / "home"
    project = tmp_path / "proj"
    project.mkdir(parents=True)
    home.mkdir()
    (project / ".env").write_text("TOKEN=x\n")
    run_json(["--hermes", "--global", "--yes"], home)
    payload = tmp_path / "payload.json"
    payload.write_text('{"args": {"command": "cat .env"}}')
    out = hermes(
        home, "hooks", "test", "pre_tool_call", "--for-tool", "terminal",
        "--payload-file", str(payload),
    )  # fmt: skip
    guard = out.split("msd-secret-read-guard.py", 1)[1].split("→", 1)[0]
    assert "exit=0" in guard and '"decision": "block"' in guard, out
    assert ".env" in guard
    payload.write_text('{"args": {"command": "cat .env.example"}}')
    out = hermes(
        home, "hooks", "test", "pre_tool_call", "--for-tool", "terminal",
        "--payload-file", str(payload),
    )  # fmt: skip
    guard = out.split("msd-secret-read-guard.py", 1)[1].split("→", 1)[0]
    assert "exit=0" in guard and "block" not in guard, out
