"""A JSONC settings file with a schema: the edit is validated through the JSONC parser.

Gemini CLI and Qwen Code read ``settings.json`` with comments; an entry carrying a schema must
not crash on the comments (the validator used to parse the text as strict JSON), and an edit
that breaks the schema is still refused with one line naming the file.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from msd_install.errors import ConfigFileError
from msd_install.installer import engine
from msd_install.installer.context import Context
from msd_install.installer.plan import MEMBER, ConfigEntry, Plan

USER = '{\n  // the user\'s note\n  "ui": {"theme": "Dracula"} /* inline */\n}\n'


def _plan(root: Path, value: Any) -> Plan:
    entry = ConfigEntry(
        root / "settings.json", "jsonc", MEMBER, ("mcpServers",), value, key="msd",
        schema="gemini-cli-settings", label="MCP server msd",
    )  # fmt: skip
    return Plan("gemini", "global", root, (), (entry,))


def _ctx(home: Path) -> Context:
    return Context(home=home, cwd=home, interpreter=Path(sys.executable))


def test_a_commented_file_is_edited_and_given_back(tmp_path: Path) -> None:
    root = tmp_path / ".gemini"
    root.mkdir()
    (root / "settings.json").write_text(USER)
    plan = _plan(root, {"command": "x", "args": ["-I"]})
    engine.install(plan, _ctx(tmp_path))
    text = (root / "settings.json").read_text()
    assert "// the user's note" in text and '"msd"' in text
    engine.uninstall("gemini", _ctx(tmp_path), root, plan.bounds)
    assert (root / "settings.json").read_text() == USER


def test_an_edit_that_breaks_the_schema_of_a_commented_file_is_refused(tmp_path: Path) -> None:
    root = tmp_path / ".gemini"
    root.mkdir()
    (root / "settings.json").write_text(USER)
    with pytest.raises(ConfigFileError) as caught:
        engine.install(_plan(root, {"command": 7}), _ctx(tmp_path))
    assert "gemini-cli-settings schema at mcpServers.msd.command" in str(caught.value)
    assert (root / "settings.json").read_text() == USER
