"""The generated reference pages: the command line from the click app, the runtime matrix
from the registry.

``python -m msd_install.docgen`` rewrites them; ``--check`` exits 1 naming the stale ones
(tests/docs/test_docs_generated.py runs it). Both pages are derived only from code (click's
parameters, the adapters' plans into a fake ``/HOME`` and ``/PROJECT``), so they come out the
same on every machine.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import click

from . import cli as cli_module
from .installer.context import GLOBAL, LOCAL, Context
from .payload import load
from .runtimes import ADAPTERS, RUNTIMES, matrix_markdown
from .runtimes._base import Adapter
from .runtimes.matrix import HOME, PROJECT, _tilde

PROG = "msd-install"
REGEN = "python -m msd_install.docgen"


def commands() -> Iterator[tuple[str, click.Command]]:
    """``msd-install`` and every subcommand ``main`` dispatches to: the click commands of
    ``cli.py`` (``cli`` is the top level; any other is ``msd-install <its name>``)."""
    found = [obj for obj in vars(cli_module).values() if isinstance(obj, click.Command)]
    top = cli_module.cli
    yield PROG, top
    for command in sorted((c for c in found if c is not top), key=lambda c: c.name or ""):
        yield f"{PROG} {command.name}", command


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def cli_markdown() -> str:
    lines = [
        "# Command line (generated)",
        "",
        "Generated from the click app (`src/msd_install/cli.py`) by "
        f"`{REGEN}`; do not edit by hand.",
        "What the flags mean together, the exit codes and the `--json` shape:",
        "[cli.md](cli.md).",
    ]
    for prog, command in commands():
        ctx = click.Context(command, info_name=prog)
        usage = " ".join([prog, *command.collect_usage_pieces(ctx)])
        lines += ["", f"## `{prog}`", "", "```", usage, "```", ""]
        lines += [_cell(command.help or ""), "", "| option | meaning |", "|---|---|"]
        for param in command.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            opts, help_text = record
            lines.append(f"| `{_cell(opts)}` | {_cell(help_text)} |")
    return "\n".join(lines) + "\n"


def _groups(adapter: Adapter, scope: str) -> tuple[str, str, str, str]:
    """Root, top-level folders with file counts, MCP config file, config formats."""
    plan = adapter.plan(Context(home=HOME, cwd=PROJECT, scope=scope), load())
    folders: Counter[str] = Counter()
    for op in plan.files:
        if op.path.is_relative_to(plan.root):
            parts = op.path.relative_to(plan.root).parts
            if len(parts) > 1:
                folders[parts[0]] += 1
    mcp = [e for e in plan.entries if e.label.split(" ")[0] == "MCP"]
    mcp_file = ", ".join(sorted({f"`{_tilde(e.file)}`" for e in mcp})) or "none"
    formats = ", ".join(sorted({e.fmt for e in plan.entries})) or "none"
    shown = " · ".join(f"{name} {n}" for name, n in sorted(folders.items()))
    return f"`{_tilde(plan.root)}`", shown, mcp_file, formats


def runtime_matrix_markdown() -> str:
    lines = [
        "# Runtime matrix (generated)",
        "",
        f"Generated from the runtime registry (`src/msd_install/runtimes/`) by `{REGEN}`,",
        "by planning an install into a fake home `~` and project `.`; do not edit by hand.",
        "Per runtime in detail, with the sources of each fact: [runtimes.md](runtimes.md).",
        "",
        "| flag | runtime | scopes | env override | global root | local root |",
        "|---|---|---|---|---|---|",
    ]
    per_scope: dict[str, list[str]] = {GLOBAL: [], LOCAL: []}
    hooks = []
    for name, label in RUNTIMES.items():
        adapter = ADAPTERS[name]
        roots = {s: _groups(adapter, s) for s in adapter.scopes}
        override = f"`{adapter.env_override}`" if adapter.env_override else "—"
        local = roots[LOCAL][0] if LOCAL in roots else "—"
        lines.append(
            f"| `--{name}` | {label} | {', '.join(adapter.scopes)} | {override} | "
            f"{roots[GLOBAL][0]} | {local} |"
        )
        for scope, rows in per_scope.items():
            if scope in roots:
                _, folders, mcp, formats = roots[scope]
                rows.append(f"| `--{name}` | {folders} | {mcp} | {formats} |")
        hooks.append(f"| `--{name}` | {_cell(adapter.hooks or 'none')} |")
    header = ["| flag | folders in the root (files) | MCP server entry in | config formats |"]
    for scope, rows in per_scope.items():
        title = "Global install (`--global`)" if scope == GLOBAL else "Project install (`--local`)"
        lines += ["", f"## {title}", "", *header, "|---|---|---|---|", *rows]
    lines += ["", "## Hooks", "", "| flag | how hooks are registered |", "|---|---|", *hooks]
    return "\n".join(lines) + "\n"


DOCS = Path("docs/reference")
PAGES: dict[str, Callable[[], str]] = {
    "cli-generated.md": cli_markdown,
    "runtime-matrix.md": runtime_matrix_markdown,
    "runtimes.md": matrix_markdown,
}


def stale(repo: Path) -> list[Path]:
    """The generated pages under ``repo`` whose text differs from what the code gives now."""
    out = []
    for name, render in PAGES.items():
        path = repo / DOCS / name
        if not path.is_file() or path.read_text(encoding="utf-8") != render():
            out.append(path)
    return out


@click.command()
@click.option("--check", is_flag=True, help="Write nothing; exit 1 if a page is stale.")
@click.option(
    "--repo",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path(),
    show_default=True,
    help="The checkout whose docs/ to write.",
)
def main(check: bool, repo: Path) -> None:
    """Write (or check) the generated reference pages under docs/reference/."""
    old = stale(repo)
    if check:
        for path in old:
            click.echo(f"stale: {path} (run: {REGEN})", err=True)
        sys.exit(1 if old else 0)
    for name, render in PAGES.items():
        path = repo / DOCS / name
        if path in old:
            path.write_text(render(), encoding="utf-8")
            click.echo(f"wrote {path}")


if __name__ == "__main__":
    main()
