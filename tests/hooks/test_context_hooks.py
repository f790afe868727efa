"""msd-statusline writes the context bridge; msd-context-monitor turns it into warnings."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from hookkit import RunHook, tool_event

SESSION = "3f2a9c1e-7b4d-4e8a-9c21-5d6e7f809a1b"


def status_input(cwd: Path, **window: Any) -> dict[str, Any]:
    return {
        "hook_event_name": "Status",
        "session_id": SESSION,
        "transcript_path": str(cwd / "t.jsonl"),
        "cwd": str(cwd),
        "model": {"id": "claude-opus-4-1", "display_name": "Opus"},
        "workspace": {"current_dir": str(cwd), "project_dir": str(cwd)},
        "version": "2.1.0",
        "cost": {"total_cost_usd": 0.12},
        **({"context_window": window} if window else {}),
    }


def write_bridge(tmp: Path, remaining: float, age: float = 0) -> None:
    record = {
        "session_id": SESSION,
        "remaining_percentage": remaining,
        "used_pct": round(100 - remaining),
        "timestamp": int(time.time() - age),
    }
    (tmp / f"msd-ctx-{SESSION}.json").write_text(json.dumps(record))


def monitor(run_hook: RunHook, cwd: Path) -> str | None:
    result = run_hook("msd-context-monitor.py", tool_event("PostToolUse", "Bash", {}, cwd))
    assert result.code == 0 and result.stderr == ""
    if not result.stdout:
        return None
    assert result.json()["hookSpecificOutput"]["hookEventName"] == "PostToolUse"
    return result.context()


def test_statusline_prints_model_task_dir_bar_and_writes_bridge(
    run_hook: RunHook, tmp_path: Path, hook_tmp: Path, runtime_root: Path
) -> None:
    project = tmp_path / "shop-api"
    project.mkdir()
    todos = runtime_root / "todos"
    todos.mkdir()
    (todos / f"{SESSION}-agent-{SESSION}.json").write_text(
        json.dumps(
            [{"content": "Add tests", "status": "in_progress", "activeForm": "Adding tests"}]
        )
    )
    window = {"context_window_size": 200000, "used_percentage": 42, "remaining_percentage": 58}
    result = run_hook("msd-statusline.py", status_input(project, **window))
    assert result.code == 0
    assert result.stdout == "Opus │ Adding tests │ shop-api ████░░░░░░ 42%"
    bridge = json.loads((hook_tmp / f"msd-ctx-{SESSION}.json").read_text())
    assert bridge["session_id"] == SESSION
    assert bridge["remaining_percentage"] == 58
    assert bridge["used_pct"] == 42
    assert abs(bridge["timestamp"] - time.time()) < 30


def test_statusline_without_context_data_shows_no_bar_and_no_bridge(
    run_hook: RunHook, tmp_path: Path, hook_tmp: Path
) -> None:
    planning = tmp_path / ".planning"
    planning.mkdir()
    (planning / "STATE.md").write_text("# State\n\n## Current Position\n\nPhase: 2 of 4 (API)\n")
    result = run_hook("msd-statusline.py", status_input(tmp_path))
    assert result.stdout == f"Opus │ Phase 2 of 4 (API) │ {tmp_path.name}"
    assert list(hook_tmp.iterdir()) == []


def test_statusline_computes_usage_from_tokens_and_sanitises_session(
    run_hook: RunHook, tmp_path: Path, hook_tmp: Path
) -> None:
    usage = {"input_tokens": 50000, "cache_read_input_tokens": 100000, "output_tokens": 10}
    data = status_input(tmp_path, context_window_size=200000, current_usage=usage)
    data["session_id"] = "../../evil id"
    result = run_hook("msd-statusline.py", data)
    assert result.stdout.endswith("███████░░░ 75%")
    assert [p.name for p in hook_tmp.iterdir()] == ["msd-ctx-evilid.json"]


@pytest.mark.parametrize(
    "window",
    [
        b'{"context_window_size": 200000, "current_usage": {"input_tokens": 1' + b"0" * 400 + b"}}",
        b'{"context_window_size": 1' + b"0" * 400 + b', "current_usage": {"input_tokens": 5}}',
        b'{"remaining_percentage": NaN, "used_percentage": Infinity}',
        b'{"context_window_size": 1e308, "current_usage": {"input_tokens": 1e308,'
        b' "cache_read_input_tokens": 1e308}}',
    ],
    ids=["tokens-overflow-float", "size-overflows-float", "nan-and-infinity", "sum-overflows"],
)
def test_statusline_survives_numbers_a_float_cannot_hold(
    run_hook: RunHook, tmp_path: Path, window: bytes
) -> None:
    raw = json.dumps(status_input(tmp_path)).encode()
    payload = raw[:-1] + b', "context_window": ' + window + b"}"
    result = run_hook("msd-statusline.py", payload)
    assert result.code == 0 and result.stderr == ""
    assert result.stdout.startswith("Opus") and tmp_path.name in result.stdout


def test_statusline_colours_unless_no_color(run_hook: RunHook, tmp_path: Path) -> None:
    result = run_hook(
        "msd-statusline.py", status_input(tmp_path, used_percentage=90), env={"NO_COLOR": ""}
    )
    assert "\x1b[5;31m█████████░ 90%\x1b[0m" in result.stdout


def test_monitor_quiet_above_35_and_without_bridge(
    run_hook: RunHook, tmp_path: Path, hook_tmp: Path
) -> None:
    assert monitor(run_hook, tmp_path) is None  # no bridge at all
    write_bridge(hook_tmp, 36)
    assert monitor(run_hook, tmp_path) is None


@pytest.mark.parametrize(
    ("remaining", "level"), [(35, "WARNING"), (26, "WARNING"), (25, "CRITICAL")]
)
def test_monitor_thresholds(
    run_hook: RunHook, tmp_path: Path, hook_tmp: Path, remaining: int, level: str
) -> None:
    write_bridge(hook_tmp, remaining)
    text = monitor(run_hook, tmp_path)
    assert text is not None and f"— {level}:" in text
    assert f"{remaining}% " in text


def test_monitor_debounces_five_tool_uses_and_escalation_bypasses(
    run_hook: RunHook, tmp_path: Path, hook_tmp: Path
) -> None:
    write_bridge(hook_tmp, 30)
    seen = [monitor(run_hook, tmp_path) is not None for _ in range(7)]
    assert seen == [True, False, False, False, False, True, False]
    write_bridge(hook_tmp, 20)  # WARNING -> CRITICAL: at once
    text = monitor(run_hook, tmp_path)
    assert text is not None and "CRITICAL" in text
    assert monitor(run_hook, tmp_path) is None  # CRITICAL repeats are debounced too


def test_monitor_ignores_stale_bridge(run_hook: RunHook, tmp_path: Path, hook_tmp: Path) -> None:
    write_bridge(hook_tmp, 10, age=61)
    assert monitor(run_hook, tmp_path) is None
    write_bridge(hook_tmp, 10, age=5)
    assert monitor(run_hook, tmp_path) is not None


def test_monitor_opt_out_and_advisory_wording(
    run_hook: RunHook, tmp_path: Path, hook_tmp: Path
) -> None:
    write_bridge(hook_tmp, 10)
    text = monitor(run_hook, tmp_path)
    assert text is not None
    assert "STOP" not in text and "must" not in text.lower()
    (tmp_path / ".planning").mkdir()
    config = {"hooks": {"context_warnings": False}}
    (tmp_path / ".planning" / "config.json").write_text(json.dumps(config))
    assert monitor(run_hook, tmp_path) is None


def test_statusline_feeds_monitor_end_to_end(
    run_hook: RunHook, tmp_path: Path, hook_tmp: Path
) -> None:
    run_hook("msd-statusline.py", status_input(tmp_path, remaining_percentage=22))
    text = monitor(run_hook, tmp_path)
    assert text is not None and "CRITICAL" in text and "78%" in text


def test_monitor_gemini_dialect(run_hook: RunHook, tmp_path: Path, hook_tmp: Path) -> None:
    write_bridge(hook_tmp, 30)
    event = tool_event("AfterTool", "run_shell_command", {}, tmp_path)
    answer = run_hook("msd-context-monitor.py", event).json()
    assert answer["hookSpecificOutput"]["hookEventName"] == "AfterTool"
    assert "WARNING" in answer["hookSpecificOutput"]["additionalContext"]
