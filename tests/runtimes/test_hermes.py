"""Hermes Agent: the planned tree, a byte-exact round trip of a hand-written config.yaml
(comments, anchors, a merge key, the user's own server and hook), and the missing local scope."""

from __future__ import annotations

from pathlib import Path

from golden import check, context

from helpers import build, run_cli, run_json, snapshot, verbs
from msd_install.installer.context import GLOBAL
from msd_install.payload import load
from msd_install.runtimes import adapter

CONFIG = """\
# my Hermes setup
model:
  default: "anthropic/claude-x"   # quoted on purpose
  provider: 'openrouter'
defaults: &defaults
  timeout: 30
mcp_servers:
  github:
    command: npx
    args: [-y, "@modelcontextprotocol/server-github"]
    <<: *defaults
hooks:
  pre_tool_call:
  - matcher: terminal
    command: my-own-guard
terminal:
  backend: local
""".replace("\n", "\r\n")


def test_hermes_golden() -> None:
    hermes = adapter("hermes")
    assert hermes is not None
    plan = hermes.plan(context(GLOBAL), load())
    check("hermes-global", plan, ("msd/msd-plan-phase/SKILL.md", "agents/msd-planner.md"))
    names = {op.path.relative_to(plan.root).as_posix() for op in plan.files}
    assert "skills/msd/msd-help/SKILL.md" in names and "skills/msd/msd-context/SKILL.md" in names
    assert "msd-core/agents/msd-planner.md" in names
    workflow = next(op for op in plan.files if op.path.name == "plan-phase.md").content.decode()
    assert "delegate_task(" in workflow and "msd-core/agents/msd-planner.md" in workflow


def test_round_trip_keeps_a_hand_written_config_byte_for_byte(tmp_path: Path) -> None:
    home = tmp_path / "home"
    build(home, {".hermes/config.yaml": CONFIG, ".hermes/SOUL.md": "me\n"})
    before = snapshot(home)
    doc = run_json(["--hermes", "--global", "--yes"], home)
    assert doc["exit_code"] == 0
    text = (home / ".hermes/config.yaml").read_bytes().decode()
    assert "my-own-guard" in text and "msd-secret-read-guard.py" in text and "  msd:" in text
    assert "\n" not in text.replace("\r\n", "")  # CRLF kept for our lines too
    again = run_json(["--hermes", "--global", "--yes"], home)
    assert set(verbs(again)) == {"identical"}
    run_json(["--hermes", "--global", "--uninstall", "--yes"], home)
    assert snapshot(home) == before


def test_an_empty_home_ends_empty(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    run_json(["--hermes", "--global", "--yes"], home)
    assert (home / ".hermes/config.yaml").is_file()
    run_json(["--hermes", "--global", "--uninstall", "--yes"], home)
    assert snapshot(home) == {}


def test_hermes_home_override_and_no_local_scope(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    run_json(["--hermes", "--global", "--yes"], home, HERMES_HOME=str(tmp_path / "hh"))
    assert (tmp_path / "hh/skills/msd/msd-help/SKILL.md").is_file()
    assert not (home / ".hermes").exists()
    proc = run_cli(["--hermes", "--local", "--yes"], home)
    assert proc.returncode == 2
    assert "Hermes Agent has no local scope" in proc.stderr


def test_a_broken_config_is_refused_and_nothing_written(tmp_path: Path) -> None:
    home = tmp_path / "home"
    build(home, {".hermes/config.yaml": "model: [unclosed\n"})
    before = snapshot(home)
    proc = run_cli(["--hermes", "--global", "--yes"], home)
    assert proc.returncode == 4
    assert "config.yaml: invalid YAML" in proc.stderr and proc.stderr.count("\n") == 1
    assert snapshot(home) == before


def test_install_report_says_hooks_need_the_users_approval(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    doc = run_json(["--hermes", "--global", "--yes", "--dry-run"], home)
    notes = " ".join(doc["results"][0]["notes"])
    assert "only after you approve it" in notes and "msd-session-state" in notes
