"""Every hook exits 0 quietly on bad input, and never waits more than ~3 s for stdin."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hookkit import HOOKS_DIR, RunHook, base_env, tool_event

REGISTERED = sorted(
    str(h["script"])
    for h in json.loads((HOOKS_DIR / "hooks.json").read_text(encoding="utf-8"))["hooks"]
    if h["event"] is not None
)
BAD_INPUTS = {
    "empty": b"",
    "whitespace": b"  \n",
    "malformed": b'{"session_id": "abc", "tool_name": ',
    "not-json": b"hello world\n",
    "array": b"[1, 2, 3]",
    "string": b'"text"',
    "invalid-utf8": b'{"cwd": "\xff\xfe"}',
    "wrong-types": json.dumps(
        {"session_id": 7, "cwd": ["x"], "tool_name": None, "tool_input": "cat .env"}
    ).encode(),
}


@pytest.mark.parametrize("script", REGISTERED)
@pytest.mark.parametrize("kind", sorted(BAD_INPUTS))
def test_bad_stdin_exits_zero_silently(run_hook: RunHook, script: str, kind: str) -> None:
    result = run_hook(script, BAD_INPUTS[kind])
    # A JSON object with useless fields still deserves a (minimal) status line.
    expected = (
        "Claude" if script == "msd-statusline.py" and kind.endswith(("utf8", "types")) else ""
    )
    assert (result.code, result.stdout, result.stderr) == (0, expected, "")


def test_stdin_that_never_closes_times_out_after_three_seconds(
    hook_tmp: Path, runtime_root: Path
) -> None:
    # All hooks at once: each must give up on its own within the 3 s stdin timeout.
    started = time.monotonic()
    procs = {
        script: subprocess.Popen(
            [sys.executable, "-I", "-S", str(runtime_root / "hooks" / script)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=base_env(hook_tmp),
        )
        for script in REGISTERED
    }
    try:
        for proc in procs.values():
            assert proc.stdin is not None
            proc.stdin.write(b'{"session_id": "x", "partial": ')  # never completed, never closed
            proc.stdin.flush()
        for script, proc in procs.items():
            code = proc.wait(timeout=10)
            elapsed = time.monotonic() - started
            assert code == 0, script
            # 3 s of stdin timeout, then exit; the bound is the runtimes' own 10 s hook timeout
            # minus a margin for a dozen interpreters starting at once on a busy machine
            assert elapsed < 8.0, f"{script} took {elapsed:.2f}s"
            assert proc.stdout is not None and proc.stderr is not None
            assert (proc.stdout.read(), proc.stderr.read()) == (b"", b""), script
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()


def test_complete_json_is_answered_without_waiting_for_eof(
    tmp_path: Path, hook_tmp: Path, runtime_root: Path
) -> None:
    (tmp_path / ".env").write_text("API_KEY=secret\n")
    event = tool_event("PreToolUse", "Read", {"file_path": str(tmp_path / ".env")}, tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "-I", "-S", str(runtime_root / "hooks" / "msd-secret-read-guard.py")],
        stdin=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=base_env(hook_tmp),
    )
    assert proc.stdin is not None and proc.stderr is not None
    started = time.monotonic()
    proc.stdin.write(json.dumps(event).encode())
    proc.stdin.flush()  # stdin stays open, as some runtimes leave it
    try:
        assert proc.wait(timeout=10) == 2
        assert time.monotonic() - started < 2.0
        assert b"msd-secret-read-guard" in proc.stderr.read()
    finally:
        proc.stdin.close()
        proc.stderr.close()


@pytest.mark.parametrize("script", ["msd-context-monitor.py", "msd-secret-read-guard.py"])
def test_a_4mib_event_is_read_in_linear_time(
    hook_tmp: Path, runtime_root: Path, tmp_path: Path, script: str
) -> None:
    # The reader re-parsed the whole buffer at every chunk ending in "}": 4 MiB took ~10 s.
    event = tool_event("PostToolUse", "Bash", {"command": "}" * (4 << 20)}, tmp_path)
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-I", "-S", str(runtime_root / "hooks" / script)],
        input=json.dumps(event).encode(),
        capture_output=True,
        timeout=30,
        env=base_env(hook_tmp),
    )
    assert time.monotonic() - started < 2.0
    assert proc.returncode in (0, 2)  # the guard refuses a 4 MiB command as too large
