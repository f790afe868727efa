"""GitHub Copilot CLI (``copilot`` 1.0.102) run offline against one home, and what it loaded.

Listings: ``copilot mcp list --json`` and ``copilot skill list [--json]``. Agents have no
listing, so a loopback stub model (``openai_stub``) stands in for the provider: the ``task``
tool of the first request names every agent the CLI loaded, the system prompt lists the skills.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

from e2e_clis import require, run_tool
from openai_stub import OpenAIStub, system_prompt, tool_spec


class Copilot:
    """The real CLI against one home; every call offline, no login."""

    def __init__(self, home: Path, cache: Path) -> None:
        self.home, self.cache = home, cache

    def run(self, cwd: Path, *args: str, **env: str) -> Any:
        return run_tool(
            [str(require("copilot")), *args],
            self.home,
            cwd,
            COPILOT_CACHE_HOME=str(self.cache),
            COPILOT_AUTO_UPDATE="false",
            **env,
        )

    def ok(self, cwd: Path, *args: str) -> str:
        proc = self.run(cwd, *args)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        # no CLI reports a config error: no warning, no failed skill, no error line
        assert "Warning" not in proc.stderr and "Error" not in proc.stderr, proc.stderr
        assert "failed to load" not in proc.stdout + proc.stderr, proc.stdout
        return str(proc.stdout)

    def skills(self, cwd: Path) -> Counter[str]:
        self.ok(cwd, "skill", "list")  # the text listing is where load failures show
        found = json.loads(self.ok(cwd, "skill", "list", "--json"))
        return Counter(s["name"] for s in found if s["name"].startswith("msd-"))

    def skill_paths(self, cwd: Path) -> set[str]:
        found = json.loads(self.ok(cwd, "skill", "list", "--json"))
        return {s["path"] for s in found if s["name"].startswith("msd-")}

    def servers(self, cwd: Path) -> dict[str, Any]:
        found: dict[str, Any] = json.loads(self.ok(cwd, "mcp", "list", "--json"))["mcpServers"]
        return found

    def session(
        self, cwd: Path, trigger: str = "", tool: str = "", args: dict[str, Any] | None = None
    ) -> OpenAIStub:
        """One ``-p`` session against the stub; the stub's requests tell what was loaded."""
        with OpenAIStub(trigger, tool, args) as stub:
            proc = self.run(cwd, "-p", f"{trigger} hello", "--allow-all-tools", **stub.env())
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert stub.requests, proc.stdout + proc.stderr
        return stub

    def trust(self, project: Path) -> None:
        """What the user does when Copilot asks to trust a folder (never msd's job)."""
        path = self.home / ".copilot/config.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"trusted_folders": [str(project)]}))


def loaded(stub: OpenAIStub) -> tuple[Counter[str], Counter[str]]:
    """(agents in the task tool, skills in the system prompt) of the first request."""
    first = stub.requests[0]
    enum = tool_spec(first, "task")["parameters"]["properties"]["agent_type"]["enum"]
    listed = re.findall(r"^- \*\*(msd-[a-z-]+)\*\*", tool_spec(first, "task")["description"], re.M)
    assert sorted(listed) == sorted(a for a in enum if a.startswith("msd-"))
    skills = re.findall(r"<name>(msd-[a-z-]+)</name>", system_prompt(first))
    return Counter(a for a in enum if a.startswith("msd-")), Counter(skills)


def assert_once(counts: Counter[str], expected: int) -> None:
    assert len(counts) == expected, sorted(counts)
    assert set(counts.values()) == {1}, [n for n, c in counts.items() if c > 1]
