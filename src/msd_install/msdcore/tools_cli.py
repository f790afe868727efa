"""``msd-tools``: the planning CLI that workflows and agents call (one JSON document out).

Exit codes: 0 success (the JSON is the result), 1 the operation failed (stdout holds
``{"error": {"code", "message"}}``), 2 usage error (same JSON shape, code ``usage``), 3 an
unexpected internal error (code ``internal``), 130 interrupted. The project is the nearest
ancestor of ``--cwd`` (default: the current directory) that contains ``.planning/``.
Every subcommand calls the same function as the MCP tool of the same name.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from .planning import (
    analyze,
    config,
    frontmatter,
    init,
    lifecycle,
    phases,
    progress,
    state,
    template,
    todo,
    verify,
)
from .planning.project import Project
from .toolspec import JSONObject, ToolError

Handler = Callable[[Project, argparse.Namespace], JSONObject]


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def _json_object(text: str) -> JSONObject:
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise ToolError("invalid_value", f"--json: not valid JSON ({exc})") from None
    if not isinstance(value, dict):
        raise ToolError("invalid_value", "--json must be a JSON object of field: value")
    return value


def _state(p: Project, a: argparse.Namespace) -> JSONObject:
    if a.action == "load":
        return state.state_load(p)
    if a.action == "get":
        return state.state_get(p, a.field)
    if a.action == "update":
        return state.state_update(p, a.field, a.value)
    if a.action == "patch":
        return state.state_patch(p, _json_object(a.json))
    return lifecycle.state_advance_plan(p)


def _roadmap(p: Project, a: argparse.Namespace) -> JSONObject:
    if a.action == "analyze":
        return analyze.roadmap_analyze(p)
    return analyze.roadmap_get_phase(p, a.number)


def _phase(p: Project, a: argparse.Namespace) -> JSONObject:
    if a.action == "list":
        return phases.phase_list(p)
    if a.action == "add":
        return phases.phase_add(p, a.name, a.goal)
    if a.action == "insert":
        return phases.phase_insert(p, a.after, a.name, a.goal)
    if a.action == "next":
        return phases.phase_next(p)
    return lifecycle.phase_complete(p, a.number, a.force)


def _config(p: Project, a: argparse.Namespace) -> JSONObject:
    if a.action == "get":
        return config.config_get(p, a.key)
    return config.config_set(p, a.key, a.value)


def _frontmatter(p: Project, a: argparse.Namespace) -> JSONObject:
    if a.action == "get":
        return frontmatter.frontmatter_get(p, a.file, a.key)
    if a.action == "set":
        return frontmatter.frontmatter_set(p, a.file, a.key, frontmatter.parse_value(a.value))
    return frontmatter.frontmatter_validate(p, a.file, a.schema)


def _template(p: Project, a: argparse.Namespace) -> JSONObject:
    return template.template_fill(p, a.name, template.parse_vars(a.var), a.out, a.force)


def _verify(p: Project, a: argparse.Namespace) -> JSONObject:
    if a.action == "plan-structure":
        return verify.verify_plan_structure(p, a.file)
    return verify.verify_phase_completeness(p, a.number)


def _todo(p: Project, a: argparse.Namespace) -> JSONObject:
    if a.action == "add":
        return todo.todo_add(p, a.title, a.area)
    if a.action == "list":
        return todo.todo_list(p, a.all)
    return todo.todo_done(p, a.id)


def _commit(p: Project, a: argparse.Namespace) -> JSONObject:
    from .planning import commit  # imported here: subprocess is slow to import, rarely needed

    return commit.commit(p, a.message, a.files)


def _group(sub: Any, name: str, helptext: str, handler: Handler, common: _Parser) -> Any:
    parser = sub.add_parser(name, help=helptext, parents=[common])
    parser.set_defaults(handler=handler)
    actions = parser.add_subparsers(dest="action", metavar="ACTION", parser_class=_Parser)
    actions.required = True
    return actions


def _init(sub: Any, common: _Parser) -> None:
    p = sub.add_parser("init", help="everything a workflow needs, as one JSON", parents=[common])
    p.add_argument("workflow")
    p.add_argument("--phase")
    p.set_defaults(handler=lambda pr, a: init.init(pr, a.workflow, a.phase))


def _state_cmds(sub: Any, common: _Parser) -> None:
    g = _group(sub, "state", "read and update STATE.md", _state, common)
    g.add_parser("load", parents=[common])
    g.add_parser("get", parents=[common]).add_argument("field")
    u = g.add_parser("update", parents=[common])
    u.add_argument("field")
    u.add_argument("value")
    g.add_parser("patch", parents=[common]).add_argument("--json", required=True)
    g.add_parser("advance-plan", parents=[common])


def _roadmap_cmds(sub: Any, common: _Parser) -> None:
    g = _group(sub, "roadmap", "parse ROADMAP.md", _roadmap, common)
    g.add_parser("analyze", parents=[common])
    g.add_parser("get-phase", parents=[common]).add_argument("number")


def _phase_cmds(sub: Any, common: _Parser) -> None:
    g = _group(sub, "phase", "list, add, insert, complete phases", _phase, common)
    g.add_parser("list", parents=[common])
    a = g.add_parser("add", parents=[common])
    a.add_argument("name")
    a.add_argument("--goal", default="")
    i = g.add_parser("insert", parents=[common])
    i.add_argument("after")
    i.add_argument("name")
    i.add_argument("--goal", default="")
    g.add_parser("next", parents=[common])
    c = g.add_parser("complete", parents=[common])
    c.add_argument("number")
    c.add_argument("--force", action="store_true")


def _config_cmds(sub: Any, common: _Parser) -> None:
    g = _group(sub, "config", "read and write .planning/config.json", _config, common)
    g.add_parser("get", parents=[common]).add_argument("key", nargs="?")
    s = g.add_parser("set", parents=[common])
    s.add_argument("key")
    s.add_argument("value")


def _frontmatter_cmds(sub: Any, common: _Parser) -> None:
    g = _group(sub, "frontmatter", "read, edit, validate frontmatter", _frontmatter, common)
    fg = g.add_parser("get", parents=[common])
    fg.add_argument("file")
    fg.add_argument("key", nargs="?")
    fs = g.add_parser("set", parents=[common])
    fs.add_argument("file")
    fs.add_argument("key")
    fs.add_argument("value")
    fv = g.add_parser("validate", parents=[common])
    fv.add_argument("file")
    fv.add_argument("--schema", required=True)


def _template_cmds(sub: Any, common: _Parser) -> None:
    g = _group(sub, "template", "fill a template", _template, common)
    t = g.add_parser("fill", parents=[common])
    t.add_argument("name")
    t.add_argument("--out")
    t.add_argument("--var", action="append", default=[], metavar="NAME=VALUE")
    t.add_argument("--force", action="store_true", help="replace an existing --out file")


def _verify_cmds(sub: Any, common: _Parser) -> None:
    g = _group(sub, "verify", "structural checks", _verify, common)
    g.add_parser("plan-structure", parents=[common]).add_argument("file")
    g.add_parser("phase-completeness", parents=[common]).add_argument("number")


def _progress_cmd(sub: Any, common: _Parser) -> None:
    p = sub.add_parser("progress", help="project progress", parents=[common])
    p.add_argument("--format", default="json")
    p.set_defaults(handler=lambda pr, a: progress.progress(pr, a.format))


def _commit_cmd(sub: Any, common: _Parser) -> None:
    p = sub.add_parser("commit", help="git commit planning files", parents=[common])
    p.add_argument("message")
    p.add_argument("--files", nargs="+")
    p.set_defaults(handler=_commit)


def _todo_cmds(sub: Any, common: _Parser) -> None:
    g = _group(sub, "todo", "capture and close todos", _todo, common)
    ta = g.add_parser("add", parents=[common])
    ta.add_argument("title")
    ta.add_argument("--area", default="general")
    g.add_parser("list", parents=[common]).add_argument("--all", action="store_true")
    g.add_parser("done", parents=[common]).add_argument("id")


COMMANDS: dict[str, Callable[[Any, _Parser], None]] = {
    "init": _init,
    "state": _state_cmds,
    "roadmap": _roadmap_cmds,
    "phase": _phase_cmds,
    "config": _config_cmds,
    "frontmatter": _frontmatter_cmds,
    "template": _template_cmds,
    "verify": _verify_cmds,
    "progress": _progress_cmd,
    "commit": _commit_cmd,
    "todo": _todo_cmds,
}


def _command_of(argv: Sequence[str]) -> str | None:
    """The subcommand named in ``argv`` (skipping ``--cwd DIR``), if it is a known one."""
    skip = False
    for token in argv:
        if skip:
            skip = False
        elif token == "--cwd":
            skip = True
        elif not token.startswith("-"):
            return token if token in COMMANDS else None
    return None


def build_parser(only: str | None = None) -> _Parser:
    """The parser; with ``only``, the other commands are registered without their arguments
    (argparse setup of every subcommand costs more than most commands take to run)."""
    common = _Parser(add_help=False)
    common.add_argument("--cwd", default=argparse.SUPPRESS, help="run as if started in DIR")
    top = _Parser(prog="msd-tools", description="MSD Core planning CLI (JSON on stdout).")
    top.add_argument("--cwd", default=".", help="run as if started in DIR")
    sub = top.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name, builder in COMMANDS.items():
        if only is None or name == only:
            builder(sub, common)
        else:
            sub.add_parser(name)
    return top


def _emit(document: JSONObject) -> None:
    sys.stdout.write(json.dumps(document, ensure_ascii=False) + "\n")  # stdout-ok
    sys.stdout.flush()


def _error(code: str, message: str) -> JSONObject:
    return {"error": {"code": code, "message": message}}


def main(argv: Sequence[str] | None = None) -> int:
    try:
        argv = list(sys.argv[1:] if argv is None else argv)
        args = build_parser(_command_of(argv)).parse_args(argv)
        project = Project.discover(Path(args.cwd), dict(os.environ))
        result = args.handler(project, args)
    except UsageError as exc:
        _emit(_error("usage", str(exc)))
        return 2
    except ToolError as exc:
        _emit(_error(exc.code, exc.message))
        return 1
    except KeyboardInterrupt:
        _emit(_error("interrupted", "interrupted"))
        return 130
    except Exception as exc:  # a bug, not a user error: one line, no traceback on stdout
        _emit(_error("internal", f"{type(exc).__name__}: {exc}"))
        return 3
    _emit(result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
