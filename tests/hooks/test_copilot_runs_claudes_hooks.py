"""Copilot CLI also runs the hooks of `.claude/settings.json`: Claude's copy of an msd hook
stays silent where Copilot has msd's own hooks, so each guard speaks once."""

from __future__ import annotations

from pathlib import Path

from hookkit import RunHook, base_env, tool_event


def _env(tmp_path: Path, project: Path, **extra: str) -> dict[str, str]:
    env = base_env(tmp_path)
    env.update(HOME=str(tmp_path / "home"), COPILOT_PROJECT_DIR=str(project), **extra)
    return env


def _read_env(project: Path) -> dict[str, object]:
    (project / ".env").write_text("TOKEN=x\n")
    return tool_event("PreToolUse", "Read", {"file_path": str(project / ".env")}, project)


def test_claudes_copy_is_silent_under_copilot_with_msd_hooks(
    run_hook: RunHook, tmp_path: Path
) -> None:
    project = tmp_path / "proj"
    (project / ".github/hooks").mkdir(parents=True)
    (project / ".github/hooks/msd-hooks.json").write_text("{}")
    payload = _read_env(project)
    env = _env(tmp_path, project, COPILOT_CLI="1")
    silent = run_hook("msd-secret-read-guard.py", payload, env=env)
    assert (silent.code, silent.stdout, silent.stderr) == (0, "", "")
    # Copilot's own registration (--dialect copilot) still answers
    own = run_hook("msd-secret-read-guard.py", payload, args=("--dialect", "copilot"), env=env)
    assert "deny" in own.stdout


def test_claudes_copy_still_guards_where_copilot_has_no_msd(
    run_hook: RunHook, tmp_path: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    payload = _read_env(project)
    alone = run_hook(
        "msd-secret-read-guard.py", payload, env=_env(tmp_path, project, COPILOT_CLI="1")
    )
    assert alone.code == 2 and ".env" in alone.stderr
    claude = run_hook("msd-secret-read-guard.py", payload, env=_env(tmp_path, project))
    assert claude.code == 2
