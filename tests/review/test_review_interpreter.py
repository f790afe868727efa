"""Review: the interpreter a global install registers (installer/interpreter.py).

A pyenv shim is recognised by comparing its folder with ``$HOME + "/.pyenv/shims"`` as text.
A HOME written with a trailing slash (``HOME=/home/jane/``, common in Dockerfiles and some
login setups) gives ``/home/jane//.pyenv/shims``: the shim is no longer recognised and is
registered in every hook command, which the module promises never to do.
"""

from __future__ import annotations

import pytest

from msd_install.installer.interpreter import Probe, choose_interpreter

REAL = "/home/jane/.pyenv/versions/3.12.4/bin/python3"
SHIM = "/home/jane/.pyenv/shims/python3"


@pytest.mark.parametrize("home", ["/home/jane/", "/home/jane//"])
def test_a_pyenv_shim_is_never_registered_whatever_the_spelling_of_home(home: str) -> None:
    probe = Probe(lambda p: p, lambda p: p in {REAL, SHIM}, lambda p: None)
    chosen = choose_interpreter(
        platform="linux",
        env={"HOME": home},
        executable=SHIM,
        base_executable=None,
        version=(3, 12, 4),
        probe=probe,
    )
    assert chosen == REAL  # actual with "/home/jane/": the shim itself
