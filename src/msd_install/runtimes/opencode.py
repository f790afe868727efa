"""OpenCode: ``~/.config/opencode`` (``$XDG_CONFIG_HOME/opencode``, or ``$OPENCODE_CONFIG_DIR``),
local ``<project>/.opencode``. The shape is shared with Kilo (``opencode_shape``).

What lands where: ``skills/msd-<name>/SKILL.md`` for the 22 commands and the 6 routers,
``agents/msd-<name>.md`` (``mode: subagent``), the engine under ``msd-core/``, and
``mcp.msd`` in the root's ``opencode.jsonc`` if that exists, else its ``opencode.json``. No
hooks: OpenCode has no shell-hook setting, only JS/TS plugins.

Verified with the real ``opencode`` 1.18.33 against throw-away homes (tests/e2e/
test_opencode_cli.py) and in the strings of its binary:

* **Roots.** Global config is ``$XDG_CONFIG_HOME/opencode`` (``config.json``,
  ``opencode.json``, ``opencode.jsonc`` merged in that order; all JSONC). ``OPENCODE_CONFIG_DIR``
  names an *extra* directory that OpenCode reads like ``.opencode`` (``opencode.json(c)``,
  ``agents/``, ``commands/``, ``skills/``) on top of the global one: msd-install honours it as
  the global root when it is set, and the report says that OpenCode then sees msd only while
  the variable is set. A project reads ``<proj>/opencode.json(c)`` **and**
  ``<proj>/.opencode/opencode.json(c)``; msd writes its server into the latter, inside its own
  folder, because Kilo reads ``<proj>/opencode.json`` too but not ``.opencode/`` (a local
  OpenCode install must not register a server in Kilo). OpenCode adds a ``$schema`` member to
  every config file it loads and writes ``.gitignore`` into each config folder; those are its
  own edits and stay after an uninstall.
* **Commands are skills** (``opencode_shape``): ``serve``'s ``/command`` lists every skill as a
  command (``source: "skill"``) unless a command of that name exists; ``opencode debug config``
  shows only command *files*, so the e2e tests read skills with ``opencode debug skill``.
* **Side by side with Claude Code**: OpenCode also reads ``~/.claude/skills`` and
  ``<proj>/.claude/skills``. A name found twice is listed once, but the copy kept is whichever
  file finished parsing last (the scan is concurrent; repeated runs pick either), so Claude's
  rendering may run in OpenCode while both are installed. It works there: its paths point into
  Claude's own ``msd-core``, its ``Task(subagent_type=..., description=..., prompt=...)`` calls
  name OpenCode's ``task`` tool parameters, and the agents are OpenCode's (it never reads
  ``.claude/agents``). ``OPENCODE_DISABLE_CLAUDE_CODE_SKILLS=1`` makes OpenCode skip Claude's.
* **Agents** are strict: a ``tools:`` list or comma string, or a colour word such as ``green``,
  makes every opencode command fail (``Configuration is invalid``); ``model: opus`` is accepted
  and becomes a broken model. So the Claude tool list becomes a ``permission`` map, the colour
  ``#RRGGBB``, and the model tier is dropped (agents use the session's model).
* **Subagents** start through the ``task`` tool: ``description``, ``prompt``, ``subagent_type``
  (plus ``task_id`` to resume, ``command``); no model parameter.
* **MCP**: ``{"type": "local", "command": [...], "environment": {...}, "enabled": true}``;
  ``opencode mcp list`` starts it (in the project directory) and reports ``connected``.
* **Permissions**: every agent's rules end in ``external_directory: ask`` with allowances for
  skill folders only (``opencode debug agent build``), so a global install's ``msd-core`` is
  read only after the user agrees; the report names the rule that would allow it, msd-install
  does not add it (Kilo allows its own global folder already).

See docs/explanation/opencode-and-kilo.md for the side-by-side behaviour.
"""

from __future__ import annotations

from .opencode_shape import Shape

SHAPE = Shape(
    name="opencode",
    label="OpenCode",
    folder="opencode",
    local_dir=".opencode",
    env="OPENCODE_CONFIG_DIR",
    config_files=("opencode.jsonc", "opencode.json"),
    new_config="opencode.json",
    binaries=("opencode",),
    asks_for_global_reads=True,
)
ADAPTER = SHAPE.adapter
