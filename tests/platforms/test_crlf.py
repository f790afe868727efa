"""A config file saved with Windows line endings keeps them: every line msd adds ends in CRLF
too, a second run is ``identical``, and uninstall gives back the very bytes (one file per
config format msd edits: JSON, JSONC, JSON with comments, TOML, YAML)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import build, run_json, snapshot_but_registry, verbs

SEEDS = {
    "claude": (
        ".claude/settings.json",
        '{\n  "model": "opus",\n  "hooks": {"Stop": [{"hooks": [{"type": "command", '
        '"command": "echo bye"}]}]}\n}\n',
    ),
    "opencode": (
        ".config/opencode/opencode.jsonc",
        '{\n  // mine\n  "mcp": {"db": {"type": "local", "command": ["db-mcp"]}},\n}',
    ),
    "gemini": (
        ".gemini/settings.json",
        '{\n  /* mine */\n  "ui": {"theme": "Dracula"}\n}\n',
    ),
    "codex": (
        ".codex/config.toml",
        '# mine\nmodel = "gpt-6"\n\n[mcp_servers.db]\ncommand = "db-mcp"\n',
    ),
    "hermes": (
        ".hermes/config.yaml",
        "# mine\nmodel:\n  default: x\nterminal:\n  backend: local",
    ),
}


@pytest.mark.parametrize("runtime", sorted(SEEDS))
def test_crlf_config_round_trip(tmp_path: Path, runtime: str) -> None:
    home = tmp_path / "home"
    rel, text = SEEDS[runtime]
    original = text.replace("\n", "\r\n").encode()
    build(home, {rel: original})
    before = snapshot_but_registry(home)
    doc = run_json([f"--{runtime}", "--global", "--yes"], home)
    assert doc["exit_code"] == 0, doc
    edited = (home / rel).read_bytes()
    assert edited != original and b"msd" in edited
    assert edited.count(b"\n") == edited.count(b"\r\n"), edited  # no bare LF anywhere
    assert set(verbs(run_json([f"--{runtime}", "--global", "--yes"], home))) == {"identical"}
    run_json([f"--{runtime}", "--global", "--uninstall", "--yes"], home)
    assert (home / rel).read_bytes() == original
    assert snapshot_but_registry(home) == before
