"""hooks.json names exactly the hook files, in the vocabulary the installer translates from;
every hook file carries identical copies of the shared blocks and imports only light stdlib."""

from __future__ import annotations

import ast
import json
import re

import pytest
from hookkit import HOOKS_DIR

from msd_install.payload.hookcode import code_script

CLAUDE_EVENTS = {"statusLine", "PreToolUse", "PostToolUse", "SessionStart"}
CLAUDE_TOOLS = {"Read", "Write", "Edit", "Bash", "Grep", "Glob"}
LIGHT_MODULES = {
    "__future__",
    "importlib.machinery",  # the launchers: loads the hook's code from its bytecode
    "_json",
    "json",
    "os",
    "re",
    "sys",
    "time",
    "fnmatch",
    "itertools",
    "stat",
}
# Modules a hook may import lazily, inside the one branch that needs them.
LAZY_MODULES = {
    "_signal",  # signal's C module (signal itself costs 1 ms of enum wrappers): the guard's alarm
    "select",
    "threading",
    "subprocess",
    "urllib.request",
    "collections.abc",
    "typing",
    "importlib.machinery",
}
GUARD_HELPER = "msd-secret-read-guard-shell.py"
# The guard's analysis, kept in blocks of reviewable size and inlined into its helper only.
GUARD_BLOCKS = [
    "msd-secret-policy",
    "msd-shell-ast",
    "msd-shell-lex",
    "msd-shell-grammar",
    "msd-shell-expand",
    "msd-shell-glob",
    "msd-secret-code",
    "msd-secret-readers",
    "msd-secret-senders",
    "msd-secret-commands",
    "msd-secret-programs",
    "msd-secret-find",
    "msd-shell-eval",
]
BLOCKS: dict[str, set[str] | None] = {
    "msd-hook-common": None,  # every registered hook
    "msd-shell-words": {"msd-validate-commit.py"},
    "msd-injection-patterns": {"msd-prompt-guard.py", "msd-read-injection-scanner.py"},
    **{name: {GUARD_HELPER} for name in GUARD_BLOCKS},
}


def registry() -> list[dict[str, object]]:
    data = json.loads((HOOKS_DIR / "hooks.json").read_text(encoding="utf-8"))
    assert data["version"] == 1
    return list(data["hooks"])


def registered_scripts() -> list[str]:
    return sorted(str(h["script"]) for h in registry() if h["event"] is not None)


def block_text(source: str, name: str) -> str | None:
    match = re.search(rf"^# >>> {name}\b.*?^# <<< {name} <<<$", source, re.M | re.S)
    return match.group(0) if match else None


def test_registry_lists_every_hook_file_and_nothing_else() -> None:
    scripts = [str(h["script"]) for h in registry()]
    on_disk = sorted(p.name for p in HOOKS_DIR.glob("*.py"))
    # a registered hook is installed as a launcher and its code (payload/hookcode.py)
    assert sorted(scripts + [code_script(s) for s in registered_scripts()]) == on_disk
    assert len(set(scripts)) == len(scripts)
    assert len(registered_scripts()) == 11


def test_registry_entries_are_well_formed() -> None:
    names = set()
    for hook in registry():
        allowed = {"name", "script", "event", "matcher", "timeout", "description", "requires"}
        assert set(hook) <= allowed
        scripts = {h["script"] for h in registry() if h["event"] is None}
        assert set(hook.get("requires", [])) <= scripts  # helpers are never registered
        assert hook["script"] == f"{hook['name']}.py"
        assert hook["event"] is None or hook["event"] in CLAUDE_EVENTS
        names.add(hook["name"])
        if "matcher" in hook:
            assert hook["event"] in ("PreToolUse", "PostToolUse")
            assert set(str(hook["matcher"]).split("|")) <= CLAUDE_TOOLS
        if "timeout" in hook:
            assert isinstance(hook["timeout"], int) and 0 < hook["timeout"] <= 60
    assert len(names) == len(registry())
    worker = next(h for h in registry() if h["name"] == "msd-check-update-worker")
    assert worker["event"] is None


@pytest.mark.parametrize("block", sorted(BLOCKS))
def test_shared_blocks_are_identical_copies(block: str) -> None:
    registered = registered_scripts()
    holders = {code_script(s) if s in registered else s for s in BLOCKS[block] or registered}
    copies = {}
    for path in sorted(HOOKS_DIR.glob("*.py")):
        text = block_text(path.read_text(encoding="utf-8"), block)
        if path.name in holders:
            assert text is not None, f"{path.name} lacks the {block} block"
            copies[path.name] = text
        else:
            assert text is None, f"{path.name} carries {block} but is not expected to"
    reference = next(iter(copies.values()))
    drifted = [name for name, text in copies.items() if text != reference]
    assert not drifted, f"{block} differs in {drifted}"


@pytest.mark.parametrize("script", sorted(p.name for p in HOOKS_DIR.glob("*.py")))
def test_hooks_import_only_light_standard_modules_at_top_level(script: str) -> None:
    tree = ast.parse((HOOKS_DIR / script).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            names = {node.module or ""}
        else:
            continue
        top_level = node in tree.body
        allowed = LIGHT_MODULES if top_level else LIGHT_MODULES | LAZY_MODULES
        assert names <= allowed, f"{script}:{node.lineno} imports {names}"
        assert not any(isinstance(n, ast.ImportFrom) and n.level for n in [node])
