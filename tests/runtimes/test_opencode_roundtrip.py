"""OpenCode and Kilo through the real ``msd-install`` process: install, reinstall, uninstall.

The user's config is JSONC in both runtimes (comments and trailing commas allowed, CRLF kept):
our ``mcp.msd`` goes into the file the user already has, and after an uninstall every file they
had is byte-identical and nothing of ours is left.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import build, run_cli, run_json, snapshot, verbs
from msd_install.installer.jsonparse import parse

RUNTIMES = ["opencode", "kilo"]
FOLDER = {"opencode": "opencode", "kilo": "kilo"}
LOCAL_DIR = {"opencode": ".opencode", "kilo": ".kilo"}
# the file each runtime reads that a user most likely has already
USER_CONFIG = {"opencode": "opencode.jsonc", "kilo": "kilo.json"}
NEW_CONFIG = {"opencode": "opencode.json", "kilo": "kilo.jsonc"}
REGISTRY = ".local/state/msd/manifests.json"  # which manifests this user's msd-install wrote

JSONC = (
    "{\r\n"
    '  "$schema": "https://opencode.ai/config.json",\r\n'
    "  // my servers\r\n"
    '  "mcp": {\r\n'
    '    "mine": {"type": "local", "command": ["my-mcp", "--flag"], "enabled": true,},\r\n'
    "    /* a remote one */\r\n"
    '    "remote": {"type": "remote", "url": "https://example.invalid/mcp"},\r\n'
    "  },\r\n"
    '  "model": "anthropic/claude-sonnet-4-6",\r\n'
    "}"
)
MINE = {
    "agents/mine.md": "---\ndescription: my agent\nmode: subagent\n---\nMy own agent body.\n",
    "skills/mine/SKILL.md": "---\nname: mine\ndescription: my skill\n---\nMine.\n",
    "commands/mine.md": "---\ndescription: my command\n---\nDo $ARGUMENTS\n",
}


def _seed(base: Path, rt: str) -> None:
    build(base, {USER_CONFIG[rt]: JSONC, **MINE})


def _config(path: Path) -> dict[str, object]:
    value = parse(path.read_bytes().decode(), jsonc=True).value
    assert isinstance(value, dict)
    return value


@pytest.fixture()
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    return h


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    p = tmp_path / "proj"
    p.mkdir()
    return p


@pytest.mark.parametrize("rt", RUNTIMES)
def test_global_round_trip_keeps_every_user_byte(rt: str, home: Path) -> None:
    root = home / ".config" / FOLDER[rt]
    _seed(root, rt)
    before = snapshot(home)
    proc = run_cli([f"--{rt}", "--global", "--yes"], home)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    config = root / USER_CONFIG[rt]
    text = config.read_bytes().decode()
    assert "// my servers" in text and "/* a remote one */" in text and "\r\n" in text
    servers = _config(config)["mcp"]
    assert isinstance(servers, dict) and list(servers) == ["mine", "remote", "msd"]
    assert servers["msd"]["command"][1:] == [  # type: ignore[index]
        "-I", "-S", str(root / "msd-core/bin/msd-mcp")
    ]  # fmt: skip
    assert not (root / NEW_CONFIG[rt]).exists() or NEW_CONFIG[rt] == USER_CONFIG[rt]
    assert (root / "skills/msd-progress/SKILL.md").is_file()
    assert (root / "agents/msd-planner.md").is_file()
    assert not (root / "hooks").exists() and not (root / "commands/msd-progress.md").exists()
    assert "hooks not installed" in proc.stdout

    proc = run_cli([f"--{rt}", "--global", "--yes", "--uninstall"], home)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert snapshot(home) == before


@pytest.mark.parametrize("rt", RUNTIMES)
def test_local_round_trip_uses_the_runtimes_own_folder(rt: str, home: Path, project: Path) -> None:
    # a root opencode.json is read by OpenCode *and* Kilo: msd never writes there
    build(project, {"opencode.json": '{\n  "mcp": {}\n}\n', "src/app.py": "print('hi')\n"})
    _seed(project / LOCAL_DIR[rt], rt)
    home_before, project_before = snapshot(home), snapshot(project)
    proc = run_cli([f"--{rt}", "--local", "--yes"], home, cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    root = project / LOCAL_DIR[rt]
    servers = _config(root / USER_CONFIG[rt])["mcp"]
    assert isinstance(servers, dict) and "msd" in servers
    assert (project / "opencode.json").read_text() == '{\n  "mcp": {}\n}\n'
    # the home gains only msd-install's record of the manifest it wrote (gone on uninstall)
    added = sorted(set(snapshot(home)) - set(home_before))
    assert added == [".local/", ".local/state/", ".local/state/msd/", REGISTRY]
    skill = (root / "skills/msd-progress/SKILL.md").read_text()
    assert f"@{LOCAL_DIR[rt]}/msd-core/workflows/progress.md" in skill
    assert str(project) not in skill

    proc = run_cli([f"--{rt}", "--local", "--yes", "--uninstall"], home, cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert snapshot(project) == project_before
    assert snapshot(home) == home_before


@pytest.mark.parametrize("rt", RUNTIMES)
@pytest.mark.parametrize("scope", ["--global", "--local"])
def test_empty_round_trip_creates_the_runtimes_default_file(
    rt: str, scope: str, home: Path, project: Path
) -> None:
    assert run_cli([f"--{rt}", scope, "--yes"], home, cwd=project).returncode == 0
    root = (home / ".config" / FOLDER[rt]) if scope == "--global" else project / LOCAL_DIR[rt]
    created = root / NEW_CONFIG[rt]
    assert json.loads(created.read_text())["mcp"]["msd"]["type"] == "local"
    assert run_cli([f"--{rt}", scope, "--yes", "--uninstall"], home, cwd=project).returncode == 0
    assert snapshot(home) == {} and snapshot(project) == {}


@pytest.mark.parametrize("rt", RUNTIMES)
def test_reinstall_writes_nothing_and_dry_run_writes_nothing(rt: str, home: Path) -> None:
    _seed(home / ".config" / FOLDER[rt], rt)
    before = snapshot(home, stat=True)
    doc = run_json([f"--{rt}", "--global", "--yes", "--dry-run"], home)
    assert doc["results"][0]["dry_run"] is True and verbs(doc)["create"] > 100
    assert snapshot(home, stat=True) == before
    assert run_cli([f"--{rt}", "--global", "--yes"], home).returncode == 0
    installed = snapshot(home, stat=True)
    doc = run_json([f"--{rt}", "--global", "--yes"], home)
    assert set(verbs(doc)) == {"identical"}, verbs(doc)
    assert snapshot(home, stat=True) == installed


@pytest.mark.parametrize("rt", RUNTIMES)
@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{\n  "mcp": {\n', "unexpected end of file"),
        ('{\n  "mcp": {} "x": 1\n}\n', "line 2"),
        ("[1, 2]\n", "top level is not a JSON object"),
    ],
)
def test_a_config_the_runtime_cannot_parse_is_refused_with_one_line(
    rt: str, content: str, message: str, home: Path
) -> None:
    config = home / ".config" / FOLDER[rt] / USER_CONFIG[rt]
    build(config.parent, {config.name: content})
    before = snapshot(home)
    proc = run_cli([f"--{rt}", "--global", "--yes"], home)
    assert proc.returncode == 4, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert str(config) in lines[0] and message in lines[0]
    assert snapshot(home) == before


@pytest.mark.parametrize("rt", RUNTIMES)
def test_the_users_own_msd_server_is_a_conflict_and_force_gives_it_back(
    rt: str, home: Path
) -> None:
    mine = (
        '{\n  "mcp": {\n    // mine\n    "msd": {"type": "local", "command": ["my-msd"]}\n  }\n}\n'
    )
    config = home / ".config" / FOLDER[rt] / NEW_CONFIG[rt]
    build(config.parent, {config.name: mine})
    before = snapshot(home)
    proc = run_cli([f"--{rt}", "--global", "--yes"], home)
    assert proc.returncode == 1 and "conflict" in proc.stdout
    assert config.read_text() == mine
    assert run_cli([f"--{rt}", "--global", "--yes", "--force"], home).returncode == 0
    assert "my-msd" not in config.read_text()
    assert run_cli([f"--{rt}", "--global", "--yes", "--uninstall"], home).returncode == 0
    assert snapshot(home) == before


@pytest.mark.parametrize(
    ("rt", "env"), [("opencode", "OPENCODE_CONFIG_DIR"), ("kilo", "KILO_CONFIG_DIR")]
)
def test_the_runtimes_config_dir_override_is_the_global_root(
    rt: str, env: str, home: Path, tmp_path: Path
) -> None:
    own = tmp_path / "dotfiles" / rt
    proc = run_cli([f"--{rt}", "--global", "--yes"], home, **{env: str(own)})
    assert proc.returncode == 0, proc.stderr
    assert f"{env} is set: msd went into {own}" in proc.stdout
    assert (own / "skills/msd-help/SKILL.md").is_file()
    assert (own / NEW_CONFIG[rt]).is_file()
    assert sorted(snapshot(home)) == [".local/", ".local/state/", ".local/state/msd/", REGISTRY]
    help_text = (own / "skills/msd-help/SKILL.md").read_text()
    assert f"@{own}/msd-core/workflows/help.md" in help_text
    proc = run_cli([f"--{rt}", "--global", "--yes", "--uninstall"], home, **{env: str(own)})
    assert proc.returncode == 0 and snapshot(tmp_path / "dotfiles") == {}
