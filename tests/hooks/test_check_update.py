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

    def do_GET(self) -> None:
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
    (runtime_root / "msd-core").mkdir()
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


def test_worker_is_silent_offline(installed: Path, hook_tmp: Path, closed_url: str) -> None:
    proc = run_worker(installed, hook_tmp, closed_url)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    assert not (installed / CACHE).exists()


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


def test_hook_offline_stays_silent(
    run_hook: RunHook, installed: Path, tmp_path: Path, closed_url: str
) -> None:
    result = run_hook(
        "msd-check-update.py", session_start(tmp_path), env={"MSD_UPDATE_URL": closed_url}
    )
    assert (result.code, result.stdout, result.stderr) == (0, "", "")
    time.sleep(1.0)
    assert not (installed / CACHE).exists()


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
