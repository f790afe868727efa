"""Review 2: ownership across upgrades, symlinked paths, backups and concurrent writers.

Upgrades are simulated with the real payload changed in-process (a hook dropped, a matcher
changed, a workflow rewritten, a new directory, the MCP server dropped), planned by the real
Claude adapter and applied by the engine; everything else drives the real CLI with HOME in a
temp dir. Behaviour that exposes a bug asserts the correct outcome, ``xfail(strict=True)``.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from helpers import build, run_cli, snapshot, uninstall_claude
from msd_install.errors import ConcurrentChangeError
from msd_install.installer import engine
from msd_install.installer.context import GLOBAL, Context
from msd_install.installer.plan import FileOp, Plan
from msd_install.payload import DataFile, Payload, load
from msd_install.runtimes import ADAPTERS

GLOBAL_ARGS = ["--claude", "--global", "--yes"]
SETTINGS = '{\n  "permissions": {"allow": ["Bash(ls)"]},\n  "model": "sonnet"\n}\n'
CLAUDE_JSON = '{\n  "numStartups": 3,\n  "mcpServers": {"theirs": {"command": "x"}}\n}\n'


snap = snapshot  # symlink-aware: links are recorded as links


def ctx_for(home: Path, **kw: Any) -> Context:
    return Context(
        home=home,
        cwd=home,
        env={},
        scope=GLOBAL,
        interpreter=Path(sys.executable),
        state_dir=home / ".state",
        **kw,
    )


def v2(payload: Payload) -> Payload:
    """A next version: one hook dropped, a matcher changed, a workflow rewritten, a new dir."""
    hooks = tuple(
        dataclasses.replace(h, matcher="Read|Edit|Write|MultiEdit")
        if h.name == "msd-read-guard"
        else h
        for h in payload.hooks
        if h.name != "msd-validate-commit"
    )
    core = tuple(
        dataclasses.replace(f, content=f.content + b"\nv2 addition\n")
        if f.relpath == "workflows/quick.md"
        else f
        for f in payload.core
    )
    extra = dataclasses.replace(core[0], relpath="playbooks/new/first.md", content=b"new in v2\n")
    return dataclasses.replace(payload, hooks=hooks, core=(*core, extra))


def v3(payload: Payload) -> Payload:
    """A version without the MCP server (its launcher is gone, so is its config entry)."""
    core = tuple(f for f in payload.core if f.relpath != "bin/msd-mcp")
    return dataclasses.replace(payload, core=core)


def install_version(home: Path, payload: Payload, **kw: Any) -> Any:
    ctx = ctx_for(home, **kw)
    return engine.install(ADAPTERS["claude"].plan(ctx, payload), ctx)


def seeded_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    build(home, {".claude/settings.json": SETTINGS, ".claude.json": CLAUDE_JSON})
    return home


@pytest.mark.parametrize(
    "versions",
    [("v1", "v2"), ("v2", "v1"), ("v1", "v3", "v2"), ("v1", "v2", "v2", "v3")],
    ids="->".join,
)
def test_upgrades_and_downgrades_then_uninstall_give_back_the_tree(
    tmp_path: Path, versions: tuple[str, ...]
) -> None:
    home = seeded_home(tmp_path)
    before = snap(home)
    payloads = {"v1": load(), "v2": v2(load()), "v3": v3(load())}
    for version in versions:
        result = install_version(home, payloads[version])
        assert not result.conflicts
    root = home / ".claude"
    if versions[-1] == "v2":
        assert (root / "msd-core/playbooks/new/first.md").read_bytes() == b"new in v2\n"
        assert not (root / "hooks/msd-validate-commit.py").exists()
        settings = (root / "settings.json").read_text()
        assert "msd-validate-commit" not in settings and "MultiEdit" in settings
    if versions[-1] == "v3":
        assert "msd" not in json.loads((home / ".claude.json").read_text())["mcpServers"]
    uninstall_claude(ctx_for(home), root)
    assert snap(home) == before


def test_upgrade_keeps_user_additions_in_settings_and_uninstall_keeps_only_them(
    tmp_path: Path,
) -> None:
    home = seeded_home(tmp_path)
    install_version(home, load())
    settings = home / ".claude/settings.json"
    doc = json.loads(settings.read_text())
    mine = {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo mine"}]}
    doc["hooks"]["PreToolUse"].insert(0, mine)
    last = doc["hooks"]["PreToolUse"][-1]  # msd-validate-commit's group: v2 drops that hook
    assert "msd-validate-commit" in last["hooks"][0]["command"]
    last["hooks"].append({"type": "command", "command": "echo in-ours"})
    doc["env"] = {"A": "1"}
    settings.write_text(json.dumps(doc, indent=4) + "\n")
    install_version(home, v2(load()))
    uninstall_claude(ctx_for(home))
    assert json.loads(settings.read_text()) == {
        "permissions": {"allow": ["Bash(ls)"]},
        "model": "sonnet",
        "hooks": {
            "PreToolUse": [
                mine,
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo in-ours"}]},
            ]
        },
        "env": {"A": "1"},
    }
    assert json.loads((home / ".claude.json").read_text()) == json.loads(CLAUDE_JSON)
    assert not (home / ".claude/msd-file-manifest.json").exists()


def test_symlinked_directories_on_the_path_of_our_files_round_trip(tmp_path: Path) -> None:
    """Dotfile managers link whole directories: ~/.claude/skills and hooks point elsewhere."""
    home = tmp_path / "home"
    dots = tmp_path / "dotfiles"
    build(dots, {"skills/mine/SKILL.md": "mine\n", "hooks/mine.sh": "echo\n"})
    (home / ".claude").mkdir(parents=True)
    (home / ".claude/skills").symlink_to(dots / "skills")
    (home / ".claude/hooks").symlink_to("../../dotfiles/hooks")  # relative link
    before_home, before_dots = snap(home), snap(dots)
    assert run_cli(GLOBAL_ARGS, home).returncode == 0
    assert (dots / "skills/msd-help/SKILL.md").is_file()
    assert (home / ".claude/skills").is_symlink() and (home / ".claude/hooks").is_symlink()
    assert run_cli(GLOBAL_ARGS, home).returncode == 0  # reinstall: identical through links
    assert run_cli([*GLOBAL_ARGS, "--uninstall"], home).returncode == 0
    assert snap(home) == before_home
    assert snap(dots) == before_dots


def test_settings_reached_through_a_chain_of_relative_links_round_trips(tmp_path: Path) -> None:
    home = tmp_path / "home"
    build(tmp_path, {"dotfiles/claude/settings.json": SETTINGS})
    (home / ".claude").mkdir(parents=True)
    (tmp_path / "dotfiles/current").symlink_to("claude/settings.json")
    (home / ".claude/settings.json").symlink_to("../../dotfiles/current")
    before = snap(tmp_path)
    assert run_cli(GLOBAL_ARGS, home).returncode == 0
    assert (home / ".claude/settings.json").is_symlink()
    assert "msd-read-guard" in (tmp_path / "dotfiles/claude/settings.json").read_text()
    assert run_cli([*GLOBAL_ARGS, "--uninstall"], home).returncode == 0
    snap_after = snap(tmp_path)
    assert snap_after == before


def test_force_over_a_link_chain_at_our_file_puts_the_first_link_back(tmp_path: Path) -> None:
    home = tmp_path / "home"
    build(tmp_path, {"dotfiles/guard.py": "print('mine')\n"})
    (tmp_path / "dotfiles/guard-link.py").symlink_to("guard.py")
    (home / ".claude/hooks").mkdir(parents=True)
    (home / ".claude/hooks/msd-read-guard.py").symlink_to(tmp_path / "dotfiles/guard-link.py")
    before = snap(tmp_path)
    assert run_cli([*GLOBAL_ARGS, "--force"], home).returncode == 0
    assert (tmp_path / "dotfiles/guard.py").read_text() == "print('mine')\n"  # not written through
    assert not (home / ".claude/hooks/msd-read-guard.py").is_symlink()
    assert run_cli([*GLOBAL_ARGS, "--uninstall"], home).returncode == 0
    assert snap(tmp_path) == before


def test_a_config_file_created_by_another_program_mid_run_is_not_overwritten(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    build(home, {".claude/settings.json": SETTINGS})  # no ~/.claude.json yet
    state = home / ".claude.json"
    ctx = ctx_for(home)
    plan = ADAPTERS["claude"].plan(ctx, load())

    def claude_code_starts(n: int) -> None:
        if n == 5:
            state.write_text('{"numStartups": 1, "userID": "abc"}\n')

    with pytest.raises(ConcurrentChangeError):
        engine.install(plan, ctx, fault=claude_code_starts)
    assert state.read_text() == '{"numStartups": 1, "userID": "abc"}\n'


def plain_plan(root: Path, files: dict[str, bytes]) -> Plan:
    return Plan("claude", "global", root, tuple(FileOp(root / k, v) for k, v in files.items()))


def test_upgrade_dropping_a_forced_file_whose_backup_is_gone_removes_ours(tmp_path: Path) -> None:
    root = tmp_path / "root"
    build(root, {"b.md": "mine\n"})
    ctx = Context(home=tmp_path, cwd=tmp_path, interpreter=Path(sys.executable), force=True)
    engine.install(plain_plan(root, {"b.md": b"ours\n", "c.md": b"c\n"}), ctx)
    (root / "msd-backups/b.md").unlink()  # the user tidied up msd-backups/
    result = engine.install(
        plain_plan(root, {"c.md": b"c\n"}), dataclasses.replace(ctx, force=False)
    )
    uninstall_claude(ctx, root)
    assert not (root / "b.md").exists()  # nothing of msd's is left behind
    assert list(root.iterdir()) == []  # the root was the user's (it held b.md): it stays
    assert ("restore", root / "b.md") not in [(a.verb, a.path) for a in result.actions]


def test_an_adopted_file_edited_later_stays_the_users(tmp_path: Path) -> None:
    root = tmp_path / "root"
    build(root, {"a.md": "v1\n"})  # the user already had exactly msd's bytes
    ctx = Context(home=tmp_path, cwd=tmp_path, interpreter=Path(sys.executable))
    engine.install(plain_plan(root, {"a.md": b"v1\n"}), ctx)
    (root / "a.md").write_bytes(b"v1 plus my notes\n")  # it is theirs: they edit it
    engine.install(plain_plan(root, {"a.md": b"v1\n"}), ctx)  # a plain reinstall
    uninstall_claude(ctx, root)
    assert (root / "a.md").read_bytes() == b"v1 plus my notes\n"


def test_uninstall_after_the_user_moved_a_created_directory_behind_a_symlink(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    dots = tmp_path / "dotfiles"
    dots.mkdir()
    home.mkdir()
    assert run_cli(GLOBAL_ARGS, home).returncode == 0
    (home / ".claude/agents").rename(dots / "agents")
    (home / ".claude/agents").symlink_to(dots / "agents")
    proc = run_cli([*GLOBAL_ARGS, "--uninstall"], home)
    assert proc.returncode == 0, proc.stderr
    assert list((dots / "agents").iterdir()) == []  # our agents are gone, through the link
    assert (home / ".claude/agents").is_symlink()  # the user's link stays


def test_payload_data_file_type_is_what_v2_builds() -> None:
    """Guard for the upgrade helpers above: they must really change the plan."""
    one, two = load(), v2(load())
    assert isinstance(two.core[-1], DataFile)
    assert {h.name for h in one.hooks} - {h.name for h in two.hooks} == {"msd-validate-commit"}
    assert len(two.core) == len(one.core) + 1


def test_upgrade_emptying_a_created_config_behind_a_dotfile_link_keeps_the_link(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "dotfiles").mkdir()
    (home / ".claude.json").symlink_to(tmp_path / "dotfiles/claude.json")  # not there yet
    before = snap(tmp_path)
    install_version(home, load())
    assert "msd" in json.loads((tmp_path / "dotfiles/claude.json").read_text())["mcpServers"]
    install_version(home, v3(load()))  # the next version has no MCP server
    assert (home / ".claude.json").is_symlink()
    assert not (tmp_path / "dotfiles/claude.json").exists()
    uninstall_claude(ctx_for(home))
    assert snap(tmp_path) == before


def test_uninstall_after_the_user_deleted_a_backup_removes_ours_and_the_backup_dir(
    tmp_path: Path,
) -> None:
    root = tmp_path / "root"
    build(root, {"b.md": "mine\n"})
    (root / "b.md").chmod(0o640)
    ctx = Context(home=tmp_path, cwd=tmp_path, interpreter=Path(sys.executable), force=True)
    engine.install(plain_plan(root, {"b.md": b"ours\n"}), ctx)
    assert ((root / "msd-backups/b.md").stat().st_mode & 0o777) == 0o600
    (root / "msd-backups/b.md").unlink()
    uninstall_claude(ctx, root)
    assert list(root.iterdir()) == []  # ours, the manifest and msd-backups/ are gone
