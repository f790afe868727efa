"""A YAML text nested deeper than libyaml's C parser survives (it dies of SIGSEGV, exit 139,
with no message) is refused in one line before any parser sees it (``yamldepth``): a
Hermes ``config.yaml`` of the user's; the pack side is in tests/packs/test_pack_limits.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import run_cli, snapshot
from msd_install.yamldepth import MAX_FLOW_DEPTH, too_deep


@pytest.mark.parametrize(
    "deep",
    [
        "foo: " + "{a: " * 30_000 + "}" * 30_000,
        "list:\n  " + "- " * 30_000 + "x",  # block entries opened on one line
        "list:\n  " + "? " * 30_000 + "x",
    ],
    ids=["flow", "block-sequence", "complex-keys"],
)
def test_a_config_yaml_nested_too_deeply_is_one_line(tmp_path: Path, deep: str) -> None:
    config = tmp_path / ".hermes" / "config.yaml"
    config.parent.mkdir()
    config.write_text("model: x\n" + deep + "\n")
    before = snapshot(tmp_path)
    proc = run_cli(["--hermes", "--global", "--yes"], tmp_path)
    assert proc.returncode == 4, proc.stdout + proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and str(config) in lines[0], proc.stderr
    assert f"nested more than {MAX_FLOW_DEPTH} levels deep" in lines[0]
    assert snapshot(tmp_path) == before


def test_depth_is_counted_over_brackets_and_braces() -> None:
    assert not too_deep("a: [1, {b: [2]}]\n")
    assert not too_deep("[" * 1000 + "]" * 1000)
    assert too_deep("[" * 1001)
    assert too_deep("{a: " * 600 + "[" * 401)
    assert not too_deep("[]" * 5000)  # many, never deep
    assert too_deep("- " * 1001 + "x") and not too_deep("- " * 999 + "x")
    assert too_deep("- &a-b !t " * 600 + "x")  # anchors and tags between the entries
    assert not too_deep("key: a - b - c\n" * 5000)  # dashes in a value open nothing
