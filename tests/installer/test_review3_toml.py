"""Codex's config.toml after the user edited around and inside msd's table, through the CLI.

When the user changed the text of ``[mcp_servers.msd]`` (a comment in it, a new value), the
exact inserted text is gone and removal falls back to the table's span. Before: that span ran
up to the next header, so the user's own comment heading the table they wrote after ours was
deleted with it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import build, run_cli

CODEX = ["--codex", "--global", "--yes"]
SEED = '# my codex config\nmodel = "o3"\n\n[tui]\nnotifications = true\n'
THEIRS = '\n# ---- my profiles (hand-written) ----\n[profiles.fast]\nmodel = "o4-mini"\n'


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(lambda t: t.replace("args = [", "# keep msd quiet\nargs = ["), id="comment"),
        pytest.param(
            lambda t: t.replace("args = [", "startup_timeout_sec = 30\nargs = ["), id="value"
        ),
    ],
)
def test_removing_an_edited_msd_table_keeps_the_users_comments_after_it(
    tmp_path: Path, edit: object
) -> None:
    home = tmp_path / "home"
    build(home, {".codex/config.toml": SEED})
    assert run_cli(CODEX, home).returncode == 0
    config = home / ".codex/config.toml"
    assert callable(edit)
    config.write_text(edit(config.read_text()) + THEIRS)
    proc = run_cli([*CODEX, "--uninstall"], home)
    assert proc.returncode == 0, proc.stderr
    assert config.read_text() == SEED + THEIRS


def test_a_users_own_msd_table_with_a_date_is_a_conflict_not_a_crash(tmp_path: Path) -> None:
    """TOML dates have no JSON type: hashing the user's table crashed every run (exit 3)."""
    home = tmp_path / "home"
    mine = '[mcp_servers.msd]\ncommand = "mine"\nadded = 2024-01-01\n'
    build(home, {".codex/config.toml": mine})
    proc = run_cli(CODEX, home)
    assert (proc.returncode, proc.stderr) == (1, "")  # 1: a conflict left msd's server out
    assert "conflict  ~/.codex/config.toml  (MCP server msd: an entry of yours is there" in (
        proc.stdout
    )
    assert (home / ".codex/config.toml").read_text() == mine
