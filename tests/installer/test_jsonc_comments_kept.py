"""A user's comments inside a container that held nothing else (`"mcpServers": { /* x */ }`,
`"BeforeTool": [ // keep me ]`) stay in the installed file, and come back byte for byte on
uninstall, even when the record of what the container held is gone because the user deleted
our first entry and a later run added it back."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import run_cli
from msd_install.installer.jsonedit import JsonDocument

EMPTIES = [
    "{ /* keep x */ }",
    "{\n  // keep me\n}",
    "{\r\n  // keep me\r\n}",
    "[ /* a */ /* b */ ]",
    "[\n  // one\n  /* two */\n]",
    "{}",
    "[ ]",
    "{\n}",
]


@pytest.mark.parametrize("empty", EMPTIES)
def test_insert_keeps_the_comments_and_removal_gives_back_every_byte(empty: str) -> None:
    text = '{"a": ' + empty + "}"
    doc = JsonDocument(text, jsonc=True)
    is_object = empty.startswith("{")
    if is_object:
        edited, inserted = doc.add_member(("a",), "msd", {"command": "x"})
    else:
        edited, inserted = doc.append_item(("a",), {"command": "x"})
    for comment in ("keep x", "keep me", "/* a */ /* b */", "// one", "/* two */"):
        assert (comment in text) == (comment in edited.text)
    assert edited.node(("a",)) is not None
    back = (
        edited.remove_member(("a",), "msd", inserted.interior)
        if is_object
        else edited.remove_item(("a",), 0, inserted.interior)
    )
    assert back.text == text


@pytest.mark.parametrize("empty", EMPTIES)
def test_an_unrecorded_interior_still_keeps_the_comments(empty: str) -> None:
    """The only member goes with no interior on record: comments stay, the text parses, and a
    container written over several lines (the usual case) comes back exactly."""
    text = '{"a": ' + empty + "}"
    doc = JsonDocument(text, jsonc=True)
    if empty.startswith("{"):
        edited, _ = doc.add_member(("a",), "msd", {"command": "x"})
        back = edited.remove_member(("a",), "msd", None)
    else:
        edited, _ = doc.append_item(("a",), {"command": "x"})
        back = edited.remove_item(("a",), 0, None)
    if "/" not in empty:
        assert back.text == '{"a": ' + empty[0] + empty[-1] + "}"
    elif "\n" in empty:
        assert back.text == text
    else:  # one line: the comments stay, on a line of their own before the bracket
        assert back.text.replace("\n", " ") == text
    assert JsonDocument(back.text, jsonc=True).node(("a",)) is not None


def test_a_line_comment_never_swallows_the_closing_bracket() -> None:
    """Ours sat on the comment's line end; when it goes the bracket gets a line of its own."""
    text = '{"a": [\n  // keep me\n  {"command": "x"}]}'
    back = JsonDocument(text, jsonc=True).remove_item(("a",), 0, None)
    assert back.text == '{"a": [\n  // keep me\n]}'
    assert JsonDocument(back.text, jsonc=True).value(("a",)) == []


GEMINI = (
    '{\n  "mcpServers": { /* keep x */ },\n  "hooks": {\n    "BeforeTool": [\n'
    "      // keep me\n    ]\n  }\n}\n"
)


def test_gemini_keeps_the_comments_installed_and_after_a_lost_first_entry(tmp_path: Path) -> None:
    home = tmp_path / "home"
    settings = home / ".gemini/settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(GEMINI)
    args = ["--gemini", "--global", "--yes"]
    assert run_cli(args, home).returncode == 0
    installed = settings.read_text()
    assert '"mcpServers": { /* keep x */\n    "msd": {' in installed
    assert '"BeforeTool": [\n      // keep me\n      {' in installed
    # the user deletes our first BeforeTool entry (the one that recorded the comment)
    doc = JsonDocument(installed, jsonc=True)
    settings.write_text(doc.remove_item(("hooks", "BeforeTool"), 0).text)
    assert run_cli(args, home).returncode == 0
    assert run_cli([*args, "--uninstall"], home).returncode == 0
    assert settings.read_text() == GEMINI


SWITCHES = {
    "claude": (".claude/settings.json", '{"disableAllHooks": true}\n', "disableAllHooks is true"),
    "gemini": (
        ".gemini/settings.json",
        '{"hooksConfig": {"enabled": false}}\n',
        "hooksConfig.enabled is false",
    ),
    "qwen": (".qwen/settings.json", '{"disableAllHooks": true}\n', "disableAllHooks is true"),
}


@pytest.mark.parametrize("runtime", list(SWITCHES))
def test_hooks_switched_off_by_the_user_are_installed_and_said(
    tmp_path: Path, runtime: str
) -> None:
    """The user's switch stays as it is; the run says that msd's hooks will not run."""
    rel, text, setting = SWITCHES[runtime]
    home = tmp_path / "home"
    (home / rel).parent.mkdir(parents=True)
    (home / rel).write_text(text)
    args = [f"--{runtime}", "--global", "--yes"]
    proc = run_cli(args, home)
    assert proc.returncode == 0, proc.stderr
    assert f"note: hooks: {setting} in settings.json" in proc.stdout
    assert "secret-read guard" in proc.stdout
    assert text.strip()[1:-1] in (home / rel).read_text()  # their switch, untouched
    assert "msd-secret-read-guard" in (home / rel).read_text()
    again = run_cli(args, home)  # a rerun says it again: it is still true
    assert f"note: hooks: {setting}" in again.stdout
    assert run_cli([*args, "--uninstall"], home).returncode == 0
    assert (home / rel).read_text() == text
    (home / rel).unlink()
    quiet = run_cli(args, home)
    assert quiet.returncode == 0 and "runs none of msd's hooks" not in quiet.stdout
