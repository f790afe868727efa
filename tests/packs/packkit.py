"""A generator of third-party-shaped packs (Claude Code plugin layout), for the pack tests.

``make_pack(dir)`` writes what a real plugin repository holds: a ``.claude-plugin/plugin.json``
manifest, nested command folders (``commands/git/commit.md``), agents with ``tools:`` as a
string and as a YAML list, ``@${CLAUDE_PLUGIN_ROOT}/...`` references to its own files, a
skill with further files (a script, a reference), hooks in three languages (Python, shell,
JavaScript) registered by ``hooks/hooks.json``, each with a helper beside it, engine folders
(``references/``, ``scripts/``, ``templates/``) and top-level files that are not installed
(README, LICENSE, package.json). Options vary the name and add the usual mistakes.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

HOOKS = {
    "description": "guard and format hooks",
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/guard.py",
                     "timeout": 5}
                ],
            }
        ],
        "PostToolUse": [
            {
                "matcher": "Edit|Write",
                "hooks": [
                    {"type": "command", "command": "bash ${CLAUDE_PLUGIN_ROOT}/hooks/format.sh"}
                ],
            }
        ],
        "SessionStart": [
            {
                "hooks": [
                    {"type": "command", "command": "node ${CLAUDE_PLUGIN_ROOT}/hooks/banner.js",
                     "timeout": 10}
                ]
            }
        ],
    },
}  # fmt: skip

# each hook needs a helper beside it, found as third-party hooks find theirs: Python by an
# import from its own folder, bash by sourcing from ``$(dirname "$0")``, node by a relative
# ``require``
GUARD_PY = """#!/usr/bin/env python3
import json, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import helper

event = json.load(sys.stdin)
command = event.get("tool_input", {}).get("command", "")
if helper.dangerous(command):
    print(helper.REASON, file=sys.stderr)
    sys.exit(2)
"""

HELPER_PY = """REASON = "refused by acme guard"


def dangerous(command):
    return "rm -rf /" in command
"""

FORMAT_SH = """#!/usr/bin/env bash
. "$(dirname "$0")/lib/common.sh"
cat >/dev/null
log "formatted"
"""

COMMON_SH = """log() { printf '%s\\n' "$*" >&2; }
"""

BANNER_JS = """#!/usr/bin/env node
const lib = require("./lib");
process.stdin.resume();
process.stdin.on("end", () => {
  console.log(JSON.stringify({hookSpecificOutput: {hookEventName: "SessionStart",
    additionalContext: lib.banner()}}));
});
"""

LIB_JS = """module.exports = { banner: () => "acme pack loaded" };
"""


def pack_files(name: str = "acme") -> dict[str, str]:
    """{relative path: text} of a healthy pack named ``name``."""
    return {
        ".claude-plugin/plugin.json": json.dumps(
            {
                "name": name,
                "version": "1.4.0",
                "description": "Acme's review kit",
                "author": {"name": "Acme"},
            },
            indent=2,
        ),
        "README.md": f"# {name}\n\nInstall with claude plugin install.\n",
        "LICENSE": "MIT\n",
        "package.json": '{"name": "acme-kit", "private": true}\n',
        "commands/review.md": (
            "---\n"
            "description: Review the current diff against the style guide\n"
            "argument-hint: [path]\n"
            "allowed-tools: Read, Grep, Glob, Bash(git diff:*)\n"
            "---\n"
            "Review $ARGUMENTS.\n\n"
            "@${CLAUDE_PLUGIN_ROOT}/references/style.md\n\n"
            "Then start the reviewer:\n\n"
            "```\nTask(\n"
            '  subagent_type="reviewer",\n'
            '  description="Review",\n'
            '  prompt="Review the diff"\n'
            ")\n```\n"
        ),
        "commands/git/commit.md": (
            "---\n"
            "description: Write a conventional commit message\n"
            "allowed-tools: [Bash, Read]\n"
            "---\n"
            "Commit using @${CLAUDE_PLUGIN_ROOT}/templates/commit.md and run\n"
            "`${CLAUDE_PLUGIN_ROOT}/scripts/check.sh` first.\n"
        ),
        "commands/git/pr/open.md": (
            "---\ndescription: Open a pull request\n---\n"
            "Use @${CLAUDE_PLUGIN_ROOT}/templates/pr.md.\n"
        ),
        "agents/reviewer.md": (
            "---\n"
            "name: reviewer\n"
            "description: Reviews diffs for style and bugs\n"
            "tools: Read, Grep, Glob\n"
            "model: sonnet\n"
            "---\n"
            "You review code. Read @${CLAUDE_PLUGIN_ROOT}/references/style.md first.\n"
        ),
        "agents/fixer.md": (
            "---\n"
            "name: fixer\n"
            "description: Applies review findings\n"
            "tools:\n  - Read\n  - Edit\n  - Bash\n"
            "---\n"
            "You fix what the reviewer found.\n"
        ),
        "skills/lint/SKILL.md": (
            "---\n"
            "name: lint\n"
            "description: Lint the project with the acme rules\n"
            "---\n"
            "Run `python3 scripts/run_lint.py` from this skill's folder; rules in reference.md.\n"
        ),
        "skills/lint/scripts/run_lint.py": "print('lint ok')\n",
        "skills/lint/reference.md": "# Rules\n\nNo tabs.\n",
        "hooks/hooks.json": json.dumps(HOOKS, indent=2),
        "hooks/guard.py": GUARD_PY,
        "hooks/helper.py": HELPER_PY,
        "hooks/format.sh": FORMAT_SH,
        "hooks/lib/common.sh": COMMON_SH,
        "hooks/lib/index.js": LIB_JS,
        "hooks/banner.js": BANNER_JS,
        "references/style.md": "# Style\n\nShort functions.\n",
        "templates/commit.md": "type(scope): subject\n",
        "templates/pr.md": "## Summary\n",
        "scripts/check.sh": "#!/bin/sh\nexit 0\n",
    }


def make_pack(
    directory: Path,
    name: str = "acme",
    *,
    extra: dict[str, str | bytes] | None = None,
    drop: tuple[str, ...] = (),
) -> Path:
    """Write a pack into ``directory`` (created); ``extra`` adds or replaces files, ``drop``
    leaves some out. Scripts are executable, as in a git checkout."""
    files: dict[str, str | bytes] = dict(pack_files(name))
    files.update(extra or {})
    for rel in drop:
        files.pop(rel, None)
    for rel, content in files.items():
        path = directory / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)
        if rel.endswith((".sh", ".py", ".js")):
            os.chmod(path, 0o755)
    return directory
