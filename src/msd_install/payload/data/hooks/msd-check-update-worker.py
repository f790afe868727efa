#!/usr/bin/env python3
"""msd-check-update-worker — background helper of msd-check-update (never registered).

Compares the installed version (`<root>/msd-core/VERSION`, root = this file's parent's parent)
with the latest msd-install release on PyPI (`info.version` of the JSON API; env
MSD_UPDATE_URL overrides the address, http(s) only) and writes
`<root>/msd-core/cache/msd-update-check.json`:
- after an answer: {installed, latest, update_available, checked, failures: 0};
- after a failure (offline, an error, a bad answer, or no answer within DEADLINE seconds
  for the whole check, however slowly the server trickles bytes): {installed, checked,
  failures: n, retry_after} plus the last known latest/update_available, so that the next
  sessions do not contact the index again before retry_after (15 min, doubling to 6 h).
Silent in every case; it never runs longer than DEADLINE seconds.
"""

from __future__ import annotations

import json
import os
import re
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.join(ROOT, "msd-core", "cache", "msd-update-check.json")
DEFAULT_URL = "https://pypi.org/pypi/msd-install/json"
DEADLINE = 3.0  # seconds for the whole check: connect, TLS, headers and body together
BACKOFF = (900, 1800, 3600, 7200, 14400, 21600)  # wait after the 1st, 2nd, … failure in a row
_VERSION = re.compile(r"\s*v?(\d+(?:\.\d+)*)(.*)$")


def version_key(text: str) -> tuple[tuple[int, ...], int] | None:
    """Orderable key: numeric release, then pre-release (0) < final (1) < post-release (2)."""
    match = _VERSION.match(text)
    if not match:
        return None
    release = [int(part) for part in match.group(1).split(".")]
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    suffix = match.group(2).strip().lower().lstrip(".-_")
    rank = 1 if not suffix else 2 if suffix.startswith(("post", "rev")) else 0
    return tuple(release), rank


def newer(latest: str, installed: str) -> bool:
    new, old = version_key(latest), version_key(installed)
    return new is not None and old is not None and new > old


def fetch_latest(url: str, installed: str, deadline: float) -> str | None:
    if not url.startswith(("https://", "http://")):
        return None
    import urllib.request

    request = urllib.request.Request(
        url,
        headers={"Accept": "application/json", "User-Agent": f"msd-install/{installed}"},
    )
    left = max(0.1, deadline - time.monotonic())
    with urllib.request.urlopen(request, timeout=left) as response:
        body = response.read(4 * 1024 * 1024)
    info = json.loads(body.decode("utf-8")).get("info")
    version = info.get("version") if isinstance(info, dict) else None
    return version if isinstance(version, str) and version_key(version) else None


def previous_record() -> dict[str, object]:
    try:
        with open(CACHE, encoding="utf-8") as handle:
            record = json.load(handle)
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


def failure_record(installed: str, previous: dict[str, object]) -> dict[str, object]:
    """A failed check, remembered with a back-off; the last known answer is kept."""
    now = int(time.time())
    same = previous.get("installed") == installed
    count = previous.get("failures") if same else 0
    failures = min(99, (count if isinstance(count, int) and count > 0 else 0) + 1)
    record: dict[str, object] = {
        "installed": installed,
        "checked": now,
        "failures": failures,
        "retry_after": now + BACKOFF[min(failures, len(BACKOFF)) - 1],
    }
    if same and isinstance(previous.get("latest"), str):
        record["latest"] = previous["latest"]
        record["update_available"] = previous.get("update_available") is True
    return record


def write_cache(record: dict[str, object]) -> None:
    # the install made the cache folder: none means msd was uninstalled meanwhile (this runs
    # for seconds in the background), and nothing is made again (FileNotFoundError: silent)
    tmp = f"{CACHE}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(record, handle)
    os.replace(tmp, CACHE)


def main() -> None:
    import threading

    with open(os.path.join(ROOT, "msd-core", "VERSION"), encoding="utf-8") as handle:
        installed = handle.read().strip()
    if not version_key(installed):
        return
    deadline = time.monotonic() + DEADLINE
    previous = previous_record()
    lock, done = threading.Lock(), [False]

    def finish(record: dict[str, object]) -> None:
        with lock:  # the first of the answer and the watchdog wins
            if done[0]:
                return
            done[0] = True
            try:
                write_cache(record)
            except OSError:
                return  # an unwritable cache: the hook simply asks again next session

    def give_up() -> None:
        finish(failure_record(installed, previous))
        os._exit(0)  # a server still trickling bytes does not keep this process alive

    watchdog = threading.Timer(DEADLINE, give_up)
    watchdog.daemon = True
    watchdog.start()
    try:
        latest = fetch_latest(os.environ.get("MSD_UPDATE_URL") or DEFAULT_URL, installed, deadline)
    except Exception:
        latest = None
    if latest is None:
        finish(failure_record(installed, previous))
        return
    finish(
        {
            "installed": installed,
            "latest": latest,
            "update_available": newer(latest, installed),
            "checked": int(time.time()),
            "failures": 0,
        }
    )


if __name__ == "__main__":
    try:
        main()
    except BaseException:
        os._exit(0)  # unreadable VERSION or cache: silent (the hook retries next session)
    os._exit(0)
