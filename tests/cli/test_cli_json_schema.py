"""Every ``--json`` document msd-install prints, on success, drift, doctor and each kind of
error, is valid against the JSON Schema published in docs/reference/json-output.schema.json,
and so are the examples in docs/reference/json-output.md."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from helpers import REPO, build, run_cli
from msd_install import cli, errors
from msd_install.installer import recovery, report
from msd_install.runtimes import RUNTIMES

SCHEMA_PATH = REPO / "docs/reference/json-output.schema.json"
PAGE = REPO / "docs/reference/json-output.md"


def schema() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(SCHEMA_PATH.read_text())
    return doc


def validate(doc: dict[str, Any]) -> None:
    jsonschema.Draft202012Validator(schema()).validate(doc)


def one_document(args: list[str], home: Path, code: int, **env: str) -> dict[str, Any]:
    proc = run_cli([*args, "--json"], home, **env)
    assert proc.returncode == code, proc.stderr
    doc: dict[str, Any] = json.loads(proc.stdout)  # exactly one document, nothing else
    assert doc["exit_code"] == code
    validate(doc)
    return doc


def test_the_schema_is_a_valid_schema_and_names_what_the_code_has() -> None:
    jsonschema.Draft202012Validator.check_schema(schema())
    defs = schema()["$defs"]
    assert defs["verb"]["enum"] == list(report.VERBS)
    assert defs["runtime"]["enum"] == list(RUNTIMES)
    assert schema()["properties"]["format"] == {"const": cli.JSON_FORMAT}

    def names(cls: type) -> set[str]:
        return {cls.__name__}.union(*(names(sub) for sub in cls.__subclasses__()))

    assert recovery.JournalError  # every error class the CLI can name as error.kind
    kinds = set(defs["error"]["properties"]["kind"]["enum"])
    assert names(errors.MsdError) - {"MsdError"} <= kinds


def test_success_conflict_check_dry_run_uninstall_and_doctor_documents(tmp_path: Path) -> None:
    home = tmp_path / "h"
    build(home, {".codex/skills/msd-help/SKILL.md": "mine\n"})
    everything = ["--all", "--global", "--yes"]
    assert one_document([*everything, "--dry-run"], home, 1)["results"][0]["dry_run"] is True
    doc = one_document(everything, home, 1)  # 1: the user's msd-help is in codex's way
    (codex,) = [r for r in doc["results"] if r["runtime"] == "codex"]
    assert codex["summary"]["conflict"] == 1 and codex["drift"] is True  # it wrote the rest
    assert [r["runtime"] for r in doc["results"]] == list(RUNTIMES)
    assert one_document([*everything, "--check"], home, 0)["results"][0]["drift"] is False
    (home / ".claude/skills/msd-add-phase/SKILL.md").unlink()
    drift = one_document(["--claude", "--global", "--check"], home, 1)
    assert drift["results"][0]["drift"] is True
    summary = drift["results"][0]["summary"]
    assert set(summary) == {"create", "identical"} and summary["create"] == 1
    healthy = one_document(["doctor"], home, 1)  # the missing file is a problem
    assert any(not i["healthy"] for i in healthy["installs"])
    assert one_document([*everything, "--uninstall", "--dry-run"], home, 0)
    gone = one_document([*everything, "--uninstall"], home, 0)
    assert {r["command"] for r in gone["results"]} == {"uninstall"}
    assert one_document(["doctor"], home, 0)["installs"]


@pytest.mark.parametrize(
    ("args", "code", "kind"),
    [
        (["--claude", "--global", "--bogus"], 2, "usage"),
        (["doctor", "--bogus"], 2, "usage"),
        (["--claude", "--global", "--local"], 2, "UsageError"),
        (["--claude", "--config-dir", ""], 2, "UsageError"),
    ],
)
def test_usage_error_documents(tmp_path: Path, args: list[str], code: int, kind: str) -> None:
    doc = one_document(args, tmp_path, code)
    assert doc["error"]["kind"] == kind and doc["results"] == []


def test_file_error_and_interruption_documents(tmp_path: Path) -> None:
    home = tmp_path / "h"
    build(home, {".claude/settings.json": "{\n"})
    doc = one_document(["--claude", "--global", "--yes"], home, 4)
    assert doc["error"] == {
        "kind": "ConfigFileError",
        "message": doc["error"]["message"],
        "path": str(home / ".claude/settings.json"),
    }
    (home / ".claude/settings.json").unlink()
    stopped = one_document(
        ["--claude", "--global", "--yes"], home, 130, MSD_INSTALL_TEST_SIGNAL="3:INT"
    )
    assert stopped["error"]["kind"] == "interrupted" and stopped["error"]["path"] is None


def test_the_schema_refuses_what_is_not_format_1() -> None:
    good = {"format": 1, "version": "0.1.0", "exit_code": 0, "results": []}
    validate(good)
    bad_result = {
        "command": "install", "runtime": "claude", "scope": "global", "root": "/r",
        "dry_run": False, "actions": [{"verb": "created", "path": "/r/x"}],
        "summary": {"created": 1}, "drift": True, "notes": [],
    }  # fmt: skip
    for broken in (
        {**good, "format": 2},
        {**good, "exit_code": 4},  # an error code needs an error object
        {**good, "results": [bad_result]},
        {"format": 1, "version": "0.1.0", "exit_code": 0},  # neither results nor installs
        {**good, "error": {"kind": "usage", "message": "x", "path": None}},  # exit 0
    ):
        with pytest.raises(jsonschema.ValidationError):
            validate(broken)


def test_every_example_in_the_page_is_valid() -> None:
    blocks = re.findall(r"```json\n(.*?)```", PAGE.read_text(), re.S)
    assert len(blocks) >= 4  # success, check, doctor, error
    for block in blocks:
        validate(json.loads(block))
    assert "json-output.schema.json" in PAGE.read_text()
