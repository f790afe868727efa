"""The TOML splice editor: exact inverses, user text untouched, refusals instead of damage."""

from __future__ import annotations

import pytest
import tomlkit
from hypothesis import given, settings
from hypothesis import strategies as st

from msd_install.installer.tomledit import TomlDocument, TomlEditError, TomlSyntaxError
from msd_install.installer.tomlspan import header_keys, headers

SERVER = {
    "command": "/usr/bin/python3",
    "args": ["-I", "-S", "/home/u/.codex/msd-core/bin/msd-mcp"],
    "env": {"MSD_AUDIT_LOG": "/home/u/.local/state/msd/audit.jsonl"},
}
HOOK = {"event": "PreToolUse", "matcher": "Shell", "command": "python3 -I -S /x/hook.py"}

SEEDS = [
    "",
    "\n",
    'model = "o3"',
    'model = "o3"\n',
    '# top\nmodel = "o3"  # inline\n\n[projects."/x y"]\ntrust_level = "trusted"\n\n# c\n[tui]\n',
    '[mcp_servers.other]\ncommand = "x"\nargs = []\n\n[zeta]\na = 1\n',
    "a = 1\r\n[b]\r\nc = 2\r\n",
    "[features]\nfoo = true\n\n[other]\nx=1\n",
    "x = \"\"\"\n[mcp_servers.msd]\n\"\"\"\ny = '''\n[hooks]\n'''\n",
    "arr = [\n  [1, 2],\n  [3],\n]\n[t]\nk = { a = [1, {b = 2}] }\n",
    '[[hooks]]\nevent = "Stop"\ncommand = "user-hook"\n',
    "[features]\n# the user's own flags\nweb = true\n",
]


def _add_all(doc: TomlDocument) -> tuple[TomlDocument, list[str | None]]:
    doc, a = doc.add_member(("mcp_servers",), "msd", SERVER)
    doc, b = doc.add_member(("features",), "codex_hooks", True)
    doc, c = doc.append_item(("hooks",), HOOK)
    return doc, [a.interior, b.interior, c.interior]


def _remove_all(doc: TomlDocument, interiors: list[str | None]) -> TomlDocument:
    hooks = doc.node(("hooks",))
    assert hooks is not None
    index = max(i for i, item in enumerate(hooks.items) if item.value == HOOK)
    doc = doc.remove_item(("hooks",), index, interiors[2])
    doc = doc.remove_member(("features",), "codex_hooks", interiors[1])
    return doc.remove_member(("mcp_servers",), "msd", interiors[0])


@pytest.mark.parametrize("seed", SEEDS)
def test_add_then_remove_gives_back_every_byte(seed: str) -> None:
    doc, interiors = _add_all(TomlDocument(seed))
    data = tomlkit.parse(doc.text).unwrap()
    assert data["mcp_servers"]["msd"] == SERVER
    assert data["features"]["codex_hooks"] is True
    assert data["hooks"][-1] == HOOK
    assert _remove_all(doc, interiors).text == seed


@pytest.mark.parametrize("seed", SEEDS)
def test_user_tables_added_after_ours_survive_removal(seed: str) -> None:
    doc, interiors = _add_all(TomlDocument(seed))
    tail = "\n# added later by the user\n[user_after]\nq = 1\n"
    nl = "\r\n" if "\r\n" in seed else "\n"
    doc = TomlDocument(doc.text + tail.replace("\n", nl))
    assert _remove_all(doc, interiors).text == seed + tail.replace("\n", nl)


def test_crlf_file_gets_crlf_lines() -> None:
    doc, _ = _add_all(TomlDocument("a = 1\r\n[b]\r\nc = 2\r\n"))
    assert "\n" not in doc.text.replace("\r\n", "")


def test_a_changed_block_of_ours_is_removed_by_its_span() -> None:
    seed = '[tui]\ntheme = "dark"\n'
    doc, interiors = TomlDocument(seed).add_member(("mcp_servers",), "msd", SERVER)
    edited = doc.text.replace('command = "/usr/bin/python3"', 'command = "/opt/py"  # mine')
    out = TomlDocument(edited).remove_member(("mcp_servers",), "msd", interiors.interior)
    assert tomlkit.parse(out.text).unwrap() == {"tui": {"theme": "dark"}}
    assert out.text.startswith(seed)


def test_replace_and_put_back_a_users_table() -> None:
    seed = '[mcp_servers.msd]\ncommand = "theirs"  # keep me\n\n[z]\na = 1\n'
    doc, previous = TomlDocument(seed).replace_value(("mcp_servers", "msd"), SERVER)
    assert tomlkit.parse(doc.text).unwrap()["mcp_servers"]["msd"] == SERVER
    assert doc.text.endswith("[z]\na = 1\n")
    back = doc.replace_value_text(("mcp_servers", "msd"), previous)
    assert back.text == seed


def test_an_inline_parent_table_is_refused_not_damaged() -> None:
    seed = 'mcp_servers = { other = { command = "x" } }\n'
    with pytest.raises(TomlEditError):
        TomlDocument(seed).add_member(("mcp_servers",), "msd", SERVER)


def test_a_static_array_is_not_an_array_of_tables() -> None:
    with pytest.raises(TomlEditError):
        TomlDocument("hooks = [1, 2]\n").append_item(("hooks",), HOOK)


def test_syntax_errors_name_the_position() -> None:
    with pytest.raises(TomlSyntaxError, match="line 2"):
        TomlDocument("a = 1\nb = \n")


def test_headers_inside_strings_arrays_and_comments_are_not_headers() -> None:
    text = 'x = """\n[not]\n"""\n# [nor]\ny = [\n [1],\n]\n  [real.one] # c\n[[arr]]\n'
    found = [header_keys(h.text) for h in headers(text)]
    assert found == [(("real", "one"), False), (("arr",), True)]


def test_scanner_handles_long_strings_and_deep_brackets() -> None:
    text = 'a = "' + "[x] " * 100_000 + '"\n' + "b = " + "[" * 5000 + "]" * 5000 + "\n[t]\n"
    assert [h.text for h in headers(text)] == ["[t]"]


_ident = st.text(alphabet="abcdefghij_-", min_size=1, max_size=6)
_scalar = st.one_of(
    st.integers(-1000, 1000),
    st.booleans(),
    st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=8),
)


@st.composite
def _documents(draw: st.DrawFn) -> str:
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 4))):
        lines.append(f"{draw(_ident)} = {tomlkit.item(draw(_scalar)).as_string()}")
        if draw(st.booleans()):
            lines.append(f"# {draw(st.text(alphabet='abc [ ]', max_size=8))}")
    used: set[str] = set()
    for _ in range(draw(st.integers(0, 4))):
        name = draw(_ident)
        if name in used or name in ("mcp_servers", "features", "hooks"):
            continue
        used.add(name)
        if draw(st.booleans()):
            lines.append("")
        lines.append(f"[{name}]" + (" # c" if draw(st.booleans()) else ""))
        for _ in range(draw(st.integers(0, 3))):
            lines.append(f"k{draw(_ident)} = {tomlkit.item(draw(_scalar)).as_string()}")
    text = nl.join(lines)
    if draw(st.booleans()):
        text += nl
    try:
        tomlkit.parse(text)
    except Exception:  # duplicate keys drawn: not a document
        return ""
    return text


@settings(max_examples=150, deadline=None)
@given(_documents())
def test_property_add_remove_is_identity(seed: str) -> None:
    doc, interiors = _add_all(TomlDocument(seed))
    assert _remove_all(doc, interiors).text == seed


# Richer user files than the generator above: dotted keys, spaced and indented headers, inline
# tables, scalars where our tables would go, trailing comments, CRLF, no final newline.
_key = st.sampled_from(["a", "mcp_servers", "hooks", "msd", "other", '"q k"', "'lit'"])
_value = st.sampled_from(
    ["1", '"s"', "'''\nml'''", '"""\nm\\"l"""', "[1,\n 2]", "{ x = 1 }", '"[fake]"', "{}"]
)
_trail = st.sampled_from(["", " # c", "\t"])


@st.composite
def _user_files(draw: st.DrawFn) -> str | None:
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.integers(0, 5))
        if kind == 0:
            lines.append(f"{draw(_key)} = {draw(_value)}")
        elif kind == 1:
            lines.append(f"{draw(_key)}.{draw(_key)} = {draw(_value)}" + draw(_trail))
        elif kind == 2:
            sub = draw(st.sampled_from(["", f".{draw(_key)}", f" . {draw(_key)}"]))
            lines.append(f"{draw(st.sampled_from(['', '  ']))}[{draw(_key)}{sub}]" + draw(_trail))
        elif kind == 3:
            lines.append(f"[[{draw(_key)}]]")
        elif kind == 4:
            lines.append(draw(st.sampled_from(["# [x]", "# '''", "", "\t"])))
        else:
            lines.append(f"{draw(_key)} = {draw(_value)} # c")
    text = nl.join(lines) + (nl if draw(st.booleans()) else "")
    try:
        tomlkit.parse(text)
    except Exception:  # duplicate or conflicting keys drawn: not a document
        return None
    return text


@settings(max_examples=300, deadline=None)
@given(_user_files())
def test_property_every_edit_is_exact_or_refused(seed: str | None) -> None:
    if seed is None:
        return
    doc = TomlDocument(seed)
    try:
        added, ins = doc.add_member(("mcp_servers",), "msd", SERVER)
    except TomlEditError:  # refused: the caller reports it, nothing is written
        return
    assert tomlkit.parse(added.text).unwrap()["mcp_servers"]["msd"] == SERVER
    assert added.remove_member(("mcp_servers",), "msd", ins.interior).text == seed
    later = TomlDocument(added.text + "\n[user_after]\nq = 1\n")
    out = later.remove_member(("mcp_servers",), "msd", ins.interior)
    assert out.text == seed + "\n[user_after]\nq = 1\n"


@pytest.mark.parametrize(
    ("seed", "message"),
    [
        ("mcp_servers = 1\n", "mcp_servers is not a table"),
        ('mcp_servers = "x"\n', "mcp_servers is not a table"),
        ("mcp_servers = {}\n", "is mcp_servers written inline"),
        ('mcp_servers = { a = { command = "x" } }\n', "is mcp_servers written inline"),
    ],
)
def test_what_cannot_hold_our_table_is_refused_in_words(seed: str, message: str) -> None:
    with pytest.raises(TomlEditError, match=message):
        TomlDocument(seed).add_member(("mcp_servers",), "msd", SERVER)


def test_a_scalar_where_an_array_of_tables_goes_is_refused() -> None:
    with pytest.raises(TomlEditError, match="a is not a table"):
        TomlDocument("a = 1\n").append_item(("a", "hooks"), HOOK)


def test_a_byte_order_mark_is_refused_in_plain_words() -> None:
    with pytest.raises(TomlSyntaxError, match="byte-order mark"):
        TomlDocument('\ufeffmodel = "o3"\n')


def test_an_element_of_an_array_of_tables_is_replaced_as_such() -> None:
    """``replace_value(("hooks", 1), {...})`` rewrites the second ``[[hooks]]`` block with its
    header, every other byte as it was (a migration rewrites Kimi's hook entries so)."""
    text = (
        '# mine\nmodel = \'x\'\n\n[[hooks]]\nevent = "A"\ncommand = "old-a"\n\n'
        '[[hooks]]\nevent = "B"\ncommand = "old-b"\n\n[other]\nkey = 1\n'
    )
    doc, old = TomlDocument(text).replace_value(("hooks", 1), {"event": "B", "command": "new"})
    assert old == '[[hooks]]\nevent = "B"\ncommand = "old-b"\n'
    assert doc.text == text.replace('command = "old-b"', 'command = "new"')
    assert doc.data["hooks"] == [
        {"event": "A", "command": "old-a"},
        {"event": "B", "command": "new"},
    ]
