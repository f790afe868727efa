"""Helpers for the hook tests: the hooks dir, results, a minimal env, realistic stdin events."""

from __future__ import annotations

import atexit
import compileall
import importlib.machinery
import json
import os
import shutil
import sys
import tempfile
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

SOURCE_DIR = Path(__file__).resolve().parents[2] / "src/msd_install/payload/data/hooks"
GUARD_HELPER = "msd-secret-read-guard-shell.py"


def _assembled() -> Path:
    """The hooks as the installer ships them: each a lone file with its shared blocks inlined
    (``msd_install.payload.assemble_hook``). Every hook test runs these, never the sources."""
    from msd_install.payload import load

    folder = Path(tempfile.mkdtemp(prefix="msd-hooks-"))
    atexit.register(shutil.rmtree, folder, True)
    for hook in load().hooks:
        (folder / hook.script).write_bytes(hook.content)
    shutil.copy(SOURCE_DIR / "hooks.json", folder / "hooks.json")
    # The bytecode an installed guard caches on its first call (copies keep it valid: copytree
    # keeps mtimes), so that each test does not pay for compiling the helper again.
    compileall.compile_file(str(folder / GUARD_HELPER), quiet=1)
    return folder


HOOKS_DIR = _assembled()


def guard_helper(folder: Path = HOOKS_DIR) -> types.ModuleType:
    """The guard's analysis module as installed, loaded in-process the way the hook loads it
    (for the parser-level timing and property tests)."""
    path = str(folder / GUARD_HELPER)
    loader = importlib.machinery.SourceFileLoader("msd_secret_read_guard_shell", path)
    module = types.ModuleType(loader.name)
    module.__file__ = path
    sys.modules[loader.name] = module
    loader.exec_module(module)
    return module


@dataclass(frozen=True)
class HookResult:
    code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)

    def context(self) -> str:
        """The additionalContext of a Claude-style answer."""
        return str(self.json()["hookSpecificOutput"]["additionalContext"])


class RunHook(Protocol):
    def __call__(
        self,
        script: str,
        payload: object,
        *,
        args: tuple[str, ...] = (),
        env: dict[str, str] | None = None,
    ) -> HookResult: ...


def base_env(tmp: Path) -> dict[str, str]:
    """A minimal environment: no CLAUDE_PROJECT_DIR etc. leaking in from the test runner."""
    env = {"PATH": os.environ.get("PATH", ""), "TMPDIR": str(tmp), "NO_COLOR": "1"}
    for key in ("SYSTEMROOT", "LANG"):
        if key in os.environ:
            env[key] = os.environ[key]
    return env


def tool_event(
    event: str, tool: str, tool_input: dict[str, Any], cwd: Path, **extra: Any
) -> dict[str, Any]:
    """A realistic Claude Code tool-hook stdin object."""
    return {
        "session_id": "3f2a9c1e-7b4d-4e8a-9c21-5d6e7f809a1b",
        "transcript_path": str(cwd / "transcript.jsonl"),
        "cwd": str(cwd),
        "permission_mode": "default",
        "hook_event_name": event,
        "tool_name": tool,
        "tool_input": tool_input,
        **extra,
    }
