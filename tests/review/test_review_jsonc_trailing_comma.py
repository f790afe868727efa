"""Review: ``jsonedit._without_only_member`` keeps a trailing comma as if it were a comment.

OpenCode's opencode.json is JSONC with trailing commas. msd appends its server after the
user's last member, so the user's trailing comma now follows msd's entry. Once the user
deletes their own server, msd's is the only member and no interior was recorded; removal keeps
everything after it, comma included, and the result ``{,`` does not parse: the uninstall is
refused ("expected a property name ... line 2, column 11", a line of the *edited* text, not
of the user's valid file), on every attempt.
"""

from __future__ import annotations

from pathlib import Path

from helpers import build, run_cli

MINE = '    "mine": {"type": "local", "command": ["mine"]},\n'


def test_uninstall_after_the_user_removed_their_own_server(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    build(project, {".opencode/opencode.json": '{\n  "mcp": {\n' + MINE + "  }\n}\n"})
    args = ["--opencode", "--local", "--yes"]
    assert run_cli(args, home, cwd=project).returncode == 0
    config = project / ".opencode/opencode.json"
    text = config.read_text()
    assert MINE in text and '"msd"' in text
    config.write_text(text.replace(MINE, ""))  # the user drops their own server
    proc = run_cli([*args, "--uninstall"], home, cwd=project)
    assert proc.returncode == 0, proc.stderr  # actual: exit 4, "cannot edit it safely"
    assert '"msd"' not in config.read_text()
