"""Two packs side by side in one root (with MSD Core): each its own manifest, each removed
alone; a pack whose names would land on another pack's files gets ``conflict``, never
their bytes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from packkit import make_pack

from helpers import build, run_cli, snapshot


def _ok(args: list[str], home: Path) -> str:
    proc = run_cli([*args, "--yes"], home)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    return proc.stdout


def test_two_packs_and_msd_core_removed_in_any_order(tmp_path: Path) -> None:
    home = tmp_path / "home"
    build(home, {".claude/settings.json": '{\n\t"model": "opus"\n}'})
    original = snapshot(home)
    acme = make_pack(tmp_path / "acme")
    beta = make_pack(tmp_path / "beta", "beta")
    claude = ["--claude", "--global"]
    _ok([*claude, "--payload", str(acme)], home)
    _ok(claude, home)
    _ok([*claude, "--payload", str(beta)], home)
    root = home / ".claude"
    manifests = sorted(p.name for p in root.glob("msd-file-manifest*.json"))
    assert manifests == [
        "msd-file-manifest.acme.json",
        "msd-file-manifest.beta.json",
        "msd-file-manifest.json",
    ]
    settings = json.loads((root / "settings.json").read_text())
    commands = [h["command"] for g in settings["hooks"]["PreToolUse"] for h in g["hooks"]]
    assert sum("hooks/acme/guard.py" in c for c in commands) == 1
    assert sum("hooks/beta/guard.py" in c for c in commands) == 1
    with_beta = snapshot(home)

    _ok([*claude, "--uninstall", "--pack", "acme"], home)
    assert not (root / "skills/acme-review").exists()
    assert (root / "skills/beta-review/SKILL.md").is_file()
    assert (root / "skills/msd-help/SKILL.md").is_file()
    # the pack went, and nothing of beta's or MSD Core's changed
    after = snapshot(home)
    for rel, value in after.items():
        if "acme" not in rel and rel.endswith((".md", ".py", ".sh", ".js", ".toml")):
            assert with_beta[rel] == value, rel

    _ok([*claude, "--uninstall"], home)
    assert (root / "skills/beta-review/SKILL.md").is_file()
    assert not (root / "msd-core").exists()
    _ok([*claude, "--uninstall", "--pack", "beta"], home)
    assert snapshot(home) == original


@pytest.mark.parametrize("force", [(), ("--force",)], ids=["plain", "force"])
def test_a_path_another_pack_owns_is_refused(tmp_path: Path, force: tuple[str, ...]) -> None:
    """Pack ``acme`` has ``commands/git/commit.md`` (acme-git-commit); pack ``acme-git`` has
    ``commands/commit.md``, the same installed name: the second install is refused, naming
    both packs and the path, and writes nothing, ``--force`` or not (force is for the user's
    files); both uninstalls then give back the original tree."""
    home = tmp_path / "home"
    build(home, {".claude/settings.json": '{"model": "opus"}\n'})
    original = snapshot(home)
    acme = make_pack(tmp_path / "acme")
    other = make_pack(
        tmp_path / "acme-git",
        "acme-git",
        extra={"commands/commit.md": "---\ndescription: theirs\n---\nOther commit.\n"},
    )
    claude = ["--claude", "--global"]
    _ok([*claude, "--payload", str(acme)], home)
    with_acme = snapshot(home)
    for dry in ((), ("--dry-run",)):
        proc = run_cli([*claude, "--yes", *force, *dry, "--payload", str(other)], home)
        assert proc.returncode == 2, proc.stdout
        lines = proc.stderr.splitlines()
        assert len(lines) == 1
        assert "/.claude/skills/acme-git-commit/SKILL.md: pack acme-git would install" in lines[0]
        assert "pack acme installed (msd-file-manifest.acme.json)" in lines[0]
        assert snapshot(home) == with_acme
    doc = json.loads(
        run_cli([*claude, "--yes", *force, "--json", "--payload", str(other)], home).stdout
    )
    assert doc["exit_code"] == 2 and "pack acme installed" in doc["error"]["message"]
    assert snapshot(home) == with_acme
    _ok([*claude, "--uninstall", "--pack", "acme-git"], home)
    _ok([*claude, "--uninstall", "--pack", "acme"], home)
    assert snapshot(home) == original


def test_dry_run_and_check_for_a_pack(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    acme = make_pack(tmp_path / "acme")
    dry = run_cli(["--claude", "--global", "--dry-run", "-v", "--payload", str(acme)], home)
    assert dry.returncode == 0
    assert "create    ~/.claude/skills/acme-review/SKILL.md" in dry.stdout
    assert list(home.iterdir()) == []
    check = run_cli(["--claude", "--global", "--check", "--payload", str(acme)], home)
    assert check.returncode == 1
    _ok(["--claude", "--global", "--payload", str(acme)], home)
    (home / ".claude/acme/templates/pr.md").write_text("edited\n")
    check = run_cli(["--claude", "--global", "--check", "--payload", str(acme)], home)
    assert check.returncode == 1
    assert "acme/templates/pr.md" in check.stdout
