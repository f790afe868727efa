"""Kilo Code CLI: ``~/.config/kilo`` (``$XDG_CONFIG_HOME/kilo``, or ``$KILO_CONFIG_DIR``), local
``<project>/.kilo``. An OpenCode fork: the shape is shared (``opencode_shape``).

What lands where: ``skills/msd-<name>/SKILL.md`` for the 22 commands and the 6 routers,
``agents/msd-<name>.md`` (``mode: subagent``), the engine under ``msd-core/``, and ``mcp.msd``
in the root's ``kilo.jsonc`` or ``kilo.json`` (whichever exists; a new one is ``kilo.jsonc``,
Kilo's own default). No hooks: Kilo, like OpenCode, has only JS/TS plugins.

Verified with the real ``kilo`` 7.7.7 against throw-away homes (tests/e2e/test_kilo_cli.py) and
in the strings of its binary:

* **Roots.** Global config files ``config.json``, ``kilo.json``, ``kilo.jsonc``,
  ``opencode.json``, ``opencode.jsonc`` in ``$XDG_CONFIG_HOME/kilo``; ``KILO_CONFIG_DIR`` is an
  extra, trusted config directory read on top of it (honoured as the global root, like
  ``OPENCODE_CONFIG_DIR``). A project reads ``.kilo/`` and ``.kilocode/`` (each with
  ``kilo.json(c)``/``opencode.json(c)``) and ``<proj>/{kilo,opencode}.json(c)``, but neither
  ``~/.config/opencode`` nor ``<proj>/.opencode``. Kilo adds ``$schema`` to the config files it
  loads (rewriting a ``.json`` one as formatted JSON; a ``.jsonc`` one is patched in place),
  a one-time ``permission.bash`` migration to the global one, and ``.gitignore`` files to its
  folders: its own edits, left by an uninstall.
* **Commands are skills**: Kilo's command list holds every skill (``source: "skill"``) and,
  unlike OpenCode, lists a command and a skill of the same name *both*; with Claude Code's
  ``~/.claude/skills`` read as well, msd commands as Kilo commands would show twice.
* **Side by side with Claude Code**: Kilo reads ``~/.claude/skills`` and ``.claude/skills`` but
  loads skills one after another and keeps the last, which is always its own folder's copy.
* **Agents**: a bad ``tools:`` only drops that agent, and ``kilo config check`` names it
  (``Config file at ... is invalid``); the frontmatter is converted as for OpenCode.
* **Subagents**: the ``task`` tool (``description``, ``prompt``, ``subagent_type``, ``task_id``,
  ``command``); its experimental model fields take Kilo model ids only when the user asks, so
  no Claude tier is passed.
"""

from __future__ import annotations

from .opencode_shape import Shape

SHAPE = Shape(
    name="kilo",
    label="Kilo Code",
    folder="kilo",
    local_dir=".kilo",
    env="KILO_CONFIG_DIR",
    config_files=("kilo.jsonc", "kilo.json"),
    new_config="kilo.jsonc",
    binaries=("kilo", "kilocode"),
)
ADAPTER = SHAPE.adapter
