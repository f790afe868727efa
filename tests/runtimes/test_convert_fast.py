"""The conversion's literal rewrites skip the steps they can prove idle (runtimes/literals.py,
issue 11) and still write exactly what the plain chain of ``str.replace`` calls wrote: for
random chains and texts (with substitutions in between, as ``convert_text`` makes), and for
``convert_text`` itself with every runtime's dialect, on generated texts and on the payload."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from msd_install import payload as payload_mod
from msd_install.payload import PLACEHOLDER_ROOT
from msd_install.runtimes import ADAPTERS, convert, literals
from msd_install.runtimes.convert import Dialect
from msd_install.runtimes.literals import Literals, may_create

HOME = Path("/home/u")


def reference(text: str, dialect: Dialect, ref: str, commands: Iterable[str] = ()) -> str:
    """``convert_text`` as it was: every rewrite applied in turn to the whole text."""
    if dialect.spawn is not convert.claude_spawn:
        out: list[str] = []
        pos = 0
        for start, end, spawn in convert.spawns(text):
            out += [text[pos:start], dialect.spawn(spawn)]
            pos = end
        out.append(text[pos:])
        text = "".join(out)
    text = text.replace(PLACEHOLDER_ROOT, ref)
    if "@" in text:
        text = convert._FILE_REF.sub(lambda m: dialect.file_ref(m.group("path")), text)
    text = text.replace("$ARGUMENTS", dialect.args)
    names = set(commands)
    text = convert._INVOKE.sub(
        lambda m: dialect.invoke(m.group("name")) if m.group("name") in names else m.group(0),
        text,
    )
    text = text.replace("$CLAUDE_PROJECT_DIR", dialect.project_dir)
    if dialect.context_file != "CLAUDE.md":
        text = text.replace("CLAUDE.md", dialect.context_file)
        same = f"`./{dialect.context_file}` or `{dialect.context_file}`"
        text = text.replace(same, f"`{dialect.context_file}`")
    if dialect.flag != "claude":
        text = text.replace("--claude", f"--{dialect.flag}")
        for old, new in convert.NOT_CLAUDE_WORDS:
            text = text.replace(old, new)
    for old, new in dialect.words:
        text = text.replace(old, new)
    return text


@contextmanager
def tuned(short: int, follow: int) -> Iterator[None]:
    """The skipping path for texts of any length (``short``), following more or fewer
    occurrences of a gate before giving up (``follow``)."""
    saved = Literals.short, literals._FOLLOW
    Literals.short, literals._FOLLOW = short, follow
    try:
        yield
    finally:
        Literals.short, literals._FOLLOW = saved


# every tuning: the default, every text long (the skipping path), and the two extremes of how
# far a gate is followed (give up at the first occurrence; follow them all)
TUNINGS = [(Literals.short, literals._FOLLOW), (0, literals._FOLLOW), (0, 10**9), (0, 1)]


def _dialects() -> list[tuple[str, Dialect, str]]:
    """(runtime, dialect, ref) of every ``convert_text`` call the adapters' plans make, global
    and local: the chains ``convert_text`` compiled for them."""
    from msd_install.installer.context import Context

    payload = payload_mod.load()
    found: dict[tuple[int, str], tuple[str, Dialect, str]] = {}
    for name in ADAPTERS:
        for scope in ADAPTERS[name].scopes:
            ctx = Context(home=HOME, cwd=HOME / "proj", env={}, scope=scope, platform="linux")
            convert._CHAINS.clear()
            ADAPTERS[name].plan(ctx, payload)
            for (ident, ref), (dialect, _chain) in convert._CHAINS.items():
                found[(ident, ref)] = (name, dialect, ref)
    return list(found.values())


DIALECTS = _dialects()
COMMANDS = [c.name for c in payload_mod.load().commands]


def test_every_converting_runtime_is_covered() -> None:
    runtimes = {name for name, _, _ in DIALECTS}
    assert runtimes == set(ADAPTERS) - {"claude"}
    assert max(len(literals_of(d, ref)) for _, d, ref in DIALECTS) > 15


def literals_of(dialect: Dialect, ref: str) -> list[tuple[str, str]]:
    return convert.literal_pairs(dialect, ref)


# ------------------------------------------------------------------ the chain on its own

SMALL = st.text(alphabet="ab$~GWu'-", max_size=4)


@settings(max_examples=400, deadline=None)
@given(
    pairs=st.lists(st.tuples(SMALL, SMALL), min_size=1, max_size=8),
    text=st.text(alphabet="ab$~GWu'-x", max_size=120),
    cut=st.integers(min_value=0, max_value=8),
    sub=st.tuples(st.sampled_from("ab$~GWux"), SMALL),
    tuning=st.sampled_from(TUNINGS),
)
def test_chain_equals_replace_after_replace(
    pairs: list[tuple[str, str]],
    text: str,
    cut: int,
    sub: tuple[str, str],
    tuning: tuple[int, int],
) -> None:
    """Pairs over a tiny alphabet overlap, contain and create each other's needles; in the
    middle, a substitution the chain does not see (like an ``@path`` rewrite) changes the
    text and clears what was known, as ``convert_text`` does."""
    cut = min(cut, len(pairs))
    expected = text
    for old, new in pairs[:cut]:
        expected = expected.replace(old, new)
    expected = expected.replace(*sub)
    for old, new in pairs[cut:]:
        expected = expected.replace(old, new)

    chain = Literals(pairs)
    with tuned(*tuning):
        known: dict[str, bool] = {}
        got = chain.run(text, 0, cut, known)
        changed = got.replace(*sub)
        if changed != got:
            known.clear()
        got = chain.run(changed, cut, len(chain), known)
    assert got == expected


@settings(max_examples=300, deadline=None)
@given(needle=st.text(alphabet="abc", min_size=1, max_size=5), new=st.text("abc", max_size=5))
def test_may_create_is_never_wrong_to_say_no(needle: str, new: str) -> None:
    """When ``may_create`` says no, ``new`` between any two short texts never holds an
    occurrence of ``needle`` that overlaps it."""
    if may_create(needle, new):
        return
    for left, right in itertools.product(["", "a", "b", "c", "ab", "ca", "bcb"], repeat=2):
        joined = left + new + right
        for at in range(len(joined)):
            if joined.startswith(needle, at):
                assert at + len(needle) <= len(left) or at >= len(left) + len(new)


# ---------------------------------------------------------- convert_text, every dialect


def _pieces(dialect: Dialect, ref: str) -> list[str]:
    pairs = literals_of(dialect, ref)
    out = [piece for pair in pairs for piece in pair]
    for old, _ in pairs:  # halves of needles: near misses and occurrences made by a rewrite
        out += [old[: len(old) // 2], old[len(old) // 2 :], old[1:], old[:-1]]
    out += [
        "@~/.claude/msd-core/workflows/x.md",
        " @./notes.md",
        f" /{COMMANDS[0]} ",
        "/msd-nope",
        'Task(\n  subagent_type="msd-planner",\n  description="Plan",\n  prompt="go"\n)\n',
        'Task(subagent_type="a", prompt="b")',
        "$",
        "~",
        "'",
        "G",
        "W",
        "`",
        "(",
        "\n",
        " ",
        "e",
        "the ",
        "é",
    ]
    return [p for p in out if p]


@pytest.mark.parametrize(
    ("runtime", "dialect", "ref"), DIALECTS, ids=[f"{n}-{r}" for n, _, r in DIALECTS]
)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_convert_text_equals_the_plain_chain(
    runtime: str, dialect: Dialect, ref: str, data: st.DataObject
) -> None:
    pieces = _pieces(dialect, ref)
    text = "".join(data.draw(st.lists(st.sampled_from(pieces), max_size=40), label="text"))
    tuning = data.draw(st.sampled_from(TUNINGS), label="tuning")
    expected = reference(text, dialect, ref, COMMANDS)
    with tuned(*tuning):
        assert convert.convert_text(text, dialect, ref, COMMANDS) == expected


def test_convert_text_equals_the_plain_chain_on_the_payload() -> None:
    """Every payload text, alone and run together into long texts (the size of the bench's
    references, where gates are followed through many occurrences), for every dialect."""
    data = Path(convert.__file__).resolve().parent.parent / "payload" / "data"
    texts = [p.read_text(encoding="utf-8") for p in sorted(data.rglob("*.md"))]
    whole = "".join(texts)
    texts += [whole[i : i + 16384] for i in range(0, len(whole), 16384)]
    assert len(texts) > 60
    for _, dialect, ref in DIALECTS:
        for tuning in TUNINGS:
            with tuned(*tuning):
                for text in texts:
                    expected = reference(text, dialect, ref, COMMANDS)
                    assert convert.convert_text(text, dialect, ref, COMMANDS) == expected


BITS = st.text(alphabet="ab$~G'-@/.", max_size=4)


@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_convert_text_equals_the_plain_chain_for_made_up_dialects(data: st.DataObject) -> None:
    """Dialects whose ``@path`` and ``/msd-x`` rewrites, arguments and words are drawn from a
    tiny alphabet: every rewrite can create, split or complete another's needle."""
    draw = data.draw
    around = [draw(BITS) for _ in range(4)]
    words = draw(st.lists(st.tuples(BITS.filter(bool), BITS), max_size=5))
    dialect = Dialect(
        "X",
        tools={},
        args=draw(BITS),
        invoke=lambda name: f"{around[0]}{name[4:]}{around[1]}",
        file_ref=lambda path: f"{around[2]}{path[-1:]}{around[3]}",
        context_file=draw(st.sampled_from(["CLAUDE.md", "AG.md", "a"])),
        project_dir=draw(BITS),
        words=tuple(words),
        flag=draw(st.sampled_from(["claude", "x"])),
    )
    ref = draw(BITS)
    pieces = [p for pair in literals_of(dialect, ref) for p in pair if p]
    pieces += [*around, "@./a", "@~/b.md", " ", "/msd-a", "/msd-b", "msd-", "\n", "ab", "$"]
    pieces = [p for p in pieces if p]
    text = "".join(draw(st.lists(st.sampled_from(pieces), max_size=30), label="text"))
    tuning = draw(st.sampled_from(TUNINGS), label="tuning")
    expected = reference(text, dialect, ref, ["msd-a"])
    with tuned(*tuning):
        assert convert.convert_text(text, dialect, ref, ["msd-a"]) == expected


@pytest.mark.parametrize(
    ("text", "file_ref", "invoke", "word"),
    [
        # the root's probe finds no "~": "~b" is known absent, until the @path rewrite makes it
        ("@./a " * 1000, "~b", "/msd-a", "~b"),
        # the $ARGUMENTS probe finds no "$": "$q" is known absent, until /msd-a becomes "$q"
        ("/msd-a " * 1000, "@", "$q", "$q"),
        # made across the join: "~" from the rewrite, "b" from the text after it
        ("@./a b " * 1000, "~", "/msd-a", "~ b"),
    ],
)
def test_a_needle_made_by_a_substitution_is_replaced(
    text: str, file_ref: str, invoke: str, word: str
) -> None:
    dialect = Dialect(
        "X",
        tools={},
        invoke=lambda _name: invoke,
        file_ref=lambda _path: file_ref,
        words=((word, "DONE"),),
        flag="x",
    )
    for tuning in TUNINGS:
        with tuned(*tuning):
            got = convert.convert_text(text, dialect, "R/", ["msd-a"])
        assert "DONE" in got
        assert got == reference(text, dialect, "R/", ["msd-a"])
