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


@pytest.mark.parametrize(
    ("before", "mine"),
    [
        # glued into "model: xmax_turns: 60": not YAML any more, exit 0
        ("model: x", {"model": "x", "max_turns": 60}),
        # glued into "# tuned for workmax_turns: 60": valid YAML, the user's setting silently
        # commented out, exit 0
        ("model: x\n# tuned for work", {"model": "x", "max_turns": 60}),
    ],
)
def test_uninstall_after_a_key_appended_to_a_file_that_had_no_final_newline(
    tmp_path: Path, before: str, mine: dict[str, object]
) -> None:
    """config.yaml had no final newline, so msd's block began with one. The user then appends
    a setting (an editor, ``echo >> config.yaml``). Removing the block on its own takes that
    newline with it and glues the user's last line to the new one. Before b72331c the
    whole-file check refused this splice and removed the block by its lines instead."""
    from ruamel.yaml import YAML

    home = tmp_path / "home"
    build(home, {".hermes/config.yaml": before})
    assert run_cli(HERMES, home).returncode == 0
    config = home / ".hermes/config.yaml"
    with config.open("a") as handle:
        handle.write("max_turns: 60\n")
    proc = run_cli([*HERMES, "--uninstall"], home)
    text = config.read_text()
    assert proc.returncode == 0, proc.stderr
    data = YAML(typ="safe", pure=True).load(text)
    assert {k: data.get(k) for k in mine} == mine, text
    assert "msd" not in text
