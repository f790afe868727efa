"""``--json`` prints exactly one JSON document on stdout in every case, errors included: a
refused flag, an unparsable config file, a damaged manifest; with what finished before the
error, so a script that provisions several runtimes knows which ones are done."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from helpers import build, run_cli, snapshot


def one_document(stdout: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(stdout)  # raises on anything but exactly one document
    assert set(doc) >= {"format", "version", "exit_code", "results"}
    return doc


@pytest.mark.parametrize(
    ("args", "kind", "needle"),
    [
        (["--claude", "--global", "--bogus"], "usage", "No such option '--bogus'"),
        (["--claude", "--global", "--local"], "UsageError", "cannot be used together"),
        (["--global"], "UsageError", "no runtime given"),
        (["--hermes", "--local"], "UsageError", "has no local scope"),
        (["doctor", "--bogus"], "usage", "No such option '--bogus'"),
    ],
)
def test_usage_errors_give_one_json_document(
    tmp_path: Path, args: list[str], kind: str, needle: str
) -> None:
    home = tmp_path / "h"
    home.mkdir()
    proc = run_cli([*args, "--json"], home)
    assert proc.returncode == 2
    doc = one_document(proc.stdout)
    assert doc["exit_code"] == 2 and doc["results"] == []
    assert doc["error"]["kind"] == kind and needle in doc["error"]["message"]
    assert needle in proc.stderr and "Traceback" not in proc.stderr
    assert snapshot(home) == {}


def test_a_config_error_names_the_file_and_keeps_what_finished(tmp_path: Path) -> None:
    home = tmp_path / "h"
    build(home, {".codex/config.toml": "model = [\n"})
    proc = run_cli(["--claude", "--codex", "--global", "--yes", "--json"], home)
    assert proc.returncode == 4
    doc = one_document(proc.stdout)
    assert doc["exit_code"] == 4 and doc["error"]["kind"] == "ConfigFileError"
    assert doc["error"]["path"] == str(home / ".codex/config.toml")
    assert [r["runtime"] for r in doc["results"]] == ["claude"]  # done before codex failed
    assert (home / ".claude/skills/msd-help/SKILL.md").is_file()
    assert (home / ".codex/config.toml").read_text() == "model = [\n"


def test_text_mode_shows_what_finished_before_the_error(tmp_path: Path) -> None:
    home = tmp_path / "h"
    build(home, {".codex/config.toml": "model = [\n"})
    proc = run_cli(["--claude", "--codex", "--global", "--yes"], home)
    assert proc.returncode == 4
    first = proc.stdout.splitlines()[0]  # the summary of what finished: claude
    assert re.fullmatch(r"install claude \(global\) at ~/\.claude: \d+ created", first)
    assert "codex" not in proc.stdout
    assert (
        proc.stderr.strip()
        .splitlines()[-1]
        .startswith(f"msd-install: error: {home / '.codex/config.toml'}: ")
    )


def test_a_damaged_manifest_gives_one_json_document(tmp_path: Path) -> None:
    home = tmp_path / "h"
    home.mkdir()
    assert run_cli(["--claude", "--global", "--yes"], home).returncode == 0
    (home / ".claude/msd-file-manifest.json").write_text('{"format": 1, "files": {"../x": 1}}')
    proc = run_cli(["--claude", "--global", "--yes", "--uninstall", "--json"], home)
    assert proc.returncode == 4
    doc = one_document(proc.stdout)
    assert doc["error"]["kind"] == "ManifestError"
    assert doc["error"]["path"] == str(home / ".claude/msd-file-manifest.json")


@pytest.mark.parametrize("blocker", [".claude/skills", ".claude"])
def test_a_file_where_a_folder_goes_is_named_as_the_thing_to_move(
    tmp_path: Path, blocker: str
) -> None:
    home = tmp_path / "h"
    build(home, {blocker: "mine\n"})
    before = snapshot(home)
    proc = run_cli(["--claude", "--global", "--yes", "--json"], home)
    assert proc.returncode == 4
    doc = one_document(proc.stdout)
    assert doc["error"]["path"] == str(home / blocker)
    assert "is a file where msd needs a folder" in doc["error"]["message"]
    assert (
        proc.stderr.strip().splitlines()[-1].startswith(f"msd-install: error: {home / blocker}: ")
    )
    assert snapshot(home) == before
