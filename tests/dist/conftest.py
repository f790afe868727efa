"""The wheel and the sdist, built once per session from this source tree with ``python -m build``
(isolated: the build backend comes from the index, as it does for a user)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from distkit import Built, build


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    from helpers import REPO

    out = tmp_path_factory.mktemp("dist")
    started = time.monotonic()
    # --sdist --wheel builds both straight from the tree; the sdist's own wheel is built by
    # test_sdist_builds_the_same_wheel, so the two routes are compared, not one taken twice.
    build(["--sdist", "--wheel"], REPO, out)
    (wheel,) = out.glob("*.whl")
    (sdist,) = out.glob("*.tar.gz")
    return Built(wheel=wheel, sdist=sdist, seconds=time.monotonic() - started)


@pytest.fixture
def tools(tmp_path: Path) -> Path:
    """Where pipx, uv and pip keep their homes and caches for one test (never the user's)."""
    path = tmp_path / "tools"
    path.mkdir()
    return path
