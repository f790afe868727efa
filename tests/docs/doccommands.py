"""Every command the docs show, extracted from README.md and docs/**/*.md.

What counts as a command (read by tests/docs/test_docs_commands.py, which runs them):

* fenced ```bash, ```sh, ```shell blocks: every line that is not blank or a comment (a line
  ending in ``\\`` goes on with the next; a here-document takes its body with it);
* ```console blocks: the lines starting with ``$ `` (the rest is output);
* ```yaml / ```yml blocks (GitHub Actions, Ansible): parsed with ruamel.yaml; the lines of
  every ``run``, ``shell``, ``command``, ``cmd`` (and ``argv``) value that invoke msd-install;
* ```dockerfile blocks: the ``&&``-separated parts of ``RUN`` instructions that invoke
  msd-install;
* ```json blocks that mention msd-install (a devcontainer): parsed; the lines of every
  ``*Command`` value that invoke msd-install.

A command expects exit 0, or the code a trailing comment names (``# exit 1``). A block is left
out only by a reasoned marker on the line before it (blank lines between are fine):
``<!-- docs-test: skip (why it cannot run in a test) -->``.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SHELL = {"bash", "sh", "shell", "console"}
MARKER = re.compile(r"^<!--\s*docs-test:\s*skip\s*\((?P<why>[^)]+)\)\s*-->$")
FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})\s*(?P<info>[\w+-]*)")
EXPECT = re.compile(r"(?:^|\s)#[^\n]*?\bexit (?P<code>\d+)\b")
MSD = re.compile(r"(?<![\w/.-])msd-install(?![\w.-])")
HEREDOC = re.compile(r"<<-?\s*(['\"]?)(?P<tag>\w+)\1")

# The substitution table: what a reader types -> what the test runs. The test puts the
# msd-install of the venv under test (this checkout) first on the PATH, so every way the docs
# show to get msd-install runs this source tree, not something from an index.
SUBSTITUTIONS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bpipx run --spec \S+ msd-install\b"), "msd-install"),
    (re.compile(r"\buvx --from \S+ msd-install\b"), "msd-install"),
    (re.compile(r"\bpipx run msd-install\b"), "msd-install"),
    (re.compile(r"\buvx msd-install\b"), "msd-install"),
    # installing msd-install itself: already on the PATH
    (re.compile(r"\bpipx install( --force)? (msd-install|\S*msd_install\S*\.whl)"), "true"),
    (re.compile(r"\bpipx uninstall msd-install\b"), "true"),
)


@dataclass(frozen=True)
class Command:
    page: str  # relative to the repository
    line: int  # of the block's fence
    text: str  # as written
    run: str  # after the substitution table
    expect: int


@dataclass(frozen=True)
class Skipped:
    page: str
    line: int
    lang: str
    why: str


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    lang: str
    body: str
    skip: str | None


def blocks(page: str, text: str) -> Iterator[Block]:
    lines = text.split("\n")
    i = 0
    marker: str | None = None
    while i < len(lines):
        line = lines[i]
        found = MARKER.match(line.strip())
        if found:
            marker = found["why"].strip()
            i += 1
            continue
        fence = FENCE.match(line)
        if not fence:
            if line.strip():
                marker = None
            i += 1
            continue
        close = fence["fence"]
        body: list[str] = []
        start = i + 1
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(close):
            body.append(lines[i][len(fence["indent"]) :])
            i += 1
        yield Block(page, start, fence["info"].lower(), "\n".join(body) + "\n", marker)
        marker = None
        i += 1


def shell_lines(body: str, console: bool = False) -> Iterator[str]:
    """Logical command lines of a shell block: continuations joined, here-documents kept."""
    lines = body.rstrip("\n").split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if console:
            if not line.startswith("$ "):
                continue
            line = line[2:]
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        while line.endswith("\\") and i < len(lines):
            nxt = lines[i][2:] if console and lines[i].startswith("> ") else lines[i]
            line = line[:-1].rstrip() + " " + nxt.strip()
            i += 1
        doc = HEREDOC.search(line)
        if doc:
            tag = doc["tag"]
            while i < len(lines):
                line += "\n" + lines[i]
                i += 1
                if lines[i - 1].strip() == tag:
                    break
        yield line


def _msd_lines(script: str) -> Iterator[str]:
    for line in shell_lines(script):
        if MSD.search(line):
            yield line


_COMMAND_KEYS = {"run", "shell", "command", "cmd"}


def _config_commands(node: Any, key: str = "") -> Iterator[str]:
    last = key.split(".")[-1]
    if isinstance(node, str):
        if last in _COMMAND_KEYS or last.endswith("Command"):
            yield from _msd_lines(node)
    elif isinstance(node, dict):
        for k, v in node.items():
            yield from _config_commands(v, str(k))
    elif isinstance(node, list):
        if last == "argv" and all(isinstance(a, str) for a in node):
            joined = shlex.join(node)
            if MSD.search(joined):
                yield joined
            return
        for item in node:
            yield from _config_commands(item, key)


def _yaml(body: str) -> Any:
    from ruamel.yaml import YAML

    return YAML(typ="safe").load(body)


def _dockerfile(body: str) -> Iterator[str]:
    for line in shell_lines(body):
        instruction, _, rest = line.strip().partition(" ")
        if instruction.upper() != "RUN":
            continue
        for part in re.split(r"\s*(?:&&|;)\s*", rest):
            if MSD.search(part):
                yield part.strip()


def substitute(line: str) -> str:
    for pattern, repl in SUBSTITUTIONS:
        line = pattern.sub(repl, line)
    return line


def expected(line: str) -> int:
    first = line.split("\n", 1)[0]
    found = EXPECT.search(first)
    return int(found["code"]) if found else 0


def commands_of(block: Block) -> list[str]:
    """The command lines of one block, as written. Raises ValueError when a YAML or JSON
    block that should be read does not parse."""
    lang = block.lang
    if lang in SHELL:
        return list(shell_lines(block.body, console=lang == "console"))
    if lang in ("yaml", "yml"):
        try:
            return list(_config_commands(_yaml(block.body)))
        except Exception as exc:  # ruamel's errors have no common public base
            raise ValueError(f"{block.page}:{block.line}: YAML does not parse: {exc}") from None
    if lang == "dockerfile":
        return list(_dockerfile(block.body))
    if lang in ("json", "jsonc") and MSD.search(block.body):
        try:
            return list(_config_commands(json.loads(block.body)))
        except ValueError as exc:
            raise ValueError(f"{block.page}:{block.line}: JSON does not parse: {exc}") from None
    return []


def page_commands(repo: Path, path: Path) -> tuple[list[Command], list[Skipped]]:
    page = path.relative_to(repo).as_posix()
    runs: list[Command] = []
    skipped: list[Skipped] = []
    for block in blocks(page, path.read_text(encoding="utf-8")):
        found = commands_of(block)
        if not found:
            continue
        if block.skip is not None:
            skipped.append(Skipped(page, block.line, block.lang, block.skip))
            continue
        for text in found:
            runs.append(Command(page, block.line, text, substitute(text), expected(text)))
    return runs, skipped


def pages(repo: Path) -> list[Path]:
    return [repo / "README.md", *sorted((repo / "docs").rglob("*.md"))]
