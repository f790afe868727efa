"""The ``msd-install`` command line: parse, ask what is missing, call the engine, render.

Thin on purpose: every decision lives in the engine and the adapters. This module (with
``render``) is the only one that writes to stdout. Exit codes (docs/reference/cli.md):
0 done; 1 done, but conflicts left something of ours not installed; 2 usage error;
3 internal error (a bug; the traceback is in a log file); 4 a file could not be read or
edited (nothing was changed); 5 another run holds the lock; 130 interrupted (rolled back).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeGuard

import click

from . import __version__
from .errors import FileAccessError, MsdError, UsageError
from .runtimes import RUNTIMES

if TYPE_CHECKING:
    from pathlib import Path
    from types import FrameType

    from .installer.baseline import KnownFiles
    from .installer.context import Context
    from .installer.plan import Bounds
    from .installer.report import Result
    from .payload import Payload
    from .progress import Progress
    from .runtimes._base import Adapter
    from .style import Style

    Ran = tuple[list[Result], BaseException | None]  # the results, and the error after them

# Only click and the runtime names are imported up front: ``--help`` and usage errors need
# nothing else (tests/cli/test_cli_imports.py); the engine, the adapters, the payload and the
# renderers are imported by the verbs that use them (``msd_install.entry`` answers
# ``--version`` without even click).

JSON_FORMAT = 1
INTERRUPTED = "interrupted; every change of this run was rolled back"
INTERRUPTED_AFTER = "interrupted once the run had finished: it was kept; nothing else was started"
# the command a user types first in a runtime, in the runtime's own syntax (Adapter.invoke)
FIRST_COMMAND = "msd-help"


def _runtime_options(func: Any) -> Any:
    for name in reversed(list(RUNTIMES)):
        func = click.option(
            f"--{name}", f"rt_{name}", is_flag=True, help=f"Install into {RUNTIMES[name]}."
        )(func)
    return func


@click.command(
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog="Also: 'msd-install doctor' checks every install (see 'msd-install doctor --help').",
)
@_runtime_options
@click.option("--all", "all_", is_flag=True, help="Every supported runtime.")
@click.option("-g", "--global", "global_", is_flag=True, help="Install into the user's config.")
@click.option("-l", "--local", is_flag=True, help="Install into the current project.")
@click.option(
    "-c",
    "--config-dir",
    metavar="DIR",
    help="Use this directory as the runtime's global root.",
)
@click.option("-u", "--uninstall", is_flag=True, help="Remove what msd-install installed.")
@click.option(
    "--adopt",
    is_flag=True,
    help="Rebuild a missing or damaged install manifest from the files on disk (baseline "
    "scan): msd's files are adopted, yours and unknown ones kept; nothing else changes.",
)
@click.option(
    "--reapply",
    is_flag=True,
    help="Merge your edits saved in msd-local-patches/ into the upgraded files (three-way).",
)
@click.option(
    "--done", is_flag=True, help="With --reapply: then remove the saved patches that are merged."
)
@click.option(
    "--payload",
    metavar="DIR",
    help="Install the Claude-format pack in DIR (in its own namespace) instead of MSD Core.",
)
@click.option(
    "--pack", metavar="NAME", help="With --uninstall: remove the pack NAME, not MSD Core."
)
@click.option("--dry-run", is_flag=True, help="Show what would happen; write nothing.")
@click.option(
    "--check",
    is_flag=True,
    help="Exit 1 if the install differs from what msd-install would write (drift); writes nothing.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
@click.option("-v", "--verbose", is_flag=True, help="List every path with its verb.")
@click.option("-y", "--yes", is_flag=True, help="Never ask; fail if something is missing.")
@click.option(
    "--force",
    is_flag=True,
    help="Replace files and entries of yours that are in the way (backed up, restored "
    "on uninstall).",
)
@click.option(
    "--force-statusline",
    is_flag=True,
    help="Replace your statusLine (backed up, restored on uninstall).",
)
@click.version_option(__version__, "--version", prog_name="msd-install")
def cli(
    all_: bool,
    global_: bool,
    local: bool,
    config_dir: str | None,
    uninstall: bool,
    adopt: bool,
    reapply: bool,
    done: bool,
    dry_run: bool,
    check: bool,
    as_json: bool,
    verbose: bool,
    yes: bool,
    force: bool,
    force_statusline: bool,
    payload: str | None,
    pack: str | None,
    **flags: bool,
) -> None:
    """Install MSD Core into AI coding runtimes, or remove it again without a trace."""
    from .installer import context
    from .installer.context import GLOBAL, LOCAL
    from .progress import Progress
    from .runtimes import ADAPTERS
    from .style import PLAIN, for_stream

    interactive = not yes and sys.stdin.isatty() and sys.stdout.isatty() and not as_json
    if global_ and local:
        raise UsageError("--global and --local cannot be used together")
    if config_dir is not None and local:
        raise UsageError("--config-dir names a global root; it cannot be used with --local")
    if check and uninstall:
        raise UsageError("--check and --uninstall cannot be used together")
    if adopt and (uninstall or check):
        raise UsageError(f"--adopt cannot be used with {'--uninstall' if uninstall else '--check'}")
    if reapply and (check or uninstall or adopt or force or force_statusline):
        raise UsageError("--reapply cannot be used with --check, --uninstall, --adopt or --force")
    if done and not reapply:
        raise UsageError("--done goes with --reapply")
    if (adopt or reapply) and (payload is not None or pack is not None):
        flag = "--adopt" if adopt else "--reapply"
        raise UsageError(f"{flag} works on MSD Core's install; it cannot be used with a pack")
    source = _pack_source(payload, pack, uninstall)
    names = [n for n in RUNTIMES if flags.get(f"rt_{n}")]
    if all_:
        names = list(RUNTIMES)
    scope = LOCAL if local else GLOBAL if (global_ or config_dir is not None) else None
    # with --config-dir, so that a bad one is refused before any prompt
    probe = context.from_environment(scope=scope or GLOBAL, config_dir=config_dir)
    why = "no terminal to ask on"
    if probe.ci and interactive:  # a CI job never waits for an answer, even on a terminal
        interactive, why = False, "CI is set"
    if not names:
        names = (
            _ask_runtimes(probe)
            if interactive
            else _missing("no runtime given", "--claude (or --all)", why)
        )
    if config_dir is not None and len(names) > 1:
        raise UsageError("--config-dir applies to one runtime; name exactly one")
    if scope is None:
        scope = (
            _ask_scope() if interactive else _missing("no scope given", "--global or --local", why)
        )
    names = _in_scope(names, scope, everything=all_, quiet=as_json)
    ctx = context.from_environment(
        scope=scope, config_dir=config_dir, force=force, force_statusline=force_statusline
    )
    from .jobs import jobs

    workers = jobs(ctx.env)  # checked on every run, used by several runtimes' runs
    if scope == LOCAL:
        for name in names:
            here, shared = ADAPTERS[name].root(ctx), ADAPTERS[name].root(ctx.with_scope(GLOBAL))
            if os.path.realpath(here) == os.path.realpath(shared):
                raise UsageError(
                    f"--local here would use {ADAPTERS[name].root(ctx)}, the global "
                    "root: run it in a project directory, or pass --global"
                )
    if uninstall and interactive and not dry_run:
        targets = ", ".join(str(ADAPTERS[n].root(ctx)) for n in names)
        click.confirm(f"Remove msd from {targets}?", default=True, abort=True)
    dry_run = dry_run or check
    style = PLAIN if as_json else for_stream(sys.stdout, ctx.env)
    results: list[Result] = []
    # the command the next: line suggests: a pack's own first one, else msd's
    first = FIRST_COMMAND
    if _is_pack(source) and (source.commands or source.skills):
        first = min([c.name for c in source.commands] + [k.name for k in source.skills])
    if _is_pack(source) and not (uninstall or reapply):
        # a path another install of msd owns, in any root: refused before the first write
        from .runtimes.packs import refuse_claims

        refuse_claims([ADAPTERS[n] for n in names], ctx, source)
    shown = None if as_json or not sys.stderr.isatty() else sys.stderr
    doing = (
        "checking"
        if dry_run
        else "removing msd from"
        if uninstall
        else "adopting msd's files in"
        if adopt
        else "installing"
    )
    doing = "reapplying your patches in" if reapply else doing
    verb = "uninstall" if uninstall else "reapply" if reapply else "install"
    with Progress(shown, _progress_delay(ctx)) as progress:

        def one(name: str, tick: Callable[[int], None] | None) -> Result:
            return _run(
                name, ctx, verb, done=done, dry_run=dry_run, tick=tick, pack=source, adopt=adopt
            )

        several = len(names) > 1 and not (adopt or reapply)  # those two: one process, rare
        results, error = (
            _side_by_side(names, ctx, one, progress, doing, workers)
            if several
            else _one_by_one(names, one, progress, doing)
        )
        if error is not None:
            progress.close()
            # what finished before the error or the signal is reported with it
            error.done = [r.to_json() for r in results]  # type: ignore[attr-defined]
            if not as_json:
                try:
                    for result in results:
                        click.echo(_text(result, ctx, verbose, style, first), color=style.color)
                except KeyboardInterrupt:  # the runs are done: a signal cuts the report only
                    raise _kept() from None
            raise error
    code = 1 if any(r.conflicts for r in results) and not uninstall else 0
    if check:
        code = 1 if any(r.drift for r in results) else 0
    try:
        _report(results, code, as_json=as_json, check=check, ctx=ctx, out=(verbose, style, first))
    except KeyboardInterrupt:  # every run is done: a signal now cuts the report short only
        raise _kept() from None
    sys.exit(code)


def _report(
    results: list[Result],
    code: int,
    *,
    as_json: bool,
    check: bool,
    ctx: Context,
    out: tuple[bool, Style, str],
) -> None:
    """The command's report once every run is done: one JSON document, or each run's text."""
    verbose, style, first = out
    if as_json:
        doc = {
            "format": JSON_FORMAT,
            "version": __version__,
            "exit_code": code,
            "results": [r.to_json() for r in results],
        }
        import json

        _JSON_SENT.append(True)  # (part of) the one document is on stdout: no second one
        click.echo(json.dumps(doc, indent=2))
        return
    from .render import render_check

    for result in results:
        text = (
            render_check(result, ctx.home, style)
            if check
            else _text(result, ctx, verbose, style, first)
        )
        click.echo(text, color=style.color)


_JSON_SENT: list[bool] = []


def _kept() -> KeyboardInterrupt:
    """A signal once the runs under way were done: they are kept, nothing else starts."""
    from .installer.interrupts import InterruptedAfterCommitError

    return InterruptedAfterCommitError()


def _one_by_one(
    names: list[str],
    one: Callable[[str, Callable[[int], None] | None], Result],
    progress: Progress,
    doing: str,
) -> Ran:
    """The runs in this process, in order, up to the first error (with the results before it)."""
    from .runtimes import ADAPTERS

    results: list[Result] = []
    for i, name in enumerate(names, 1):
        try:
            progress.step(f"{doing} {ADAPTERS[name].label} ({i}/{len(names)})")
        except KeyboardInterrupt as exc:  # between two runs: the ones before are done
            return results, _kept() if results else exc
        try:
            results.append(one(name, progress.tick))
        except (MsdError, KeyboardInterrupt) as exc:
            return results, exc
    return results, None


def _side_by_side(
    names: list[str],
    ctx: Context,
    one: Callable[[str, Callable[[int], None] | None], Result],
    progress: Progress,
    doing: str,
    workers: int,
) -> Ran:
    """The runs of several runtimes in groups side by side (``parallel.py``), the results in
    the order of ``names``: every run that ended, and the first error (in that order)."""
    from pathlib import Path

    from . import parallel

    if workers == 1:
        return _one_by_one(names, one, progress, doing)
    before: list[Result] = []
    if not os.path.lexists(ctx.manifest_registry().parent):
        # the first run makes the record's folders alone, in one transaction: made by runs
        # side by side, a rollback of the one that made them would find them in use
        before, error = _one_by_one(names[:1], one, progress, doing)
        if error is not None:
            return before, error
        names = names[1:]
    base = Path(os.path.abspath(ctx.cwd if ctx.is_local else ctx.home))  # noqa: PTH100
    plan = parallel.groups(names, lambda n: _touched(n, ctx), base)
    if len(plan) <= 1:
        results, error = _one_by_one(names, one, progress, doing)
        return before + results, error
    from .runtimes import ADAPTERS

    def shown(now: list[str], ended: int) -> None:
        labels = ", ".join(ADAPTERS[n].label for n in now)
        total = len(before) + len(names)
        progress.step(f"{doing} {labels} ({len(before) + ended}/{total} done)")

    rank = {name: i for i, name in enumerate(names)}
    try:
        outcomes = parallel.run_groups(
            plan,
            lambda n: one(n, None),
            rank=rank,
            workers=workers,
            progress=shown,
            forking=progress.paused,
        )
    except KeyboardInterrupt as exc:  # the runs that ended before the signal: reported too
        ended: list[Result] = getattr(exc, "results", [])
        return before + sorted(ended, key=lambda r: rank.get(r.runtime, 0)), exc
    results = [o.result for o in outcomes if o.error is None]
    error = next((o.error for o in outcomes if o.error is not None), None)
    return before + results, error


def _touched(name: str, ctx: Context) -> list[Path]:
    """What a runtime's run may create or empty: its root and its config files. Where they
    cannot be known (a bad override: that run will say so, in its turn), anything: the home
    itself, which groups the runtime with every one outside it (``parallel.groups``)."""
    from .runtimes import ADAPTERS

    runtime = ADAPTERS[name]
    try:
        return [runtime.root(ctx), *_bounds(runtime, ctx)().config_files]
    except (MsdError, OSError):
        return [ctx.cwd if ctx.is_local else ctx.home]


def _text(
    result: Result, ctx: Context, verbose: bool, style: Style, first: str = FIRST_COMMAND
) -> str:
    from .render import next_step, render_text
    from .runtimes import ADAPTERS

    runtime = ADAPTERS[result.runtime]
    then = next_step(result, runtime.label, runtime.invoke(first))
    return render_text(result, ctx.home, verbose=verbose, next_step=then, style=style)


def _progress_delay(ctx: Context) -> float:
    """Seconds before the progress line shows (``MSD_INSTALL_TEST_PROGRESS_AFTER``: a test
    hook, so that a terminal test need not depend on how fast the machine is)."""
    raw = ctx.env.get("MSD_INSTALL_TEST_PROGRESS_AFTER", "")
    try:
        return max(0.0, float(raw)) if raw else 1.0
    except ValueError:
        return 1.0


def _run(
    name: str,
    ctx: Context,
    verb: str,
    *,
    done: bool,
    dry_run: bool,
    tick: Callable[[int], None] | None = None,
    pack: Payload | str | None = None,
    adopt: bool = False,
) -> Result:
    """One runtime's run (``verb``: install, uninstall or reapply); ``tick(n)`` is called
    right before the engine's n-th change; ``pack``: a pack read from ``--payload``, or a
    pack's name (``--pack``); None: MSD Core."""
    try:
        return _run_one(
            name, ctx, verb, done=done, dry_run=dry_run, tick=tick, pack=pack, adopt=adopt
        )
    except OSError as exc:  # met outside a transaction (inside one it is rolled back and
        raise _refused(exc) from exc  # reported by the engine): a folder this user may not
        # look into (a HOME under a mode 700 parent), a loop of links...: one line, not a crash


def _refused(exc: OSError) -> FileAccessError:
    """The one-line error of what the operating system refused outside a run's transaction."""
    from pathlib import Path

    where = Path(exc.filename) if isinstance(exc.filename, str) and exc.filename else None
    hint = "let this user reach it, then run msd-install again"
    return FileAccessError(f"{exc.strerror or exc}", path=where, hint=hint)


def _run_one(
    name: str,
    ctx: Context,
    verb: str,
    *,
    done: bool,
    dry_run: bool,
    tick: Callable[[int], None] | None,
    pack: Payload | str | None,
    adopt: bool,
) -> Result:
    from .installer import engine
    from .runtimes import ADAPTERS

    # each verb imports what it needs: an uninstall converts no payload (tests/cli/
    # test_cli_imports.py)
    runtime = ADAPTERS[name]
    fault = _both(tick, _signal_hook())
    if verb == "reapply":
        where, bounds = runtime.root(ctx), _bounds(runtime, ctx)
        return engine.reapply(name, ctx, where, bounds, done=done, dry_run=dry_run, fault=fault)
    if verb == "uninstall":
        space = pack if isinstance(pack, str) else pack.namespace if pack is not None else ""
        bounds = _bounds(runtime, ctx)  # a pack's manifest names no other config file
        return engine.uninstall(
            name, ctx, runtime.root(ctx), bounds, dry_run=dry_run, fault=fault, namespace=space
        )
    if _is_pack(pack):  # a pack: no migrations, no baseline (MSD Core's own)
        from .runtimes.packs import pack_plan

        return engine.install(pack_plan(runtime, ctx, pack), ctx, dry_run=dry_run, fault=fault)
    from .migrations import ALL as MIGRATIONS
    from .payload import load as load_payload

    plan = runtime.plan(ctx, load_payload())
    if adopt:
        known = _shipped(name)
        return engine.adopt(plan, ctx, known, dry_run=dry_run, fault=fault, migrations=MIGRATIONS)
    return engine.install(
        plan,
        ctx,
        dry_run=dry_run,
        fault=fault,
        migrations=MIGRATIONS,
        shipped=lambda: _shipped(name),  # read only when a base needs it
    )


def _shipped(name: str) -> KnownFiles:
    """Every (path, sha256) msd released for runtime ``name`` (``released.json``)."""
    from .migrations import released

    return released.known().get(name, {})


def _is_pack(source: Payload | str | None) -> TypeGuard[Payload]:
    """``source`` is a pack read from ``--payload`` (not a pack's name, not MSD Core); told
    without importing the payload's classes, which an uninstall may not need."""
    return source is not None and not isinstance(source, str)


def _pack_source(payload: str | None, pack: str | None, uninstall: bool) -> Payload | str | None:
    """The pack a run is about: read and validated from ``--payload`` before anything is
    planned or written, or named by ``--pack`` (uninstall only); None for MSD Core."""
    if pack is not None:
        from .payload.pack import NAME as PACK_NAME

        if not uninstall:
            raise UsageError("--pack names a pack to remove: use it with --uninstall")
        if payload is not None:
            raise UsageError("--pack and --payload cannot be used together")
        if not PACK_NAME.fullmatch(pack):
            raise UsageError(f"--pack {pack!r} is not a pack name")
        return pack
    if payload is None:
        return None
    from pathlib import Path

    from .runtimes.packs import read_pack

    return read_pack(Path(payload))


def _both(
    first: Callable[[int], None] | None, then: Callable[[int], None] | None
) -> Callable[[int], None] | None:
    if first is None or then is None:
        return first or then

    def hook(n: int) -> None:
        first(n)
        then(n)

    return hook


def _signal_hook() -> Callable[[int], None] | None:
    """Test hook: ``MSD_INSTALL_TEST_SIGNAL=<k>:<KILL|TERM|INT>`` sends that signal to this
    process right before its k-th change on disk, so that the crash-recovery tests
    (tests/installer/test_crash_recovery.py) can stop a real run at every point."""
    spec = os.environ.get("MSD_INSTALL_TEST_SIGNAL", "")
    count, _, name = spec.partition(":")
    if not count.isdigit() or name not in ("KILL", "TERM", "INT"):
        return None
    import signal

    number = getattr(signal, f"SIG{name}")

    def hook(n: int) -> None:
        if n == int(count):
            os.kill(os.getpid(), number)

    return hook


def _in_scope(names: list[str], scope: str, *, everything: bool, quiet: bool) -> list[str]:
    """The runtimes that have ``scope``; naming one that has not is a usage error, --all
    leaves it out with a note."""
    from .runtimes import ADAPTERS

    out = []
    for name in names:
        if scope in ADAPTERS[name].scopes:
            out.append(name)
            continue
        why = f"{RUNTIMES[name]} has no {scope} scope (it reads no project directory)"
        if not everything:
            raise UsageError(f"--{name}: {why}; use --global")
        if not quiet:
            click.echo(f"note: --all leaves out {RUNTIMES[name]}: {why}", err=True)
    return out


def _bounds(runtime: Adapter, ctx: Context) -> Callable[[], Bounds]:
    """What a manifest in this root may name outside it: asked for only when one exists
    (planning refuses some roots, where there is then nothing to read anyway), once per
    run, from the adapter's plan over the payload's skeleton (``runtimes/bounds.py``)."""
    from functools import cache

    def bounds() -> Bounds:
        from .installer.pending import widened
        from .migrations import ALL as MIGRATIONS
        from .runtimes.bounds import core_bounds

        return widened(lambda: core_bounds(runtime, ctx), runtime.root(ctx), MIGRATIONS)()

    return cache(bounds)


def _missing(what: str, flags: str, why: str) -> Any:
    raise UsageError(f"{what} and {why}; pass {flags}")


def _ask_runtimes(ctx: Context) -> list[str]:
    from .runtimes import ADAPTERS

    supported = list(ADAPTERS)
    found = {n: ADAPTERS[n].detect(ctx) for n in supported}
    detected = [n for n in supported if found[n].found]
    click.echo("Which runtimes? (comma-separated numbers)")
    for i, name in enumerate(supported, 1):
        mark = f" (detected: {found[name].why})" if name in detected else ""
        click.echo(f"  {i}. {RUNTIMES[name]}{mark}")
    default = ",".join(str(supported.index(n) + 1) for n in detected) or "1"
    answer = click.prompt("Runtimes", default=default)
    picked: list[str] = []
    for part in str(answer).replace(" ", "").split(","):
        if not part.isdigit() or not 1 <= int(part) <= len(supported):
            raise UsageError(f"not a choice: {part!r}")
        picked.append(supported[int(part) - 1])
    return picked


def _ask_scope() -> str:
    from .installer.context import GLOBAL, LOCAL

    answer = click.prompt(
        "Install globally (g, for every project) or locally (l, this project)?",
        type=click.Choice(["g", "l"]),
        default="g",
    )
    return LOCAL if answer == "l" else GLOBAL


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
def doctor(as_json: bool) -> None:
    """Check every msd install (global, and local in this directory) for problems."""
    import json
    from pathlib import Path

    from .installer import context
    from .installer.context import GLOBAL
    from .installer.health import check_health, health_json
    from .render import render_health
    from .runtimes import ADAPTERS
    from .style import for_stream

    ctx = context.from_environment(scope=GLOBAL)
    reports = []
    seen: set[Path] = set()
    for name, runtime in ADAPTERS.items():
        for scope in runtime.scopes:
            root = runtime.root(ctx.with_scope(scope))
            real = Path(os.path.realpath(root))
            if real not in seen:  # in the home directory, local and global are one root
                seen.add(real)
                here = ctx.with_scope(scope)
                try:
                    reports.append(check_health(name, here, root, _bounds(runtime, here)))
                except OSError as exc:  # a folder this user may not look into: one line
                    raise _refused(exc) from exc
    code = 0 if all(h.healthy for h in reports) else 1
    if as_json:
        click.echo(
            json.dumps(
                {
                    "format": JSON_FORMAT,
                    "version": __version__,
                    "exit_code": code,
                    "installs": [health_json(h) for h in reports],
                },
                indent=2,
            )
        )
    else:
        style = for_stream(sys.stdout, ctx.env)
        click.echo(render_health(reports, ctx.home, style), color=style.color)
    sys.exit(code)


def main(argv: list[str] | None = None) -> None:
    """Entry point: the one boundary where errors become one line and an exit code (and, under
    ``--json``, still exactly one JSON document on stdout: see ``_fail``). SIGTERM stops the
    command as Ctrl-C does, wherever it is (``_interruptible``)."""
    with _interruptible():
        _main(argv)


@contextlib.contextmanager
def _interruptible() -> Iterator[None]:
    """For the whole command: SIGTERM, like SIGINT, raises ``KeyboardInterrupt`` (a run under
    way rolls back, or is kept once its work is done: ``installer/interrupts.py``; workers get
    it from ``parallel._forwarding``), and the command exits 130 with one line. A signal that
    comes once the command is already stopping for one (its ``KeyboardInterrupt`` on the way
    out, the line being written, the exit) changes nothing: a second SIGTERM ends the command
    exactly as the first, never as a raw death (143) in the middle of its last steps."""
    import signal

    def stop(_number: int, _frame: FrameType | None) -> None:
        if not _stopping():
            raise KeyboardInterrupt

    try:
        before = {n: signal.signal(n, stop) for n in (signal.SIGINT, signal.SIGTERM)}
    except ValueError:  # not the main thread: no handler can be set
        yield
        return
    try:
        yield
    except SystemExit as exc:
        if exc.code == 130:  # stopped by a signal: the process ends, and no other one ends it
            before = dict.fromkeys(before, signal.SIG_IGN)
        raise
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)


def _stopping() -> bool:
    """Is the command already on its way out for a signal (or an answer "no" at a prompt)?"""
    exc: BaseException | None = sys.exc_info()[1]
    for _ in range(8):  # the exception being handled, and the ones it was raised in
        if exc is None:
            return False
        if isinstance(exc, KeyboardInterrupt | click.exceptions.Abort):
            return True
        exc = exc.__context__
    return False


def _main(argv: list[str] | None) -> None:
    _JSON_SENT.clear()  # per command: ``main`` may be called again in one process
    args = sys.argv[1:] if argv is None else argv
    command, args = (doctor, args[1:]) if args[:1] == ["doctor"] else (cli, args)
    name = "msd-install doctor" if command is doctor else "msd-install"
    as_json = "--json" in args[: args.index("--")] if "--" in args else "--json" in args
    try:
        command.main(args=args, prog_name=name, standalone_mode=False)
    except click.exceptions.Abort as exc:
        if isinstance(exc.__context__, KeyboardInterrupt):  # click turns Ctrl-C into Abort
            done = getattr(exc.__context__, "done", None)
            _fail(as_json, 130, "interrupted", _interrupted(exc.__context__), done=done)
        _fail(as_json, 130, "aborted", "aborted; nothing was changed")
    except click.ClickException as exc:
        code = 2 if isinstance(exc, click.UsageError) else exc.exit_code
        if as_json:
            _fail(True, code, "usage", f"error: {exc.format_message()}")
        exc.show()
        sys.exit(code)
    except MsdError as exc:
        kind = type(exc).__name__
        line = f"error: {exc.one_line()}"
        problems = getattr(exc, "problems", None)
        _fail(as_json, exc.exit_code, kind, line, path=exc.path, done=exc.done, more=problems)
    except KeyboardInterrupt as exc:
        done = getattr(exc, "done", None)
        _fail(as_json, 130, "interrupted", _interrupted(exc), done=done)
    except Exception as exc:  # a bug: keep the traceback, show one line
        log = _write_crash_log(exc)
        own = getattr(exc, "kind", None)  # a worker's crash (parallel.py): its own error
        name = own if isinstance(own, str) else exc.__class__.__name__
        line = f"internal error: {name}: {exc} (details in {log}; please report it)"
        _fail(as_json, 3, "internal", line, path=log)


def _interrupted(exc: KeyboardInterrupt) -> str:
    """The line for a signal: the run under way rolled back, or kept when it came once the
    run's work was done (installer/interrupts.py, told apart without importing it)."""
    after = type(exc).__name__ == "InterruptedAfterCommitError"
    return INTERRUPTED_AFTER if after else INTERRUPTED


def _fail(
    as_json: bool,
    code: int,
    kind: str,
    line: str,
    *,
    path: Path | None = None,
    done: list[dict[str, object]] | None = None,
    more: list[str] | None = None,
) -> None:
    """Report an error and exit ``code``: ``msd-install: <line>`` on stderr; under ``--json``
    also the one document on stdout, with what finished before the error (``results``) and
    the error (its message without the ``error: `` of the text line)."""
    import json

    from .style import for_stream

    style = for_stream(sys.stderr, os.environ)
    kind_word, sep, rest = line.partition(": ")
    shown = style.paint(kind_word + sep, "red", bold=True) + rest if sep else line
    click.echo(f"msd-install: {shown}", err=True, color=style.color)
    for problem in more or ():  # a malformed pack: every problem, one line each
        rel, _, what = problem.partition(": ")
        where = path if rel == "." or path is None else path / rel
        click.echo(f"msd-install: {where}: {what}", err=True)
    if as_json and not _JSON_SENT:  # never a second document after the report's own
        error: dict[str, object] = {
            "kind": kind,
            "message": line.removeprefix("error: "),
            "path": str(path) if path else None,
        }
        if more:
            error["problems"] = more
        doc = {
            "format": JSON_FORMAT,
            "version": __version__,
            "exit_code": code,
            "results": done or [],
            "error": error,
        }
        click.echo(json.dumps(doc, indent=2))
    sys.exit(code)


def _write_crash_log(exc: BaseException) -> Path:
    import tempfile
    import traceback
    from pathlib import Path

    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    trace = getattr(exc, "trace", None)  # a worker's crash (parallel.py): where it happened
    if isinstance(trace, str) and trace:
        text += "\nin the worker process:\n" + trace
    fd, name = tempfile.mkstemp(prefix="msd-install-crash-", suffix=".log")
    with open(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    return Path(name)
