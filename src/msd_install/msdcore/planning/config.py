"""``.planning/config.json``: the defaults table, dotted-key get/set and validation.

Workflow flags follow "absent = enabled": a key missing from config.json takes its value from
``DEFAULTS`` below, and every ``workflow.*`` flag defaults to true, so users only ever write
the features they turn *off*. The two guard hooks are the exception (they interrupt the agent),
so they default to false. ``DEFAULTS`` is the single source of truth for keys, types and
defaults; ``CHOICES`` lists the allowed values of the enumerated keys. Unknown keys are refused
on ``set`` (a typo such as ``workflow.reserch`` would otherwise be silently ignored) but kept
as they are on read.
"""

from __future__ import annotations

import contextlib
import copy
import json
from typing import Any

from ..toolspec import JSONObject, ToolError
from .fsio import atomic_write, exists, read_text
from .locking import file_lock
from .project import Project

DEFAULTS: JSONObject = {
    "mode": "interactive",  # interactive: confirm at gates; yolo: auto-approve Confirm gates
    "granularity": "standard",  # how finely the roadmapper cuts phases
    "model_profile": "balanced",  # see models.py
    "commit_docs": True,  # msd-tools commit does nothing when false
    "context_window": 200000,  # tokens; >= 500000 lets workflows pass richer context
    "workflow": {
        "research": True,
        "plan_check": True,
        "verifier": True,
        "nyquist_validation": True,
    },
    "hooks": {
        "workflow_guard": False,
        "validate_commit": False,
        "context_warnings": True,
    },
    "git": {
        "branching_strategy": "none",
    },
}

CHOICES: dict[str, tuple[str, ...]] = {
    "mode": ("interactive", "yolo"),
    "granularity": ("coarse", "standard", "fine"),
    "model_profile": ("quality", "balanced", "budget", "inherit"),
    "git.branching_strategy": ("none", "phase", "milestone"),
}


def _lookup(tree: Any, key: str) -> tuple[bool, Any]:
    node = tree
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return False, None
        node = node[part]
    return True, node


def _merge(base: JSONObject, over: JSONObject) -> JSONObject:
    out = copy.deepcopy(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def read_file(project: Project) -> JSONObject:
    """The raw config.json mapping ({} when the file does not exist)."""
    path = project.file("config.json")
    if not exists(project, path):
        return {}
    text = read_text(project, path, project.rel(path))
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ToolError("invalid_config", f"{project.rel(path)}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ToolError(
            "invalid_config", f"{project.rel(path)}: the top level must be a JSON object"
        )
    return data


def effective_defaults() -> JSONObject:
    return copy.deepcopy(DEFAULTS)


def effective(project: Project) -> JSONObject:
    """config.json merged over ``DEFAULTS``."""
    return _merge(DEFAULTS, read_file(project))


def config_get(project: Project, key: str | None = None) -> JSONObject:
    raw = read_file(project)
    merged = _merge(DEFAULTS, raw)
    if not key:
        return {"key": None, "value": merged, "path": project.rel(project.file("config.json"))}
    found, value = _lookup(merged, key)
    if not found:
        raise ToolError(
            "unknown_key", f"{key}: not a config key (known: {', '.join(known_keys())})"
        )
    in_file, _ = _lookup(raw, key)
    return {"key": key, "value": value, "source": "file" if in_file else "default"}


def known_keys() -> list[str]:
    out: list[str] = []

    def walk(node: JSONObject, prefix: str) -> None:
        for k, v in node.items():
            if isinstance(v, dict):
                walk(v, f"{prefix}{k}.")
            else:
                out.append(f"{prefix}{k}")

    walk(DEFAULTS, "")
    return out


def coerce(key: str, value: Any) -> Any:
    """``value`` checked against the type (and choices) of ``key`` in ``DEFAULTS``."""
    found, default = _lookup(DEFAULTS, key)
    if not found or isinstance(default, dict):
        raise ToolError(
            "unknown_key", f"{key}: not a config key (known: {', '.join(known_keys())})"
        )
    if isinstance(value, str) and not isinstance(default, str):
        with contextlib.suppress(ValueError):
            value = json.loads(value)
    expected = type(default)
    ok = isinstance(value, expected) and not (expected is int and isinstance(value, bool))
    if not ok:
        raise ToolError(
            "invalid_value", f"{key}: expected {expected.__name__}, got {json.dumps(value)}"
        )
    if key in CHOICES and value not in CHOICES[key]:
        raise ToolError("invalid_value", f"{key}: must be one of {', '.join(CHOICES[key])}")
    return value


def config_set(project: Project, key: str, value: Any) -> JSONObject:
    """Set ``key`` in config.json (creating the file), keeping every other key as it was."""
    project.require_planning()
    value = coerce(key, value)
    path = project.file("config.json")
    with file_lock(project, project.lock(".lock")):
        data = read_file(project)
        node = data
        parts = key.split(".")
        for part in parts[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise ToolError("invalid_config", f"{project.rel(path)}: {part} is not an object")
            node = child
        previous = node.get(parts[-1])
        node[parts[-1]] = value
        atomic_write(project, path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return {"key": key, "value": value, "previous": previous, "path": project.rel(path)}


def flag(config: JSONObject, key: str) -> bool:
    """A boolean flag from an effective config; absent means the ``DEFAULTS`` value."""
    found, value = _lookup(config, key)
    if not found:
        _, value = _lookup(DEFAULTS, key)
    return bool(value)
