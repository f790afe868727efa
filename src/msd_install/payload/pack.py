"""A foreign pack (``--payload DIR``): a Claude-format plugin directory as a ``Payload``.

Layout, as a Claude Code plugin has it: ``commands/**/*.md`` (nested folders allowed),
``agents/*.md``, ``skills/<name>/SKILL.md`` (with any further files), ``hooks/hooks.json``
(``packhooks``) and its scripts, ``.claude-plugin/plugin.json`` (only its ``name`` is read);
every other folder holds engine files, installed as ``<root>/<pack>/...`` where the pack's
text names them as ``${CLAUDE_PLUGIN_ROOT}/...``. Files at the top (README, LICENSE) and
hidden folders are not installed.

Everything the pack installs is prefixed with its name, so that it never collides with MSD
Core (``msd-``) or with another pack: ``commands/git/commit.md`` of pack ``acme`` becomes the
command ``acme-git-commit``, agent ``reviewer`` becomes ``acme-reviewer`` (and every
``subagent_type="reviewer"`` in the pack's text follows), skill ``lint`` ``acme-lint``.

The whole pack is validated before anything is written: every problem becomes one line
``<file>: <problem>`` of one ``PackError``.
"""

from __future__ import annotations

import json
import posixpath
import re
from pathlib import Path

from ..errors import PackError, PayloadError, UsageError
from . import PLACEHOLDER_ROOT, Agent, Command, DataFile, Document, Payload, Skill
from . import split_frontmatter as _split
from .packfiles import MAX_PROBLEMS, PackFiles, read_pack
from .packhooks import pack_hooks

PLUGIN_JSON = ".claude-plugin/plugin.json"
PARTS = ("commands", "agents", "skills", "hooks")
NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
MAX_NAME = 64  # a skill's name in every runtime that has a limit
MAX_PACK_NAME = 40
MAX_DESCRIPTION = 1024
MAX_WARNINGS = 50  # notes on references to files the pack does not ship: the rest counted
# folder names a runtime root already uses: a pack's engine folder ``<root>/<pack>/`` must
# not be one of them
RESERVED = frozenset(
    (
        "msd", "msd-core", "commands", "agents", "skills", "hooks", "prompts", "rules",
        "workflows", "global_workflows", "plugins", "plugin", "extensions", "steering",
        "cache", "bin", "lib", "mcp", "tools", "memories", "settings", "projects", "todos",
        # OpenCode's and Kilo's singular folders, their modes, Claude Code's output styles, the
        # folders of Gemini CLI and Antigravity
        "agent", "command", "mode", "modes", "output-styles", "config", "antigravity",
    )
)  # fmt: skip
TEXT = (".md", ".json", ".txt", ".toml", ".yaml", ".yml")
_ROOT_VAR = re.compile(r"\$(?:\{CLAUDE_PLUGIN_ROOT\}|CLAUDE_PLUGIN_ROOT\b)/?")
# a path of the pack named in its text: ``${CLAUDE_PLUGIN_ROOT}/<path>``, ``@`` before it an
# @-reference (its content is read into the prompt)
_REF = re.compile(
    r"(?P<at>(?<![\w@`])@)?\$(?:\{CLAUDE_PLUGIN_ROOT\}|CLAUDE_PLUGIN_ROOT)/"
    r"(?P<path>[^\s)\]`'\"<>,;$]*[^\s)\]`'\"<>,;.:$])"
)
# a reference as written, up to the space, quote or bracket that ends it
_WORD = re.compile(r"@?[^\s`'\"()\[\]]+")
_MCP = re.compile(r"mcp__[A-Za-z0-9_-]+(__[A-Za-z0-9_.*-]+)?")


def load_pack(directory: Path, tools: frozenset[str], events: frozenset[str]) -> Payload:
    """The pack in ``directory`` as a ``Payload``; ``tools``: the Claude tool names msd
    knows (``runtimes.convert``), ``events``: the hook events some runtime has. Raises
    ``PackError`` listing every problem."""
    if not directory.is_dir() or directory.is_symlink():
        raise UsageError("--payload names no directory (a pack is a folder)", path=directory)
    found = read_pack(directory)
    if found.stopped:  # a limit: the rest of the pack was not read, nothing more to say
        raise PackError(directory, found.problems)
    pack = _name(found)
    if not any(rel.split("/")[0] in PARTS for rel in found.files):
        found.problems.append(".: has no commands/, agents/, skills/ or hooks/ (not a pack)")
    agents_raw = [r for r in found.under("agents")]
    agent_names = {
        posixpath.splitext(posixpath.basename(r))[0] for r in agents_raw if r.endswith(".md")
    }
    engine = _engine(found, pack)
    # what the pack installs as a file: engine files, skills' files, hook files
    shipped = {f.relpath for f in engine}
    shipped |= {r for r in found.files if r.split("/")[0] in ("skills", "hooks")}
    loader = _Loader(found, pack, tools, agent_names, shipped - {"hooks/hooks.json"})
    for rel in sorted(shipped & {f.relpath for f in engine}):
        if rel.endswith(TEXT) and (text := found.text(rel)) is not None:
            loader.references(rel, text)
    commands = loader.commands()
    agents = loader.agents()
    skills = loader.skills()
    hooks = pack_hooks(pack, found, tools, events)
    # commands and skills are both skills in several runtimes (Claude Code): one name each
    taken: dict[str, str] = {}
    for name, rel in [(c.name, c.doc.relpath) for c in commands] + [
        (k.name, k.doc.relpath) for k in skills
    ]:
        if name in taken:
            found.problems.append(f"{rel}: installs as {name}, as {taken[name]} does: rename one")
        else:
            taken[name] = rel
    if found.problems:
        raise PackError(directory, _capped(found.problems), len(found.problems))
    return Payload(
        tuple(commands), tuple(agents), tuple(skills), hooks, engine, (), pack, pack,
        notes=(*loader.warnings, *_unshown(loader.unshown)),
    )  # fmt: skip


def _name(found: PackFiles) -> str:
    """The pack's name: ``name`` of ``.claude-plugin/plugin.json``, else the folder's name."""
    name: object = found.directory.resolve().name
    where = "the folder name"
    if PLUGIN_JSON in found.files:
        text = found.text(PLUGIN_JSON)
        try:
            doc = json.loads(text) if text is not None else {}
        except (ValueError, RecursionError) as exc:  # nested too deep for the parser
            found.problems.append(f"{PLUGIN_JSON}: is not valid JSON ({_json_error(exc)})")
            doc = {}
        if not isinstance(doc, dict):
            found.problems.append(f"{PLUGIN_JSON}: is not a JSON object")
        elif "name" in doc:
            name, where = doc["name"], f'"name" in {PLUGIN_JSON}'
    if not isinstance(name, str) or not NAME.fullmatch(name) or len(name) > MAX_PACK_NAME:
        found.problems.append(
            f"{PLUGIN_JSON if 'plugin' in where else '.'}: pack name {name!r} ({where}) must be "
            f"lowercase letters, digits and single hyphens, at most {MAX_PACK_NAME} characters"
        )
        return "pack"
    if name in RESERVED or name.startswith("msd-") or name.startswith("msd"):
        found.problems.append(
            f"{PLUGIN_JSON if 'plugin' in where else '.'}: pack name {name!r} ({where}) is "
            "reserved (msd's own, or a folder runtimes use)"
        )
    return name


def _engine(found: PackFiles, pack: str) -> tuple[DataFile, ...]:
    """The engine files: every folder but the four parts and hidden ones, as ``<pack>/...``."""
    out = []
    for rel, data in sorted(found.files.items()):
        top = rel.split("/")[0]
        if "/" not in rel or top in PARTS or top.startswith("."):
            continue
        content = data
        if rel.endswith(TEXT):
            text = found.text(rel)
            if text is None:
                continue
            content = _ROOT_VAR.sub(f"{PLACEHOLDER_ROOT}{pack}/", text).encode("utf-8")
        executable = found.executable(rel) or top == "bin"
        out.append(DataFile(rel, content, executable))
    return tuple(out)


class _Loader:
    def __init__(
        self,
        found: PackFiles,
        pack: str,
        tools: frozenset[str],
        agents: set[str],
        shipped: set[str],
    ) -> None:
        self.found, self.pack, self.tools = found, pack, tools
        self.agent_names, self.shipped = agents, shipped
        # every file and every folder above one: a reference is looked up, never searched for
        self._found_paths = _with_folders(found.files)
        self._shipped_paths = _with_folders(shipped)
        self.warnings: list[str] = []  # references to what the pack does not ship
        self.unshown = 0  # warnings past ``MAX_WARNINGS``, counted

    def warn(self, text: str) -> None:
        if len(self.warnings) < MAX_WARNINGS:
            self.warnings.append(text)
        else:
            self.unshown += 1

    def problem(self, rel: str, what: str) -> None:
        self.found.problems.append(f"{rel}: {what}")

    def commands(self) -> list[Command]:
        out = []
        for rel in self.found.under("commands"):
            if not rel.endswith(".md"):
                self.problem(rel, "is not a Markdown command (.md)")
                continue
            parts = rel.removeprefix("commands/").removesuffix(".md").split("/")
            name = self._full(rel, parts)
            doc = self._doc(rel, name)
            if doc is None or name is None:
                continue
            description = self._description(rel, doc)
            self._tools(rel, doc, "allowed-tools")
            if description is not None:
                out.append(Command(name, description, doc))
        return out

    def agents(self) -> list[Agent]:
        out = []
        for rel in self.found.under("agents"):
            if not rel.endswith(".md") or rel.count("/") != 1:
                self.problem(rel, "is not an agent file (agents/<name>.md)")
                continue
            stem = rel.removeprefix("agents/").removesuffix(".md")
            name = self._full(rel, [stem])
            doc = self._doc(rel, name)
            if doc is None or name is None:
                continue
            own = dict(self._meta_before(rel)).get("name")
            if own is not None and own != stem:
                self.problem(rel, f"name {own!r} differs from the file name {stem!r}")
            description = self._description(rel, doc)
            tools = self._tools(rel, doc, "tools")
            if description is not None:
                out.append(Agent(name, description, tuple(tools), doc))
        return out

    def skills(self) -> list[Skill]:
        out = []
        folders = sorted(
            {rel.split("/")[1] for rel in self.found.under("skills") if rel.count("/") >= 2}
        )
        for rel in self.found.under("skills"):
            if rel.count("/") < 2:
                self.problem(rel, "is not in a skill folder (skills/<name>/SKILL.md)")
        for folder in folders:
            rel = f"skills/{folder}/SKILL.md"
            if rel not in self.found.files:
                self.problem(f"skills/{folder}", "has no SKILL.md")
                continue
            name = self._full(rel, [folder])
            doc = self._doc(rel, name)
            if doc is None or name is None:
                continue
            own = dict(self._meta_before(rel)).get("name")
            if own is not None and own != folder:
                self.problem(rel, f"name {own!r} differs from its folder {folder!r}")
            description = self._description(rel, doc)
            extra = tuple(
                DataFile(f.removeprefix(f"skills/{folder}/"), self._content(f),
                         self.found.executable(f))
                for f in self.found.under(f"skills/{folder}")
                if f != rel
            )  # fmt: skip
            if description is not None:
                out.append(Skill(name, description, doc, extra))
        return out

    def _content(self, rel: str) -> bytes:
        """A further file of a skill: text with ``${CLAUDE_PLUGIN_ROOT}`` named as the install
        root does (each runtime then names where the file really is), other files as they are."""
        data = self.found.files[rel]
        if not rel.endswith(TEXT):
            return data
        text = self.found.text(rel)
        if text is None:
            return data
        self.references(rel, text)
        return _ROOT_VAR.sub(f"{PLACEHOLDER_ROOT}{self.pack}/", text).encode("utf-8")

    def _full(self, rel: str, parts: list[str]) -> str | None:
        bad = [p for p in parts if not NAME.fullmatch(p)]
        if bad:
            self.problem(
                rel, f"invalid name {bad[0]!r}: lowercase letters, digits and single hyphens only"
            )
            return None
        name = "-".join([self.pack, *parts])
        if len(name) > MAX_NAME:
            self.problem(rel, f"its name {name} is longer than {MAX_NAME} characters")
            return None
        return name

    def _meta_before(self, rel: str) -> tuple[tuple[str, object], ...]:
        text = self.found.files[rel].decode("utf-8", "replace")
        try:
            return _split(rel, text).meta
        except PayloadError:
            return ()

    def _doc(self, rel: str, name: str | None) -> Document | None:
        text = self.found.text(rel)
        if text is None:
            return None
        try:
            _split(rel, text)
        except PayloadError as exc:
            self.problem(rel, exc.message.removeprefix(f"payload file {rel}").lstrip(": "))
            return None
        self.references(rel, text)
        if name is None:
            return None
        text = _renamed(text, name)
        text = _ROOT_VAR.sub(f"{PLACEHOLDER_ROOT}{self.pack}/", text)
        for agent in self.agent_names:
            text = text.replace(f'subagent_type="{agent}"', f'subagent_type="{self.pack}-{agent}"')
        return _split(rel, text)

    def references(self, rel: str, text: str) -> None:
        """Every ``${CLAUDE_PLUGIN_ROOT}/<path>`` must name a file (or folder) the pack installs:
        an engine file, a skill's file or a hook file (``runtimes.packs`` names where it lands
        in each runtime); a command's or an agent's source file is converted, not copied."""
        for match in _REF.finditer(text):
            what = "@-reference" if match.group("at") else "reference"
            path = posixpath.normpath(match.group("path"))
            # the whole word as written (``.../icp.<domain>.yaml``), not only the path part
            full = _WORD.match(text, match.start())
            named = (full.group() if full else match.group()).rstrip(".,;:")
            if path.startswith("../") or path == "..":
                self.problem(rel, f"{what} {named} leaves the pack")
            elif path not in self._found_paths:
                self.warn(
                    f"{rel}: {what} {named}: no such file in the pack (an example, a "
                    "placeholder or a file made at run time?): rewritten to where it would be"
                )
            elif path not in self._shipped_paths:
                self.warn(
                    f"{rel}: {what} {named}: that file is not installed as it is (commands/ "
                    "and agents/ are converted for each runtime, files at the top and "
                    "hooks/hooks.json are not installed): rewritten to where it would be"
                )

    def _description(self, rel: str, doc: Document) -> str | None:
        value = doc.get("description")
        if not isinstance(value, str) or not value.strip():
            self.problem(rel, "frontmatter has no 'description'")
            return None
        if len(value) > MAX_DESCRIPTION:
            self.problem(rel, f"description is longer than {MAX_DESCRIPTION} characters")
            return None
        return value

    def _tools(self, rel: str, doc: Document, key: str) -> list[str]:
        value = doc.get(key)
        if value is None:
            return []
        if isinstance(value, str):
            names = [t.strip() for t in value.split(",") if t.strip()]
        elif isinstance(value, list) and all(isinstance(t, str) for t in value):
            names = [t.strip() for t in value if t.strip()]
        else:
            self.problem(rel, f"'{key}' is not a comma-separated string or a list of names")
            return []
        for name in names:
            base = name.split("(")[0].strip()
            if base not in self.tools and not _MCP.fullmatch(base):
                self.problem(rel, f"'{key}' names unknown tool {base!r}")
        return names


def _with_folders(paths: set[str] | dict[str, bytes]) -> set[str]:
    """``paths`` and every folder above each (``a/b/c.md``: also ``a/b`` and ``a``)."""
    out: set[str] = set()
    for path in paths:
        out.add(path)
        folder = posixpath.dirname(path)
        while folder and folder not in out:
            out.add(folder)
            folder = posixpath.dirname(folder)
    return out


def _capped(problems: list[str]) -> list[str]:
    """At most ``MAX_PROBLEMS`` lines: a pack of a thousand broken files gets a report a
    person reads, then the count of the rest."""
    if len(problems) <= MAX_PROBLEMS:
        return problems
    rest = len(problems) - MAX_PROBLEMS
    return [*problems[:MAX_PROBLEMS], f".: and {rest} more problems, not shown"]


def _json_error(exc: Exception) -> str:
    return str(exc) if isinstance(exc, ValueError) else "nested too deeply"


def _unshown(count: int) -> tuple[str, ...]:
    if not count:
        return ()
    return (f"and {count} more warnings like these, not shown (fix the ones above first)",)


_NAME_LINE = re.compile(r"^name\s*:.*$")


def _renamed(text: str, name: str) -> str:
    """The file with ``name: <name>`` as the first line of its frontmatter (an own ``name``
    line replaced): the namespaced name every runtime's adapter reads."""
    lines = text.split("\n")
    end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    body = [line for line in lines[1:end] if not _NAME_LINE.match(line)]
    return "\n".join([lines[0], f"name: {name}", *body, *lines[end:]])
