"""``config get|set``: defaults (absent = enabled), dotted keys, validation, bytes on disk."""

from __future__ import annotations

import json
from pathlib import Path

from msdtools_util import fails, ok


def test_absent_keys_take_the_defaults(tmp_path: Path) -> None:
    (tmp_path / ".planning").mkdir()
    (tmp_path / ".planning/config.json").write_text('{"workflow": {"research": false}}\n')
    assert ok(tmp_path, "config", "get", "workflow.research") == {
        "key": "workflow.research",
        "value": False,
        "source": "file",
    }
    for key in (
        "workflow.plan_check",
        "workflow.verifier",
        "workflow.nyquist_validation",
        "commit_docs",
        "hooks.context_warnings",
    ):
        assert ok(tmp_path, "config", "get", key)["value"] is True, key
        assert ok(tmp_path, "config", "get", key)["source"] == "default"
    assert ok(tmp_path, "config", "get", "hooks.workflow_guard")["value"] is False
    assert ok(tmp_path, "config", "get", "hooks.validate_commit")["value"] is False
    assert ok(tmp_path, "config", "get", "git.branching_strategy")["value"] == "none"
    whole = ok(tmp_path, "config", "get")["value"]
    assert whole["workflow"] == {
        "research": False,
        "plan_check": True,
        "verifier": True,
        "nyquist_validation": True,
    }


def test_no_config_file_at_all(tmp_path: Path) -> None:
    (tmp_path / ".planning").mkdir()
    assert ok(tmp_path, "config", "get", "mode")["value"] == "interactive"


def test_set_writes_json_and_keeps_other_keys(project: Path) -> None:
    path = project / ".planning/config.json"
    data = json.loads(path.read_text())
    data["custom"] = {"kept": [1, 2]}
    path.write_text(json.dumps(data))
    doc = ok(project, "config", "set", "workflow.research", "false")
    assert doc["value"] is False and doc["previous"] is True
    ok(project, "config", "set", "model_profile", "budget")
    ok(project, "config", "set", "context_window", "1000000")
    saved = json.loads(path.read_text())
    assert saved["workflow"]["research"] is False and saved["custom"] == {"kept": [1, 2]}
    assert saved["model_profile"] == "budget" and saved["context_window"] == 1000000
    assert path.read_text().endswith("}\n")


def test_set_refuses_unknown_keys_and_bad_values(project: Path) -> None:
    path = project / ".planning/config.json"
    before = path.read_bytes()
    assert "workflow.research" in fails(
        project, "config", "set", "workflow.reserch", "false", code="unknown_key"
    )
    fails(project, "config", "set", "workflow", "{}", code="unknown_key")
    fails(project, "config", "set", "commit_docs", "maybe", code="invalid_value")
    fails(project, "config", "set", "context_window", "true", code="invalid_value")
    fails(project, "config", "set", "mode", "fast", code="invalid_value")
    fails(project, "config", "get", "nope.nothing", code="unknown_key")
    assert path.read_bytes() == before


def test_broken_config_is_reported_not_overwritten(project: Path) -> None:
    path = project / ".planning/config.json"
    path.write_text('{"mode": "yolo",}')
    msg = fails(project, "config", "get", "mode", code="invalid_config")
    assert msg.startswith(".planning/config.json: not valid JSON")
    fails(project, "config", "set", "mode", "yolo", code="invalid_config")
    assert path.read_text() == '{"mode": "yolo",}'
    path.write_text("[]")
    fails(project, "config", "get", code="invalid_config")


def test_set_needs_a_project(tmp_path: Path) -> None:
    fails(tmp_path, "config", "set", "mode", "yolo", code="no_project")
