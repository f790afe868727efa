"""The msd-tools contract the payload relies on is what the real msd-tools accepts.

The integrity test checks payload text against the hard-coded contract in payload_corpus; this
test checks the contract against the real CLI, run the way a runtime runs it: the launcher from
a copied ``<root>/msd-core/{bin,lib}`` tree under ``python -I -S``. So a subcommand renamed on
either side fails here.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from payload_corpus import CORE, MSD_TOOLS, WORKFLOWS, workflow_path

MSDCORE = CORE.parents[2] / "msdcore"

CALLS = [
    (sub, action)
    for sub, actions in sorted(MSD_TOOLS.items())
    for action in (sorted(actions) if actions else [None])
]


@pytest.fixture(scope="module")
def launcher(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("root") / "msd-core"
    (root / "bin").mkdir(parents=True)
    shutil.copy2(CORE / "bin" / "msd-tools", root / "bin" / "msd-tools")
    shutil.copytree(MSDCORE, root / "lib" / "msdcore", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(CORE / "templates", root / "templates")
    return root / "bin" / "msd-tools"


def run(launcher: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-I", "-S", str(launcher), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


# Runs many msd-tools invocations in ONE interpreter (process start-up dominates otherwise):
# argv[1] is the copied lib dir, each further argv is a JSON list of arguments.
PROBE = """
import contextlib, io, json, sys
sys.path.insert(0, sys.argv[1])
from msdcore.tools_cli import main
results = []
for raw in sys.argv[2:]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        try:
            code = main(json.loads(raw))
        except SystemExit as exc:
            code = exc.code
    results.append([code, out.getvalue()])
sys.stdout.write(json.dumps(results))
"""


def probe(launcher: Path, calls: list[list[str]], cwd: Path) -> list[tuple[int, str]]:
    lib = launcher.parent.parent / "lib"
    argv = [json.dumps(c) for c in calls]
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", PROBE, str(lib), *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return [(code, out) for code, out in json.loads(done.stdout)]


def test_every_contract_call_exists(launcher: Path, tmp_path: Path) -> None:
    calls = [[sub, action, "--help"] if action else [sub, "--help"] for sub, action in CALLS]
    results = probe(launcher, calls, tmp_path)
    bad = [
        c
        for c, (code, out) in zip(calls, results, strict=True)
        if code != 0 or "usage" not in out.lower()
    ]
    assert bad == []


def test_unknown_action_is_a_usage_error(launcher: Path, tmp_path: Path) -> None:
    done = run(launcher, "state", "frobnicate", cwd=tmp_path)
    assert done.returncode == 2
    [(code, _)] = probe(launcher, [["state", "frobnicate"]], tmp_path)
    assert code == 2


def init_calls(workflow: str) -> list[list[str]]:
    """The `msd-tools init ...` calls written in a workflow, placeholders replaced by phase 1."""
    text = workflow_path(workflow).read_text(encoding="utf-8")
    calls = []
    for m in re.finditer(r"bin/msd-tools (init [^\n`]*)", text):
        calls.append(["1" if a.startswith("<") else a for a in m.group(1).split()])
    return calls


@pytest.fixture(scope="module")
def project(launcher: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-phase project made with msd-tools itself, as new-project would leave it."""
    root = tmp_path_factory.mktemp("project")
    for template in ("project", "roadmap", "state"):
        done = run(
            launcher, "template", "fill", f"{template}.md", "--out",
            f".planning/{template.upper()}.md", "--var", "project_name=Demo", cwd=root,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout
    assert run(launcher, "phase", "add", "Foundation", cwd=root).returncode == 0
    return root


def test_every_workflow_init_call_answers(launcher: Path, project: Path) -> None:
    """Each workflow's own `init` call, run as written, gives that workflow's context."""
    calls = {w: init_calls(w) for w in WORKFLOWS if w != "help"}
    assert [w for w, c in calls.items() if not c] == [], "workflows that never call init"
    flat = [(w, args) for w, cs in calls.items() for args in cs]
    results = probe(launcher, [args for _, args in flat], project)
    for (workflow, args), (code, out) in zip(flat, results, strict=True):
        assert code == 0, (args, out)
        data = json.loads(out)
        assert data["workflow"] == workflow
        assert data["project_exists"] is True
