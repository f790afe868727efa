"""Work grows linearly with the payload, and a reinstall with nothing to do changes nothing.

Not timing-based: a real install runs in a child process with an audit hook
(``sys.addaudithook``) counting every file opened for writing, opened for reading, created,
renamed, removed or re-moded, outside Python's own files (imports, bytecode). Payloads are
the bundled one plus N synthetic commands, read by the payload loader (``load_tree``). For
N, 2N and 4N the counts must be exactly affine in N (each command costs the same fixed
number of operations, whatever is already there: no per-file rescans), and a second run
must leave the tree byte for byte as it was, touching only its lock file.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import cli_env, snapshot

SRC = Path(__file__).resolve().parents[2] / "src" / "msd_install"
DATA = SRC / "payload" / "data"

CHILD = r"""
import json, os, sys
from functools import cache
from pathlib import Path

data, out = Path(sys.argv[1]), sys.argv[2]
skip = tuple(
    os.path.realpath(p) + os.sep
    for p in {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.argv[3]}
)
counts = {"write": 0, "read": 0, "mutate": 0}
paths = []


def outside(path):
    if not isinstance(path, (str, bytes, os.PathLike)):
        return False  # an fd
    p = os.fsdecode(path)
    return os.path.isabs(p) and os.path.realpath(p).startswith(skip)


def hook(event, args):
    if counts.get("done"):
        return
    if event == "open":
        path, mode, flags = args
        if outside(path) or path is None:
            return
        if isinstance(mode, str):
            writing = any(c in mode for c in "wax+")
        else:
            writing = bool(flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT))
        counts["write" if writing else "read"] += 1
        if writing:
            paths.append(("open", os.fsdecode(path)))
    elif event in ("os.rename", "os.remove", "os.mkdir", "os.rmdir", "os.link",
                   "os.symlink", "os.truncate", "os.chmod", "os.chown", "os.utime"):
        if not outside(args[0]):
            counts["mutate"] += 1
            paths.append((event, os.fsdecode(args[0]) if not isinstance(args[0], int) else ""))


from msd_install import payload

payload.load = cache(lambda: payload.load_tree(data))
from msd_install.cli import main

sys.addaudithook(hook)
try:
    main(sys.argv[4:])
except SystemExit as exc:
    code = exc.code
counts["done"] = 1  # audit hooks cannot be removed: stop counting
with open(out, "w") as f:
    json.dump({"counts": counts, "paths": paths, "code": code}, f)
"""


def synthetic(base: Path, commands: int) -> Path:
    """The bundled payload plus ``commands`` commands shaped like the real ones."""
    data = base / f"payload-{commands}"
    shutil.copytree(DATA, data, ignore=shutil.ignore_patterns("__pycache__"))
    for i in range(commands):
        (data / "commands" / f"msd-synth-{i:04d}.md").write_text(
            f"---\nname: msd-synth-{i:04d}\ndescription: Synthetic command {i}\n"
            'argument-hint: "[phase]"\nallowed-tools:\n  - Read\n  - Bash\n---\n'
            f"Run @~/.claude/msd-core/workflows/help.md for step {i}.\n" * 3
        )
    return data


def counted(tmp: Path, data: Path, home: Path, *args: str) -> dict[str, int]:
    script = tmp / "child.py"
    script.write_text(CHILD)
    out = tmp / "counts.json"
    proc = subprocess.run(
        [sys.executable, str(script), str(data), str(out), str(SRC), *args],
        env=cli_env(home),
        cwd=home,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    assert doc["code"] in (0, None), proc.stdout + proc.stderr
    counts: dict[str, int] = doc["counts"]
    counts.pop("done")
    counts["paths"] = doc["paths"]  # type: ignore[assignment]
    return counts


@pytest.mark.parametrize("runtime", ["claude", "codex"])
def test_filesystem_work_is_affine_in_the_number_of_commands(tmp_path: Path, runtime: str) -> None:
    sizes = (8, 16, 32)
    runs = {}
    for n in sizes:
        data = synthetic(tmp_path, n)
        home = tmp_path / f"home-{n}"
        home.mkdir()
        install = counted(tmp_path, data, home, f"--{runtime}", "--global", "--yes")
        again = counted(tmp_path, data, home, f"--{runtime}", "--global", "--yes")
        runs[n] = (install, again)
    for kind in ("write", "read", "mutate"):
        for phase in (0, 1):
            a, b, c = (runs[n][phase][kind] for n in sizes)
            assert c - b == 2 * (b - a), f"{kind} (run {phase + 1}) not linear: {a}, {b}, {c}"
            per_command = (b - a) / (sizes[1] - sizes[0])
            assert per_command <= 8, f"{kind}: {per_command} per command"
    assert runs[sizes[0]][0]["write"] > 0  # the counter sees the installer's writes


def test_a_reinstall_with_nothing_to_do_changes_nothing(tmp_path: Path) -> None:
    data = synthetic(tmp_path, 4)
    home = tmp_path / "home"
    home.mkdir()
    counted(tmp_path, data, home, "--claude", "--global", "--yes")
    before = snapshot(home)
    again = counted(tmp_path, data, home, "--claude", "--global", "--yes")
    assert snapshot(home) == before
    # the only write is the run's lock file, made and removed around the (empty) transaction
    touched = {(event, Path(path).name) for event, path in again["paths"]}  # type: ignore[union-attr]
    assert touched <= {("open", ".msd-install.lock"), ("os.remove", ".msd-install.lock")}, touched
    assert again["write"] == 1 and again["mutate"] == 1
