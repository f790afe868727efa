"""The runtime matrix in the docs is generated from the registry and may not drift."""

from __future__ import annotations

import os

from helpers import REPO
from msd_install.runtimes import RUNTIMES, matrix_markdown

DOC = REPO / "docs/reference/runtimes.md"


def test_runtime_matrix_matches_the_registry() -> None:
    text = matrix_markdown()
    if os.environ.get("MSD_REGEN_DOCS") == "1":
        DOC.write_text(text)
    assert DOC.read_text() == text, "run: MSD_REGEN_DOCS=1 bash scripts/test tests/docs"
    for name in RUNTIMES:
        assert f"`--{name}`" in text
    assert "| `--claude` | Claude Code | `~/.claude` | `./.claude` |" in text
    assert "- **global** into `~/.claude`: `agents/` (10)" in text


def test_readme_has_exactly_the_two_setup_commands() -> None:
    readme = (REPO / "README.md").read_text()
    block = readme.split("## Set up", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    commands = [ln for ln in block.splitlines() if ln.strip() and not ln.startswith("#")]
    assert commands == [
        "python3 -m venv .venv && .venv/bin/pip install -q . && .venv/bin/msd-install --claude "
        "--global --yes",
        "bash scripts/test",
    ]
    assert "bash scripts/test" in (REPO / ".ci/run").read_text()
