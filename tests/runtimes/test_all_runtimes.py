"""All 16 runtimes at once, as CI provisioning runs them: ``--all`` in, ``--all`` out.

Empty home, a home where every runtime's config files already hold the user's own entries,
and a git project with ``--all --local``: after the uninstall every byte is as it was and
nothing new remains (``git status`` is clean).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from golden import context

from helpers import build, run_cli, run_json, snapshot
from msd_install.installer.context import GLOBAL, LOCAL, Context
from msd_install.payload import load
from msd_install.runtimes import ADAPTERS

SEEDS = {
    "json": '{\n  "userSetting": {"keep": [1, 2, 3]}\n}\n',
    "jsonc": '{\n  // the user\'s own\n  "userSetting": {"keep": true}\n}\n',
    "json-comments": '{\n  // the user\'s own\n  "userSetting": {"keep": true}\n}\n',
    "toml": '# the user\'s own\n[user_table]\nkeep = "yes"\n',
    "yaml": "# the user's own\nuser_setting:\n  keep: yes\n",
}


def _config_files(ctx: Context) -> dict[Path, str]:
    """Every config file any runtime edits in this context, with its format."""
    found: dict[Path, str] = {}
    for runtime in ADAPTERS.values():
        if ctx.scope not in runtime.scopes:
            continue
        for entry in runtime.plan(ctx, load()).entries:
            found.setdefault(entry.file, entry.fmt)
    return found


def test_all_global_into_an_empty_home_and_out_leaves_it_empty(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    doc = run_json(["--all", "--global", "--yes"], home)
    assert doc["exit_code"] == 0
    assert {r["runtime"] for r in doc["results"]} == set(ADAPTERS)
    assert len(snapshot(home)) > 16 * 100
    doc = run_json(["--all", "--global", "--uninstall", "--yes"], home)
    assert doc["exit_code"] == 0
    assert snapshot(home) == {}


def test_runtimes_sharing_a_folder_can_leave_one_at_a_time_in_any_order(tmp_path: Path) -> None:
    """OpenCode and Kilo share ``~/.config``, Antigravity lives inside Gemini's ``~/.gemini``:
    whichever install made the shared folder, the last uninstall that empties it removes it,
    and a file the user put there in the meantime keeps it."""
    runtimes = ["opencode", "kilo", "gemini", "antigravity"]
    for order in (runtimes, runtimes[::-1], ["kilo", "gemini", "opencode", "antigravity"]):
        home = tmp_path / "-".join(order)
        home.mkdir()
        for name in runtimes:
            assert run_cli([f"--{name}", "--global", "--yes"], home).returncode == 0
        for name in order:
            proc = run_cli([f"--{name}", "--global", "--yes", "--uninstall"], home)
            assert proc.returncode == 0, proc.stderr
        assert snapshot(home) == {}, order
    home = tmp_path / "user-file"
    home.mkdir()
    for name in ("opencode", "kilo"):
        assert run_cli([f"--{name}", "--global", "--yes"], home).returncode == 0
    assert run_cli(["--opencode", "--global", "--yes", "--uninstall"], home).returncode == 0
    build(home, {".config/git/config": "[user]\n"})
    assert run_cli(["--kilo", "--global", "--yes", "--uninstall"], home).returncode == 0
    assert snapshot(home) == {
        ".config/": "0o755",
        ".config/git/": "0o755",
        ".config/git/config": (b"[user]\n", "0o644"),
    }


def test_all_global_with_every_config_seeded_gives_back_every_byte(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    fake = context(GLOBAL)
    seeded = {}
    for path, fmt in _config_files(fake).items():
        rel = path.relative_to(fake.home).as_posix()
        seeded[rel] = SEEDS[fmt]
    assert len(seeded) >= 16
    build(home, seeded)
    before = snapshot(home)
    assert run_cli(["--all", "--global", "--yes"], home).returncode == 0
    for rel, text in seeded.items():
        now = (home / rel).read_text()
        assert now != text, rel  # each runtime really edited its file
        assert "keep" in now, rel
    assert run_cli(["--all", "--global", "--uninstall", "--yes"], home).returncode == 0
    assert snapshot(home) == before


def test_all_local_in_a_git_project_leaves_git_status_clean(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    build(project, {"README.md": "# a project\n", "src/app.py": "print('hi')\n"})
    for args in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"],
    ):
        subprocess.run(["git", *args], cwd=project, check=True)
    home_before, project_before = snapshot(home), snapshot(project)
    doc = run_json(["--all", "--local", "--yes"], home, cwd=project)
    assert doc["exit_code"] == 0
    locals_ = {n for n, r in ADAPTERS.items() if LOCAL in r.scopes}
    assert {r["runtime"] for r in doc["results"]} == locals_
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=project, capture_output=True, text=True
    )
    assert status.stdout.strip()  # the install is visible to git...
    assert run_cli(["--all", "--local", "--uninstall", "--yes"], home, cwd=project).returncode == 0
    status = subprocess.run(
        ["git", "status", "--porcelain", "--ignored"], cwd=project, capture_output=True, text=True
    )
    assert status.stdout == ""  # ...and gone without a trace
    assert snapshot(project) == project_before
    assert snapshot(home) == home_before


def test_every_file_an_adapter_writes_is_inside_its_root() -> None:
    """One manifest per root owns exactly the files under that root (installer/manifestcheck)."""
    outside = []
    for scope in (GLOBAL, LOCAL):
        ctx = context(scope)
        for name, runtime in ADAPTERS.items():
            if scope not in runtime.scopes:
                continue
            plan = runtime.plan(ctx, load())
            outside += [f"{name} {scope}: {op.path}" for op in plan.files
                        if not op.path.is_relative_to(plan.root)]  # fmt: skip
    assert outside == []
