"""The command line as a user meets it: flags, errors, prompts, exit codes."""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import cli_env, run_cli, snapshot
from msd_install import __version__
from msd_install.runtimes import ADAPTERS, RUNTIMES


def one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    lines = proc.stderr.strip().splitlines()
    assert "Traceback" not in proc.stderr
    return lines[-1]


def test_help_lists_every_runtime_flag(tmp_path: Path) -> None:
    proc = run_cli(["--help"], tmp_path)
    assert proc.returncode == 0
    for name in RUNTIMES:
        assert f"--{name}" in proc.stdout
    for flag in (
        "--all",
        "--global",
        "--local",
        "--config-dir",
        "--uninstall",
        "--dry-run",
        "--json",
        "--yes",
        "--force-statusline",
        "--version",
    ):
        assert flag in proc.stdout


def test_version(tmp_path: Path) -> None:
    proc = run_cli(["--version"], tmp_path)
    assert proc.returncode == 0 and __version__ in proc.stdout


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--claude", "--global", "--bogus"], "No such option '--bogus'"),
        (["--global"], "no runtime given and no terminal to ask on; pass --claude"),
        (["--claude"], "no scope given and no terminal to ask on; pass --global or --local"),
        (["--claude", "--global", "--local"], "--global and --local cannot be used together"),
        (["--claude", "--local", "--config-dir", "x"], "cannot be used with --local"),
    ],
)
def test_usage_errors_exit_2_with_one_line_and_write_nothing(
    tmp_path: Path, args: list[str], needle: str
) -> None:
    home = tmp_path / "h"
    home.mkdir()
    proc = run_cli(args, home)
    assert proc.returncode == 2, proc.stderr
    assert needle in proc.stderr
    one_line_error(proc)
    assert snapshot(home) == {}


def test_every_runtime_has_an_adapter() -> None:
    """16 of 16: every flag of the CLI installs something."""
    assert list(RUNTIMES) == [n for n in RUNTIMES if n in ADAPTERS] and len(RUNTIMES) == 16


def test_config_dir_and_claude_config_dir(tmp_path: Path) -> None:
    home = tmp_path / "h"
    home.mkdir()
    target = tmp_path / "custom"
    proc = run_cli(["--claude", "--config-dir", str(target), "--yes"], home)
    assert proc.returncode == 0, proc.stderr
    assert (target / "skills/msd-help/SKILL.md").is_file()
    assert (target / ".claude.json").is_file()  # Claude keeps its state file in the config dir
    assert not (home / ".claude").exists() and not (home / ".claude.json").exists()
    assert run_cli(["--claude", "--config-dir", str(target), "--yes", "-u"], home).returncode == 0
    assert not target.exists()

    env_dir = tmp_path / "envdir"
    proc = run_cli(["--claude", "-g", "-y"], home, CLAUDE_CONFIG_DIR=str(env_dir))
    assert proc.returncode == 0, proc.stderr
    assert (env_dir / "msd-file-manifest.json").is_file()
    assert (
        run_cli(["--claude", "-g", "-y", "-u"], home, CLAUDE_CONFIG_DIR=str(env_dir)).returncode
        == 0
    )
    assert snapshot(home) == {}


def test_json_document_shape(tmp_path: Path) -> None:
    proc = run_cli(["--all", "--global", "--yes", "--json", "--dry-run"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["format"] == 1 and doc["version"] == __version__ and doc["exit_code"] == 0
    from msd_install.runtimes import RUNTIMES

    results = doc["results"]  # one per runtime with a global scope, in the order of the help
    assert [r["runtime"] for r in results] == [n for n in RUNTIMES if n in ADAPTERS]
    for result in results:
        assert result["command"] == "install"
        assert {a["verb"] for a in result["actions"]} == {"create"}
        assert result["summary"]["create"] == len(result["actions"])


def run_in_pty(args: list[str], home: Path, answers: list[tuple[str, str]]) -> tuple[int, str]:
    """Run the CLI on a pseudo-terminal, typing each answer once its prompt shows."""
    master, slave = os.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "msd_install", *args],
        cwd=home,
        env=cli_env(home),
        stdin=slave,
        stdout=slave,
        stderr=slave,
    )
    os.close(slave)
    out = b""
    deadline = time.monotonic() + 60
    pending = list(answers)
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        if pending and pending[0][0].encode() in out:
            os.write(master, pending.pop(0)[1].encode() + b"\n")
        if proc.poll() is not None and not ready:
            break
    proc.wait(timeout=30)
    os.close(master)
    return proc.returncode, out.decode(errors="replace")


def test_tty_asks_for_runtime_and_scope(tmp_path: Path) -> None:
    home = tmp_path / "h"
    (home / ".claude").mkdir(parents=True)
    code, out = run_in_pty([], home, [("Runtimes", ""), ("locally", "g")])
    assert code == 0, out
    assert "Claude Code (detected: ~/.claude exists)" in out
    assert (home / ".claude/msd-file-manifest.json").is_file()


@pytest.mark.parametrize(
    "args",
    [
        ["--uninstall", "--check"],  # on a terminal, uninstall asks for confirmation first
        ["--codex", "--config-dir", "x"],  # no runtime prompt: --config-dir takes one runtime
        ["--all", "--config-dir", "x"],
    ],
)
def test_flag_conflicts_are_refused_before_any_prompt(tmp_path: Path, args: list[str]) -> None:
    home = tmp_path / "h"
    (home / ".claude").mkdir(parents=True)
    code, out = run_in_pty(["--claude", *args], home, [])
    assert code == 2, out
    assert "?" not in out.replace("(y/n)?", "") and "Remove msd" not in out
    assert "cannot be used together" in out or "name exactly one" in out


def test_check_reports_drift_with_exit_1_and_writes_nothing(tmp_path: Path) -> None:
    home = tmp_path / "h"
    home.mkdir()
    proc = run_cli(["--claude", "--global", "--check"], home)
    assert proc.returncode == 1 and snapshot(home) == {}
    assert run_cli(["--claude", "--global", "--yes"], home).returncode == 0
    proc = run_cli(["--claude", "--global", "--check", "--json"], home)
    assert proc.returncode == 0, proc.stdout
    assert json.loads(proc.stdout)["results"][0]["drift"] is False
    proc = run_cli(["--claude", "--global", "--check"], home)
    assert proc.returncode == 0
    assert proc.stdout.startswith("check: ok     claude (global) at ~/.claude: ")
    assert len(proc.stdout.splitlines()) == 1  # a clean check is one line, not 150
    skill = home / ".claude/skills/msd-help/SKILL.md"
    skill.write_text("edited\n")
    before = snapshot(home)
    proc = run_cli(["--claude", "--global", "--check"], home)
    assert proc.returncode == 1
    # the patch set is named for the time of the run (patches.py)
    shown = re.sub(r"/[0-9]{8}T[0-9]{6}Z\b", "/<time>", proc.stdout)
    assert shown.splitlines() == [
        "  backup    ~/.claude/msd-local-patches/<time>/user/skills/msd-help/SKILL.md  "
        "(your changes to skills/msd-help/SKILL.md, for msd-install --reapply)",
        "  update    ~/.claude/skills/msd-help/SKILL.md",
        "  note: your edits to 1 file(s) of msd's would be saved in msd-local-patches/<time>: "
        "run msd-install --reapply (with the same runtime and scope) to merge them into this "
        "version",
        "check: drift  claude (global) at ~/.claude: 1 update, 1 backup",
    ]
    assert snapshot(home) == before


def test_doctor_finds_a_missing_file_a_removed_hook_entry_and_a_gone_interpreter(
    tmp_path: Path,
) -> None:
    home = tmp_path / "h"
    home.mkdir()
    proc = run_cli(["doctor"], home)
    assert proc.returncode == 0 and "0 install(s)" in proc.stdout
    assert run_cli(["--claude", "--global", "--yes"], home).returncode == 0
    proc = run_cli(["doctor", "--json"], home)
    assert proc.returncode == 0, proc.stdout
    (install,) = [i for i in json.loads(proc.stdout)["installs"] if i["installed"]]
    assert install["healthy"] and install["findings"] == []

    (home / ".claude/hooks/msd-statusline.py").unlink()
    settings = home / ".claude/settings.json"
    doc = json.loads(settings.read_text())
    doc["hooks"].pop("SessionStart")
    settings.write_text(json.dumps(doc))
    manifest = home / ".claude/msd-file-manifest.json"
    data = json.loads(manifest.read_text())
    data["interpreter"] = str(tmp_path / "gone/python3")
    manifest.write_text(json.dumps(data))
    proc = run_cli(["doctor"], home)
    assert proc.returncode == 1
    assert "hooks/msd-statusline.py: missing" in proc.stdout
    assert "hook msd-session-state: missing or changed" in proc.stdout
    assert "the Python that hooks and the MCP server run with is gone" in proc.stdout


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_shell_completion_as_documented(tmp_path: Path, shell: str) -> None:
    env = {**cli_env(tmp_path), "_MSD_INSTALL_COMPLETE": f"{shell}_source"}
    script = subprocess.run(
        [sys.executable, "-m", "msd_install"], env=env, capture_output=True, text=True
    )
    assert script.returncode == 0 and "_MSD_INSTALL_COMPLETE" in script.stdout
    doc = (Path(__file__).parents[2] / "docs/reference/cli.md").read_text()
    assert f"_MSD_INSTALL_COMPLETE={shell}_source msd-install" in doc
    if shell == "bash":
        env.update(
            _MSD_INSTALL_COMPLETE="bash_complete", COMP_WORDS="msd-install --cl", COMP_CWORD="1"
        )
        words = subprocess.run(
            [sys.executable, "-m", "msd_install"], env=env, capture_output=True, text=True
        ).stdout.split()
        assert words == ["plain,--claude", "plain,--cline"]
