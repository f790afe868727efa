"""End-to-end races through real server processes, as in the issue: one MCP session edits and
reads planning documents while a second session, with MCP calls only, keeps moving the phase
directory and the todo directory away and back, and tries to move a link to the outside
(left in the workspace by a cloned repository) into their place, which ``move_file`` refuses.
Both servers share one audit log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from race_harness import (
    CANARY,
    FILE_PLANTS,
    FILE_SWAPS,
    PLANNING_PLANTS,
    PLANNING_SWAPS,
    Attacker,
    Layout,
)

from helpers import snapshot

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "mcp"))
from mcp_raw import RawServer

SERVER = [sys.executable, "-m", "msd_install.msdcore.mcp"]
PHASE = "proj/.planning/phases/01-foundation"
PLAN = ".planning/phases/01-foundation/01-01-PLAN.md"
CALLS = 300


def _env(ws: Path, audit: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MSD_")}
    env.update({"MSD_WORKSPACE": str(ws), "MSD_AUDIT_LOG": str(audit)})
    return env


def _call(server: RawServer, name: str, args: dict[str, Any]) -> dict[str, Any]:
    reply = server.request("tools/call", {"name": name, "arguments": args})
    assert "result" in reply, reply
    result: dict[str, Any] = reply["result"]
    return result


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    lay = Layout.make(tmp_path / "race")
    # A link to the outside that a cloned repository might carry; the second session can only
    # move it around, not create one.
    (lay.ws / "evil").symlink_to(lay.outside / "mirror/.planning/phases/01-canary")
    (lay.ws / "evil_pending").symlink_to(lay.outside / "mirror/.planning/todos/pending")
    return lay


def _swapper(
    server: RawServer, stop: threading.Event, errors: list[str], refused: list[str]
) -> None:
    pairs = [
        (PHASE, "parked"),
        ("evil", PHASE),
        (PHASE, "evil"),
        ("parked", PHASE),
        ("proj/.planning/todos/pending", "parked_pending"),
        ("evil_pending", "proj/.planning/todos/pending"),
        ("proj/.planning/todos/pending", "evil_pending"),
        ("parked_pending", "proj/.planning/todos/pending"),
    ]
    while not stop.is_set():
        for source, destination in pairs:
            result = _call(server, "move_file", {"source": source, "destination": destination})
            text = result["content"][0]["text"]
            if result["isError"] and "audit" in text:
                errors.append(text)
            if source.startswith("evil") and result["isError"]:
                refused.append(text)


def test_frontmatter_and_listings_never_reach_the_outside(layout: Layout, tmp_path: Path) -> None:
    audit = tmp_path / "audit" / "log.jsonl"
    env = _env(layout.ws, audit)
    victim = RawServer(SERVER, env, tmp_path / "a.log")
    attacker = RawServer(SERVER, env, tmp_path / "b.log")
    outside = snapshot(layout.outside, stat=True)
    victim.initialize()
    attacker.initialize()
    stop = threading.Event()
    audit_errors: list[str] = []
    refused: list[str] = []
    thread = threading.Thread(target=_swapper, args=(attacker, stop, audit_errors, refused))
    thread.start()
    seen: list[str] = []
    worked = 0
    try:
        for i in range(CALLS):
            for name, args in [
                ("frontmatter_set", {"file": PLAN, "key": "wave", "value": i}),
                ("frontmatter_get", {"file": PLAN}),
                ("todo_list", {}),
                ("verify_phase_completeness", {"number": "1"}),
                ("phase_list", {}),
            ]:
                result = _call(victim, name, {"project_path": "proj", **args})
                text = json.dumps(result)
                seen.append(text)
                worked += not result["isError"]
                if result["isError"] and "audit" in text:
                    audit_errors.append(text)
    finally:
        stop.set()
        thread.join(timeout=60)
        assert victim.close() == 0 and attacker.close() == 0
    assert [t for t in seen if CANARY.lower() in t.lower()] == []
    assert snapshot(layout.outside, stat=True) == outside
    assert worked > CALLS  # the victim mostly got real answers
    assert audit_errors == []  # two servers on one log never refuse each other
    verify = subprocess.run(
        [*SERVER, "verify-audit", str(audit)], capture_output=True, text=True, timeout=60
    )
    assert verify.returncode == 0, verify.stdout
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    written = {
        r["path"] for r in records if r["stage"] == "intent" and r["tool"] == "frontmatter_set"
    }
    # Every write named the workspace file it went to (the phase directory may have been parked
    # by the other session at the time), never a path through the outside link.
    assert written <= {f"{PHASE}/01-01-PLAN.md", "parked/01-01-PLAN.md"}
    assert any(r["tool"] == "move_file" for r in records)
    # the link to the outside was never moved into place (above: it is still a link, and the
    # outside is untouched); the refusals say why, as tool errors with a code: mostly
    # link_escape, and on a loaded machine also e.g. "exists" (a park of the phase directory
    # failed while the victim wrote inside it, so the destination was still taken)
    codes = [json.loads(t).get("error", {}).get("code") for t in refused]
    assert "link_escape" in codes
    assert all(isinstance(code, str) and code for code in codes), refused
    assert (layout.ws / "evil").is_symlink() and (layout.ws / "evil_pending").is_symlink()


def test_moving_a_relative_link_so_it_points_out_is_refused(layout: Layout, tmp_path: Path) -> None:
    (layout.ws / "a" / "b").mkdir(parents=True)
    (layout.ws / "a" / "b" / "up").symlink_to("../../proj")  # inside: a/b/../../proj
    (layout.ws / "a" / "abs").symlink_to(layout.outside / "secret.txt")
    (layout.ws / "a" / "in").symlink_to(layout.ws / "proj")  # absolute, inside
    server = RawServer(SERVER, _env(layout.ws, tmp_path / "log.jsonl"), tmp_path / "s.log")
    server.initialize()
    refused = _call(server, "move_file", {"source": "a/b/up", "destination": "up"})
    assert refused["isError"] and "link_escape" in refused["content"][0]["text"]
    refused = _call(server, "move_file", {"source": "a/b", "destination": "b"})  # the tree too
    assert refused["isError"] and "link_escape" in refused["content"][0]["text"]
    refused = _call(server, "move_file", {"source": "a/abs", "destination": "proj/abs"})
    assert refused["isError"] and "link_escape" in refused["content"][0]["text"]
    assert _call(server, "move_file", {"source": "a/in", "destination": "in"})["isError"] is False
    moved = _call(server, "move_file", {"source": "a/b", "destination": "c/b"})
    assert moved["isError"] is True  # 'c' does not exist
    (layout.ws / "c").mkdir()
    moved = _call(server, "move_file", {"source": "a/b", "destination": "c/b"})
    assert moved["isError"] is False  # same depth: the link still means proj
    assert os.path.realpath(layout.ws / "c" / "b" / "up") == str((layout.ws / "proj").resolve())
    assert server.close() == 0


def test_a_raw_attacker_process_against_the_real_server(layout: Layout, tmp_path: Path) -> None:
    """The stronger second session (a process that makes symlinks itself) against a real
    server: file and planning tools, reads and writes, all audited."""
    audit = tmp_path / "audit" / "log.jsonl"
    outside = snapshot(layout.outside, stat=True)
    server = RawServer(SERVER, _env(layout.ws, audit), tmp_path / "s.log")
    server.initialize()
    attacker = Attacker(layout, FILE_SWAPS + PLANNING_SWAPS, FILE_PLANTS + PLANNING_PLANTS)
    seen: list[str] = []
    try:
        for i in range(CALLS):
            for name, args in [
                ("read_text_file", {"path": "d/f.txt"}),
                ("write_file", {"path": "d/f.txt", "content": f"v{i}\n"}),
                ("directory_tree", {"max_depth": 5}),
                (
                    "frontmatter_set",
                    {"project_path": "proj", "file": PLAN, "key": "wave", "value": i},
                ),
                ("todo_list", {"project_path": "proj"}),
                ("state_update", {"project_path": "proj", "field": "current_plan", "value": i}),
            ]:
                seen.append(json.dumps(_call(server, name, args)))
    finally:
        attacker.stop()
        assert server.close() == 0
    assert attacker.swaps > 100
    assert [t for t in seen if CANARY.lower() in t.lower()] == []
    assert snapshot(layout.outside, stat=True) == outside
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    touched = {r["path"] for r in records if r["stage"] == "intent"}
    assert touched <= {
        "d/f.txt",
        f"{PHASE}/01-01-PLAN.md",
        "proj/.planning/STATE.md",
    }, touched
