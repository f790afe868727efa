"""A pack's hooks on every event a runtime has: registered under the runtime's own name for
that event; on an event the runtime lacks, a note in the report (text and ``--json``) naming
the pack's hook file, the event and the runtime, never silently left out; an event no runtime
knows (a typo) is refused up front."""

from __future__ import annotations

import json
import re
from pathlib import Path

from packkit import make_pack

from helpers import REPO, run_cli, snapshot

# Claude Code's events beyond the three MSD Core uses, each with a script of its own
EVENTS = ("Stop", "UserPromptSubmit", "Notification", "SubagentStop", "PreCompact", "SessionEnd")
# events of Claude Code's settings schema the pack format did not accept before
NEWER = ("PostToolUseFailure", "PermissionDenied", "SubagentStart", "PostCompact")


def _script(event: str) -> str:
    return f"on-{event.lower()}.sh"


def _pack(tmp_path: Path, events: tuple[str, ...] = EVENTS) -> Path:
    hooks = {
        event: [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": f"${{CLAUDE_PLUGIN_ROOT}}/hooks/{_script(event)}",
                    }
                ]
            }
        ]
        for event in events
    }
    extra: dict[str, str | bytes] = {"hooks/hooks.json": json.dumps({"hooks": hooks})}
    extra.update({f"hooks/{_script(e)}": "#!/bin/sh\ncat >/dev/null\n" for e in events})
    return make_pack(tmp_path / "acme", extra=extra)


def _commands(settings: dict[str, object], event: str) -> list[str]:
    groups = settings["hooks"][event]  # type: ignore[index]
    return [h["command"] for g in groups for h in g["hooks"]]  # type: ignore[union-attr]


def test_every_claude_code_event_of_a_pack_is_registered(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    proc = run_cli(["--claude", "--global", "--yes", "--payload", str(_pack(tmp_path))], home)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    settings = json.loads((home / ".claude/settings.json").read_text())
    for event in EVENTS:
        commands = _commands(settings, event)
        assert len(commands) == 1 and commands[0].endswith(f'/hooks/acme/{_script(event)}"'), event
        assert (home / ".claude/hooks/acme" / _script(event)).is_file()
    assert "not registered" not in proc.stdout


def test_the_newer_claude_code_events_are_accepted_and_registered(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    pack = _pack(tmp_path, NEWER)
    proc = run_cli(["--claude", "--global", "--yes", "--payload", str(pack)], home)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    settings = json.loads((home / ".claude/settings.json").read_text())
    for event in NEWER:
        assert _commands(settings, event)[0].endswith(f'/hooks/acme/{_script(event)}"'), event


def test_gemini_names_the_events_its_own_way(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    pack = _pack(tmp_path, ("Stop", "UserPromptSubmit", "PreCompact", "SessionEnd"))
    proc = run_cli(["--gemini", "--global", "--yes", "--payload", str(pack)], home)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    settings = json.loads((home / ".gemini/settings.json").read_text())
    native = {"Stop": "AfterAgent", "UserPromptSubmit": "BeforeAgent",
              "PreCompact": "PreCompress", "SessionEnd": "SessionEnd"}  # fmt: skip
    for event, name in native.items():
        assert any(_script(event) in c for c in _commands(settings, name)), event


def test_an_event_the_runtime_lacks_is_a_note_naming_the_hook_file(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    pack = _pack(tmp_path, ("SubagentStop", "Stop"))
    args = ["--gemini", "--global", "--yes", "--payload", str(pack)]
    proc = run_cli(args, home)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    note = (
        "pack acme: hooks/on-subagentstop.sh not registered: Gemini CLI has no SubagentStop "
        "hook event"
    )
    assert f"note: {note}" in proc.stdout
    assert "on-stop.sh not registered" not in proc.stdout  # Gemini has it (AfterAgent)
    settings = (home / ".gemini/settings.json").read_text()
    assert "on-subagentstop" not in settings
    run_cli(["--gemini", "--global", "--yes", "--uninstall", "--pack", "acme"], home)
    proc = run_cli([*args, "--json"], home)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert note in doc["results"][0]["notes"]


def test_a_typo_event_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    pack = _pack(tmp_path, ("Stop",))
    text = (pack / "hooks/hooks.json").read_text().replace('"Stop"', '"Stopp"')
    (pack / "hooks/hooks.json").write_text(text)
    before = snapshot(home)
    proc = run_cli(["--claude", "--gemini", "--global", "--yes", "--payload", str(pack)], home)
    assert proc.returncode == 2
    assert "hooks/hooks.json: unknown event 'Stopp'" in proc.stderr
    assert snapshot(home) == before


def test_the_how_to_lists_each_runtimes_events_as_the_registry_has_them() -> None:
    """docs/how-to/write-a-pack.md has a table of the events each runtime registers a pack's
    hook on: it must say what the adapters do."""
    from msd_install.runtimes.adapters import ADAPTERS

    text = (REPO / "docs/how-to/write-a-pack.md").read_text()
    rows = dict(re.findall(r"^\| ([^|`]+?) \| (.+) \|$", text, re.M))
    for name in ADAPTERS:
        adapter = ADAPTERS[name]
        cells = rows[adapter.label]
        listed = dict(re.findall(r"`(\w+)`(?: \(`([^`]+)`\))?", cells))
        want = {k: ("" if v == k else v) for k, v in adapter.hook_events.items() if v}
        assert listed == want, adapter.label


def test_kimi_does_not_claim_to_lack_an_event_it_has(tmp_path: Path) -> None:
    """Kimi registers only blocking guards; a pack's Stop hook is left out with that reason,
    not with "Kimi has no Stop setting" (Kimi has a Stop event)."""
    home = tmp_path / "home"
    home.mkdir()
    pack = _pack(tmp_path, ("Stop",))
    proc = run_cli(["--kimi", "--global", "--yes", "--payload", str(pack)], home)
    assert proc.returncode == 0, proc.stderr
    assert "note: hooks: acme-on-stop not registered: only blocking guards are registered" in (
        proc.stdout
    )
    assert "no Stop" not in proc.stdout
