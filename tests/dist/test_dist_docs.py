"""The how-to and the README show the wheel commands exactly as tests/dist runs them, and
nothing else: a command in the how-to that no test runs fails here."""

from __future__ import annotations

import re
import shlex

from distkit import INSTALL, PIPX_RUN, UNINSTALL, UVX, VENV_BY_PIP, VENV_BY_UV, WHEEL

from helpers import REPO

HOWTO = REPO / "docs/how-to/install-from-a-wheel.md"
VENV_INSTALLER = "msd-venv/bin/msd-install"
RUN_BY_TESTS = [
    [*PIPX_RUN, *INSTALL],
    [*PIPX_RUN, *UNINSTALL],
    [*UVX, *INSTALL],
    [*UVX, *UNINSTALL],
    *VENV_BY_PIP,
    [VENV_INSTALLER, *INSTALL],
    ["rm", "-rf", "msd-venv"],  # shutil.rmtree in test_dist_venv_deleted
    *VENV_BY_UV,
    [VENV_INSTALLER, *UNINSTALL],
]
# the session fixture runs `python -m build` (into a temp folder); build comes from the test
# extra there, as `pip install build` brings it here
BUILD = [["python3", "-m", "pip", "install", "build"], ["python3", "-m", "build"]]


def bash_lines(text: str) -> list[str]:
    blocks = re.findall(r"```bash\n(.*?)```", text, re.DOTALL)
    return [ln for block in blocks for ln in block.splitlines() if ln.strip()]


def test_the_how_to_shows_exactly_the_commands_the_tests_run() -> None:
    text = HOWTO.read_text(encoding="utf-8")
    lines = bash_lines(text)
    assert sorted(set(lines)) == sorted({shlex.join(a) for a in [*RUN_BY_TESTS, *BUILD]})
    names = set(re.findall(r"msd_install-[^\s`/]+?(?:\.whl|\.tar\.gz)", text))
    assert names == {WHEEL, WHEEL.split("-py3")[0] + ".tar.gz"}


def test_the_readme_shows_the_pipx_and_uvx_forms() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for argv in ([*PIPX_RUN, *INSTALL], [*UVX, *INSTALL]):
        assert f"`{shlex.join(argv)}`" in readme
    assert "docs/how-to/install-from-a-wheel.md" in readme
