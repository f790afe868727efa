"""Review: YAML edits made on one top-level block (``YamlDocument._segment``/``_scoped``).

The block is found by its key line at column 0 and checked by parsing it alone; the spliced
whole file is never parsed again. A line that only looks like ``mcp_servers:`` (inside a
multi-line quoted string at column 0) is taken for the block when the real key has no line of
its own (it comes from a merge key, ``<<: *base``): msd's server is then written into the
user's string, the file is no longer valid YAML, and the run says it succeeded.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import build, run_cli, snapshot

HERMES = ["--hermes", "--global", "--yes"]
CONFIG = (
    "base: &base\n"
    "  mcp_servers: {}\n"
    "<<: *base\n"
    'system_prompt: "Answer briefly.\n'
    "mcp_servers: {}\n"
    'Never guess."\n'
)


@pytest.mark.xfail(
    strict=True,
    reason="_scoped never re-parses the whole file: a look-alike line in a string is edited",
)
def test_a_look_alike_key_line_in_a_string_is_never_edited(tmp_path: Path) -> None:
    from ruamel.yaml import YAML

    home = tmp_path / "home"
    build(home, {".hermes/config.yaml": CONFIG})
    before = snapshot(home)
    proc = run_cli(HERMES, home)
    text = (home / ".hermes/config.yaml").read_text()
    if proc.returncode != 0:  # refusing is fine: one line, nothing written
        assert proc.returncode == 4 and len(proc.stderr.splitlines()) == 1, proc.stderr
        assert snapshot(home) == before
        return
    # installed: the user's prompt is unchanged and the file is still YAML
    assert "Answer briefly.\nmcp_servers: {}\nNever guess." in text, text
    data = YAML(typ="safe", pure=True).load(text)  # actual: a ScannerError/ParserError
    assert data["system_prompt"] == "Answer briefly. mcp_servers: {} Never guess."
    assert "msd" in data["mcp_servers"]
