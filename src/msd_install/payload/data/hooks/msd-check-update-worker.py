#!/usr/bin/env python3
"""msd-check-update-worker — background helper of msd-check-update (never registered).

Compares the installed version (`<root>/msd-core/VERSION`, root = this file's parent's parent)
with the latest msd-install release on PyPI (`info.version` of the JSON API; env
MSD_UPDATE_URL overrides the address, http(s) only) and writes
`<root>/msd-core/cache/msd-update-check.json`: {installed, latest, update_available, checked}.
Silent in every case: offline, timeouts (3 s) and bad answers leave the cache untouched.
"""

from __future__ import annotations

import json
import os
import re
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_URL = "https://pypi.org/pypi/msd-install/json"
TIMEOUT = 3.0
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


def fetch_latest(url: str, installed: str) -> str | None:
    if not url.startswith(("https://", "http://")):
        return None
    import urllib.request

    request = urllib.request.Request(
        url,
        headers={"Accept": "application/json", "User-Agent": f"msd-install/{installed}"},
    )
    with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
        body = response.read(4 * 1024 * 1024)
    info = json.loads(body.decode("utf-8")).get("info")
    version = info.get("version") if isinstance(info, dict) else None
    return version if isinstance(version, str) and version_key(version) else None


def write_cache(record: dict[str, object]) -> None:
    folder = os.path.join(ROOT, "msd-core", "cache")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "msd-update-check.json")
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(record, handle)
    os.replace(tmp, path)


def main() -> None:
    with open(os.path.join(ROOT, "msd-core", "VERSION"), encoding="utf-8") as handle:
        installed = handle.read().strip()
    if not version_key(installed):
        return
    latest = fetch_latest(os.environ.get("MSD_UPDATE_URL") or DEFAULT_URL, installed)
    if latest is None:
        return
    write_cache(
        {
            "installed": installed,
            "latest": latest,
            "update_available": newer(latest, installed),
            "checked": int(time.time()),
        }
    )


if __name__ == "__main__":
    try:
        main()
    except BaseException:
        os._exit(0)  # offline, timeout, bad JSON, unwritable cache: silent (the hook retries)
    os._exit(0)
