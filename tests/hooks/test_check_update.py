"""msd-check-update + worker against a local index server (never the network)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from hookkit import RunHook, base_env

CACHE = Path("msd-core") / "cache" / "msd-update-check.json"


class Index(BaseHTTPRequestHandler):
    latest = "9.9.9"
    requests = 0

    def do_GET(self) -> None:
        Index.requests += 1
        body = json.dumps({"info": {"name": "msd-install", "version": self.latest}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def index_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Index)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/pypi/msd-install/json"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def closed_url() -> str:
    with socket.socket() as sock:  # bind then close: nothing listens on that port
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/pypi/msd-install/json"


@pytest.fixture
def installed(runtime_root: Path) -> Path:
    (runtime_root / "msd-core" / "cache").mkdir(parents=True)  # as an install makes it
    (runtime_root / "msd-core" / "VERSION").write_text("0.1.0\n")
    return runtime_root


def run_worker(root: Path, tmp: Path, url: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-I", "-S", str(root / "hooks" / "msd-check-update-worker.py")],
        capture_output=True,
        timeout=20,
        env={**base_env(tmp), "MSD_UPDATE_URL": url},
    )


def session_start(cwd: Path) -> dict[str, str]:
    return {
        "session_id": "s-1",
        "transcript_path": str(cwd / "t.jsonl"),
        "cwd": str(cwd),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }


def test_worker_writes_cache_from_index(installed: Path, hook_tmp: Path, index_url: str) -> None:
    proc = run_worker(installed, hook_tmp, index_url)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    cache = json.loads((installed / CACHE).read_text())
    assert cache["installed"] == "0.1.0"
    assert cache["latest"] == "9.9.9"
    assert cache["update_available"] is True
    assert abs(cache["checked"] - time.time()) < 60


class Trickle(BaseHTTPRequestHandler):
    """An index that answers one byte every half second: each read succeeds in time."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "100000")
        self.end_headers()
        try:
            for _ in range(120):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.5)
        except OSError:
            pass  # the worker gave up and closed the connection

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def trickle_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Trickle)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/pypi/msd-install/json"
    finally:
        server.shutdown()
        server.server_close()


def test_worker_offline_is_silent_and_remembers_the_failure(
    installed: Path, hook_tmp: Path, closed_url: str
) -> None:
    proc = run_worker(installed, hook_tmp, closed_url)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    cache = json.loads((installed / CACHE).read_text())
    assert (cache["installed"], cache["failures"]) == ("0.1.0", 1)
    assert abs(cache["retry_after"] - cache["checked"] - 900) < 2
    assert "latest" not in cache


def test_a_trickling_server_cannot_keep_the_worker_past_its_deadline(
    installed: Path, hook_tmp: Path, trickle_url: str
) -> None:
    # Each read got a byte within the old per-read 3 s timeout: the worker stayed for minutes.
    started = time.monotonic()
    proc = run_worker(installed, hook_tmp, trickle_url)
    assert time.monotonic() - started < 6.0
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    assert json.loads((installed / CACHE).read_text())["failures"] == 1


def test_failures_back_off_and_keep_the_last_known_answer(
    installed: Path, hook_tmp: Path, index_url: str, closed_url: str
) -> None:
    run_worker(installed, hook_tmp, index_url)
    delays = []
    for expected in (1, 2, 3):
        run_worker(installed, hook_tmp, closed_url)
        cache = json.loads((installed / CACHE).read_text())
        assert cache["failures"] == expected
        assert (cache["latest"], cache["update_available"]) == ("9.9.9", True)
        delays.append(cache["retry_after"] - cache["checked"])
    assert delays == [900, 1800, 3600]
    run_worker(installed, hook_tmp, index_url)
    assert json.loads((installed / CACHE).read_text())["failures"] == 0


def test_hook_does_not_ask_again_before_retry_after(
    run_hook: RunHook, installed: Path, tmp_path: Path, index_url: str
) -> None:
    (installed / CACHE).parent.mkdir(parents=True, exist_ok=True)
    now = int(time.time())
    failed = {"installed": "0.1.0", "checked": now, "failures": 1, "retry_after": now + 900}
    (installed / CACHE).write_text(json.dumps(failed))
    env = {"MSD_UPDATE_URL": index_url}
    before = Index.requests
    assert run_hook("msd-check-update.py", session_start(tmp_path), env=env).code == 0
    time.sleep(1.5)
    assert Index.requests == before  # within the back-off: no worker, no request
    (installed / CACHE).write_text(json.dumps({**failed, "retry_after": now - 1}))
    assert run_hook("msd-check-update.py", session_start(tmp_path), env=env).code == 0
    deadline = time.monotonic() + 15
    while Index.requests == before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert Index.requests == before + 1  # due again: one new check


def test_worker_same_version_is_not_an_update(
    installed: Path, hook_tmp: Path, index_url: str
) -> None:
    (installed / "msd-core" / "VERSION").write_text("9.9.9")
    run_worker(installed, hook_tmp, index_url)
    assert json.loads((installed / CACHE).read_text())["update_available"] is False


def test_hook_returns_at_once_and_worker_fills_cache_in_background(
    run_hook: RunHook, installed: Path, tmp_path: Path, index_url: str
) -> None:
    started = time.monotonic()
    result = run_hook(
        "msd-check-update.py", session_start(tmp_path), env={"MSD_UPDATE_URL": index_url}
    )
    assert (result.code, result.stdout, result.stderr) == (0, "", "")
    assert time.monotonic() - started < 2.5
    deadline = time.monotonic() + 15
    while not (installed / CACHE).exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert json.loads((installed / CACHE).read_text())["latest"] == "9.9.9"
    # Next session: the fresh cache announces the update (Claude and Gemini shapes alike).
    answer = run_hook("msd-check-update.py", session_start(tmp_path)).json()
    assert answer["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    text = answer["hookSpecificOutput"]["additionalContext"]
    assert "msd-install 9.9.9" in text and "0.1.0" in text and "/msd-update" in text
    assert answer["systemMessage"] == text
    gemini = run_hook("msd-check-update.py", session_start(tmp_path), args=("--dialect", "gemini"))
    assert gemini.json()["hookSpecificOutput"]["additionalContext"] == text
    # Auggie shows only the systemMessage, to the user (its SessionStart context never reaches
    # the agent), and reads additionalContext at the top level
    augment = run_hook(
        "msd-check-update.py", session_start(tmp_path), args=("--dialect", "augment")
    )
    assert augment.json() == {"additionalContext": text, "systemMessage": text}


def test_hook_offline_stays_silent(
    run_hook: RunHook, installed: Path, tmp_path: Path, closed_url: str
) -> None:
    result = run_hook(
        "msd-check-update.py", session_start(tmp_path), env={"MSD_UPDATE_URL": closed_url}
    )
    assert (result.code, result.stdout, result.stderr) == (0, "", "")
    deadline = time.monotonic() + 15
    while not (installed / CACHE).exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert json.loads((installed / CACHE).read_text())["failures"] == 1  # remembered, silently


def test_cache_about_another_installed_version_is_ignored(
    run_hook: RunHook, installed: Path, tmp_path: Path, closed_url: str
) -> None:
    (installed / CACHE).parent.mkdir(parents=True, exist_ok=True)
    stale = {
        "installed": "0.0.9",
        "latest": "0.1.0",
        "update_available": True,
        "checked": time.time(),
    }
    (installed / CACHE).write_text(json.dumps(stale))
    result = run_hook(
        "msd-check-update.py", session_start(tmp_path), env={"MSD_UPDATE_URL": closed_url}
    )
    assert result.stdout == ""


def test_a_worker_that_outlives_the_install_makes_nothing_again(
    installed: Path, tmp_path: Path, index_url: str
) -> None:
    """The worker runs for seconds in the background: an uninstall in the meantime removed
    the cache folder (and maybe msd-core/ itself), and the answer is then dropped, never
    written into a folder made again (a trace of msd after its uninstall)."""
    (installed / "msd-core" / "cache").rmdir()
    proc = run_worker(installed, tmp_path, index_url)
    assert proc.returncode == 0 and proc.stdout == b"" and proc.stderr == b""
    assert sorted(p.name for p in (installed / "msd-core").iterdir()) == ["VERSION"]
