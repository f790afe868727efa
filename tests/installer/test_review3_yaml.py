"""Hermes' config.yaml with anchors, aliases and merge keys, through the real CLI.

Every edit either round-trips byte for byte or is refused with one line (exit 4) and nothing
written. Before: an alias made the install change the anchor and every other alias of it
(silently, exit 0); a recursive alias and a merge-only mapping crashed (exit 3); a few lines
of nested aliases hung the run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import build, run_cli, snapshot

HERMES = ["--hermes", "--global", "--yes"]
LAUGHS = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 9)
)
REFUSED = {
    # mcp_servers is the anchor's own mapping: adding msd there adds it to `servers` and to
    # profiles.work too
    "alias": (
        "servers: &srv\n  github:\n    command: npx\nmcp_servers: *srv\n"
        "profiles:\n  work:\n    mcp_servers: *srv\n",
        "the edit would change other entries of the file",
    ),
    "recursive alias": (
        "x: &a {y: *a}\nmcp_servers: {}\n",
        "nested too deeply (or a recursive alias)",
    ),
    "nested aliases": (LAUGHS, "its aliases stand for more than 200000 values"),
    "merge key only": (
        "base: &b\n  github:\n    command: npx\nmcp_servers:\n  <<: *b\n",
        "a mapping holding only a merge key (<<) cannot be added to here",
    ),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_a_config_yaml_msd_cannot_edit_without_changing_it_is_refused_in_one_line(
    tmp_path: Path, name: str
) -> None:
    text, why = REFUSED[name]
    home = tmp_path / "home"
    build(home, {".hermes/config.yaml": text})
    before = snapshot(home)
    proc = run_cli(HERMES, home)
    assert proc.returncode == 4, (proc.returncode, proc.stderr)
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and str(home / ".hermes/config.yaml") in lines[0], proc.stderr
    assert why in lines[0]
    assert snapshot(home) == before


EDITABLE = {
    # the merge brings github in; msd joins the mapping's own keys, the anchor is untouched
    "merge key with own keys": (
        "base: &b\n  github:\n    command: npx\nmcp_servers:\n  <<: *b\n  own:\n    command: mine\n"
    ),
    # an anchored value used elsewhere, but not on msd's path
    "alias beside": (
        "defaults: &d\n  timeout: 30\nmcp_servers:\n  github:\n    command: npx\n"
        "    <<: *d\nterminal: *d\n"
    ),
    # nan is nan: was refused, since nan != nan
    "nan": "threshold: .nan\nmcp_servers:\n  github:\n    command: npx\n",
}


@pytest.mark.parametrize("name", list(EDITABLE))
def test_anchors_beside_msd_entries_round_trip_byte_for_byte(tmp_path: Path, name: str) -> None:
    home = tmp_path / "home"
    build(home, {".hermes/config.yaml": EDITABLE[name]})
    before = snapshot(home)
    proc = run_cli(HERMES, home)
    assert proc.returncode == 0, proc.stderr
    text = (home / ".hermes/config.yaml").read_text()
    assert "msd:" in text and text.startswith(EDITABLE[name].split("mcp_servers:")[0])
    proc = run_cli([*HERMES, "--uninstall"], home)
    assert proc.returncode == 0, proc.stderr
    assert snapshot(home) == before


ORDINARY = {
    # a date is a YAML type JSON has none for: hashing the user's hook crashed (exit 3)
    "a date in a user's hook": (
        "hooks:\n  pre_tool_call:\n  - matcher: terminal\n    command: my-guard\n"
        "    since: 2024-01-01\n"
    ),
    # every item commented out leaves a null: it was "not an array" (exit 4)
    "a hook list with every item commented out": (
        "hooks:\n  pre_tool_call:\n  # - matcher: terminal\n  #   command: old-guard\nmodel: x\n"
    ),
    # valid YAML (the later anchor wins): ruamel's warning went to stderr, five lines
    "a reused anchor": "a: &x 1\nb: &x 2\nc: *x\n",
    "keys that are not strings": "limits:\n  1: one\n  ? [a, b]\n  : pair\nmcp_servers: {}\n",
    # an explicit null was "the edit would not be valid YAML here" (exit 4)
    "explicit nulls": "model: x\nmcp_servers: null  # none yet\nhooks: ~\n",
}


@pytest.mark.parametrize("name", list(ORDINARY))
def test_ordinary_hermes_configs_install_and_round_trip_quietly(tmp_path: Path, name: str) -> None:
    home = tmp_path / "home"
    build(home, {".hermes/config.yaml": ORDINARY[name]})
    before = snapshot(home)
    proc = run_cli(HERMES, home)
    assert (proc.returncode, proc.stderr) == (0, "")
    assert "msd-secret-read-guard" in (home / ".hermes/config.yaml").read_text()
    proc = run_cli([*HERMES, "--uninstall"], home)
    assert (proc.returncode, proc.stderr) == (0, "")
    assert snapshot(home) == before
