"""Review: a comment the user writes inside a container msd filled is lost on uninstall.

Gemini's settings.json is JSON with comments. When msd inserts into an empty ``mcpServers``
it records the container's old interior; uninstall, finding msd's member the only one, puts
that recorded interior back wholesale, so any comment the user added there since (next to
msd's entry) is dropped.
"""

from __future__ import annotations

from pathlib import Path

from helpers import build, run_cli

BEFORE = '{\n  "mcpServers": {\n    // servers of mine go here\n  }\n}\n'
NOTE = "// ask Ana before removing msd"


def test_a_comment_written_next_to_msds_only_entry_survives_uninstall(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    build(project, {".gemini/settings.json": BEFORE})
    args = ["--gemini", "--local", "--yes"]
    assert run_cli(args, home, cwd=project).returncode == 0
    settings = project / ".gemini/settings.json"
    text = settings.read_text()
    assert '"msd":' in text
    # the user documents msd's entry in their own words, inside the same object
    settings.write_text(text.replace('"msd":', f'{NOTE}\n    "msd":', 1))
    proc = run_cli([*args, "--uninstall"], home, cwd=project)
    assert proc.returncode == 0, proc.stderr
    after = settings.read_text()
    assert '"msd"' not in after
    assert NOTE in after, after  # actual: only the comment from before install is left
