"""What a run prints by default (per runtime: a summary line, what needs attention, the next
step) and with -v (every path with its verb, then the same summary)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from helpers import build, run_cli
from msd_install.runtimes import ADAPTERS, RUNTIMES

GLOBAL = ["--claude", "--global", "--yes"]


def test_default_output_is_a_summary_and_the_next_step(tmp_path: Path) -> None:
    home = tmp_path / "h"
    home.mkdir()
    proc = run_cli(GLOBAL, home)
    assert proc.returncode == 0
    created = len(
        json.loads(run_cli([*GLOBAL, "--json", "--dry-run"], home).stdout)["results"][0]["actions"]
    )
    assert proc.stdout.splitlines() == [
        f"install claude (global) at ~/.claude: {created} created",
        "  next: restart Claude Code, then type /msd-help",
    ]
    proc = run_cli(GLOBAL, home)  # nothing changed: nothing to restart
    assert proc.stdout.splitlines() == [
        f"install claude (global) at ~/.claude: {created} identical",
        "  next: in Claude Code, type /msd-help",
    ]
    removed = created + 1  # and the manifest
    proc = run_cli([*GLOBAL, "--uninstall", "--dry-run"], home)
    assert proc.stdout.splitlines() == [
        f"dry run: uninstall claude (global) at ~/.claude: {removed} to remove"
    ]
    proc = run_cli([*GLOBAL, "--uninstall"], home)
    assert proc.stdout.splitlines() == [
        f"uninstall claude (global) at ~/.claude: {removed} removed",
        "  next: restart Claude Code, so that it lets go of msd",
    ]


def test_verbose_lists_every_path_then_the_summary(tmp_path: Path) -> None:
    home = tmp_path / "h"
    build(home, {".claude/skills/msd-help/SKILL.md": "mine\n"})
    doc = json.loads(run_cli([*GLOBAL, "--json", "--dry-run"], home).stdout)["results"][0]
    proc = run_cli([*GLOBAL, "-v"], home)
    assert proc.returncode == 1  # the conflict
    lines = proc.stdout.splitlines()
    assert lines[0] == "Installing msd into claude (global) at ~/.claude"
    listed = [ln for ln in lines if re.match(r"  (create|conflict) ", ln)]
    assert len(listed) == len(doc["actions"])  # every path, each once
    assert "  create    ~/.claude/skills/msd-add-phase/SKILL.md" in listed
    assert lines[-2:] == [
        f"install claude (global) at ~/.claude: {doc['summary']['create']} created, 1 conflict",
        "  next: restart Claude Code, then type /msd-help",
    ]
    # without -v: the conflict (it needs the user), never the routine lines
    proc = run_cli(GLOBAL, home)
    assert proc.stdout.splitlines() == [
        f"install claude (global) at ~/.claude: {doc['summary']['create']} identical, 1 conflict",
        "  conflict  ~/.claude/skills/msd-help/SKILL.md  (a file of yours is there; --force "
        "replaces it)",
        "  next: in Claude Code, type /msd-help",
    ]


def test_every_runtime_says_how_to_run_its_first_command(tmp_path: Path) -> None:
    """The next line names the command in the runtime's own syntax, the same form msd's
    installed workflows use for it (the payload conversion's ``Dialect.invoke``)."""
    home = tmp_path / "h"
    home.mkdir()
    proc = run_cli(["--all", "--global", "--yes"], home)
    assert proc.returncode == 0, proc.stderr
    summaries = re.findall(r"^install (\w+) \(global\) at (\S+): \d+ created$", proc.stdout, re.M)
    assert [name for name, _ in summaries] == list(RUNTIMES)
    nexts = re.findall(r"^  next: restart (.+), then type (\S+)$", proc.stdout, re.M)
    assert len(nexts) == len(RUNTIMES)
    for (name, where), (label, command) in zip(summaries, nexts, strict=True):
        adapter = ADAPTERS[name]
        assert (label, command) == (adapter.label, adapter.invoke("msd-help"))
        root = home / where.removeprefix("~/")
        help_text = (root / "msd-core/workflows/help.md").read_text()
        assert command in help_text, name
    assert {c for _, c in nexts} == {"/msd-help", "$msd-help", "/skill:msd-help"}


def test_doctor_has_its_own_usage_and_the_main_help_names_it(tmp_path: Path) -> None:
    proc = run_cli(["doctor", "--bad-flag"], tmp_path)
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert lines[0] == "Usage: msd-install doctor [OPTIONS]"
    assert lines[-1] == "Error: No such option '--bad-flag'."
    proc = run_cli(["doctor", "--help"], tmp_path)
    assert proc.returncode == 0 and "--json" in proc.stdout and "--claude" not in proc.stdout
    proc = run_cli(["--help"], tmp_path)
    assert "-v, --verbose" in proc.stdout and "msd-install doctor" in proc.stdout
