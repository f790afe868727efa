"""The YAML splice editor: exact inverses, the user's comments/anchors/quoting untouched."""

from __future__ import annotations

from io import StringIO

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from msd_install.installer.yamledit import YamlDocument, YamlEditError, YamlSyntaxError

SERVER = {
    "command": "/usr/bin/python3",
    "args": ["-I", "-S", "/home/u/.hermes/msd-core/bin/msd-mcp"],
    "env": {"MSD_AUDIT_LOG": "/home/u/.local/state/msd/audit.jsonl"},
}
HOOK = {"matcher": "terminal", "command": "/usr/bin/python3 -I -S /h/hook.py", "timeout": 10}
START = {"command": "/usr/bin/python3 -I -S /h/start.py"}

HERMES = """\
# Hermes config (hand-edited)
model:
  default: "anthropic/claude-x"   # quoted on purpose
  provider: 'openrouter'
defaults: &defaults
  timeout: 30
mcp_servers:
  github:
    command: npx
    args: [-y, "@modelcontextprotocol/server-github"]
    <<: *defaults
  # keep this comment
hooks:
  pre_tool_call:
  - matcher: terminal
    command: my-own-guard
terminal:
  backend: local
"""

SEEDS = [
    "",
    "\n",
    "model: x",
    "model: x\n",
    HERMES,
    HERMES.replace("\n", "\r\n"),
    "mcp_servers: {}\nhooks: {}\n",
    "mcp_servers:\nhooks:\n  pre_tool_call: []\n",
    "a:\n    b: 1\n    c:\n        - 1\n        - 2\n",
    "list_top:\n- a\n- b\nz: 1  # tail\n",
    "hooks:\n  on_session_start:\n    - command: theirs\n",
]


def _load(text: str) -> object:
    return YAML(typ="safe", pure=True).load(StringIO(text))


def _add_all(doc: YamlDocument) -> tuple[YamlDocument, list[str | None]]:
    doc, a = doc.add_member(("mcp_servers",), "msd", SERVER)
    doc, b = doc.append_item(("hooks", "pre_tool_call"), HOOK)
    doc, c = doc.append_item(("hooks", "on_session_start"), START)
    return doc, [a.interior, b.interior, c.interior]


def _remove_all(doc: YamlDocument, interiors: list[str | None]) -> YamlDocument:
    for path, value, interior in (
        (("hooks", "on_session_start"), START, interiors[2]),
        (("hooks", "pre_tool_call"), HOOK, interiors[1]),
    ):
        node = doc.node(path)
        assert node is not None
        index = max(i for i, item in enumerate(node.items) if item.value == value)
        doc = doc.remove_item(path, index, interior)
    return doc.remove_member(("mcp_servers",), "msd", interiors[0])


@pytest.mark.parametrize("seed", SEEDS)
def test_add_then_remove_gives_back_every_byte(seed: str) -> None:
    doc, interiors = _add_all(YamlDocument(seed))
    data = _load(doc.text)
    assert isinstance(data, dict)
    assert data["mcp_servers"]["msd"] == SERVER
    assert data["hooks"]["pre_tool_call"][-1] == HOOK
    assert data["hooks"]["on_session_start"][-1] == START
    assert _remove_all(doc, interiors).text == seed


def test_anchors_comments_and_quoting_stay_as_written() -> None:
    doc, _ = _add_all(YamlDocument(HERMES))
    for line in HERMES.splitlines():
        assert line in doc.text.splitlines()
    data = _load(doc.text)
    assert isinstance(data, dict)
    assert data["mcp_servers"]["github"]["timeout"] == 30  # the merge key still resolves
    assert data["hooks"]["pre_tool_call"][0]["command"] == "my-own-guard"


def test_user_keys_added_after_ours_survive_removal() -> None:
    doc, interiors = _add_all(YamlDocument(HERMES))
    text = doc.text.replace(
        "terminal:\n  backend: local\n", "terminal:\n  backend: local\nmine: 1\n"
    )
    text = text.replace(
        "mcp_servers:\n  github:", "mcp_servers:\n  zeta:\n    command: z\n  github:"
    )
    out = _remove_all(YamlDocument(text), interiors)
    assert out.text == HERMES.replace(
        "terminal:\n  backend: local\n", "terminal:\n  backend: local\nmine: 1\n"
    ).replace("mcp_servers:\n  github:", "mcp_servers:\n  zeta:\n    command: z\n  github:")


def test_a_changed_entry_of_ours_is_removed_by_its_lines() -> None:
    doc, interiors = YamlDocument(HERMES).add_member(("mcp_servers",), "msd", SERVER)
    edited = doc.text.replace('command: "/usr/bin/python3"', "command: /opt/py  # mine")
    out = YamlDocument(edited).remove_member(("mcp_servers",), "msd", interiors.interior)
    assert _load(out.text) == _load(HERMES)


def test_replace_and_put_back_a_users_entry() -> None:
    seed = "mcp_servers:\n  msd:\n    command: theirs   # keep\n  other:\n    command: o\n"
    doc, previous = YamlDocument(seed).replace_value(("mcp_servers", "msd"), SERVER)
    data = _load(doc.text)
    assert isinstance(data, dict) and data["mcp_servers"]["msd"] == SERVER
    assert doc.replace_value_text(("mcp_servers", "msd"), previous).text == seed


@pytest.mark.parametrize(
    "text", ["mcp_servers: {github: {command: x}}\n", "hooks:\n  pre_tool_call: [{a: 1}]\n"]
)
def test_non_empty_flow_collections_are_refused_not_rewritten(text: str) -> None:
    doc = YamlDocument(text)
    with pytest.raises(YamlEditError):
        _add_all(doc)


@pytest.mark.parametrize("text", ["a: [1\n", "- 1\n- 2\n", "a: 1\n---\nb: 2\n", "a:\n\t- x\n"])
def test_unparsable_or_unusual_documents_are_refused(text: str) -> None:
    with pytest.raises(YamlSyntaxError):
        YamlDocument(text)


_ident = st.from_regex(r"[a-z][a-z_]{0,5}", fullmatch=True).filter(
    lambda k: (
        k
        not in ("mcp_servers", "hooks", "y", "n", "on", "off", "yes", "no", "null", "true", "false")
    )
)
_scalar = st.one_of(st.integers(-99, 99), st.from_regex(r"[a-z ]{0,6}", fullmatch=True).map(repr))


@st.composite
def _documents(draw: st.DrawFn) -> str:
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    lines: list[str] = []
    used: set[str] = set()
    for _ in range(draw(st.integers(0, 5))):
        key = draw(_ident)
        if key in used:
            continue
        used.add(key)
        if draw(st.booleans()):
            lines.append(f"# {draw(st.from_regex(r'[a-z :-]{0,10}', fullmatch=True))}")
        kind = draw(st.integers(0, 2))
        if kind == 0:
            lines.append(f"{key}: {draw(_scalar)}")
        elif kind == 1:
            indent = " " * draw(st.sampled_from([2, 4]))
            lines.append(f"{key}:")
            for sub in range(draw(st.integers(1, 3))):
                lines.append(f"{indent}k{sub}: {draw(_scalar)}")
        else:
            dash = " " * draw(st.sampled_from([0, 2]))
            lines.append(f"{key}:")
            for _ in range(draw(st.integers(1, 3))):
                lines.append(f"{dash}- {draw(_scalar)}")
    if draw(st.booleans()):
        lines.append("hooks:")
        lines.append("  pre_tool_call:")
        lines.append("  - command: mine")
    text = nl.join(lines)
    if lines and draw(st.booleans()):
        text += nl
    return text


@settings(max_examples=150, deadline=None)
@given(_documents())
def test_property_add_remove_is_identity(seed: str) -> None:
    doc, interiors = _add_all(YamlDocument(seed))
    assert _remove_all(doc, interiors).text == seed


def test_yaml_is_a_registered_config_format(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from msd_install.errors import ConfigFileError
    from msd_install.installer.configdoc import open_doc

    doc = open_doc(tmp_path / "c.yaml", b"a: 1\n", "yaml")
    assert doc.node(("a",)).value == 1
    with pytest.raises(ConfigFileError) as err:
        open_doc(tmp_path / "c.yaml", b"a: [1\n", "yaml")
    assert err.value.one_line().startswith(f"{tmp_path / 'c.yaml'}: invalid YAML: ")
    assert "line 1, column 4" in err.value.one_line()


def test_a_big_config_is_edited_block_by_block(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A 1 MB config.yaml: the slow round-trip parser only ever sees the block we edit (the
    whole file is read once, by the C loader), and the bytes still come back exactly."""
    from msd_install.installer import yamledit

    seen: list[int] = []
    positions = yamledit._positions
    monkeypatch.setattr(
        yamledit, "_positions", lambda text: seen.append(len(text)) or positions(text)
    )
    notes = "".join(f"  - id: {i}  # c{i}\n    text: 'some text {i}'\n" for i in range(20_000))
    seed = (
        "# mine\nmodel:\n  default: gpt\nmcp_servers:\n  mine:\n    command: my-mcp\n"
        f"notes:\n{notes}hooks:\n  pre_tool_call:\n  - command: mine\ntail: 1\n"
    )
    assert len(seed) > 1_000_000
    doc, interiors = _add_all(YamlDocument(seed))
    assert _remove_all(doc, interiors).text == seed
    assert seen and max(seen) < 2_000


def test_a_block_shared_through_an_alias_is_edited_as_a_whole_file() -> None:
    """An anchor in the block we edit, aliased elsewhere: the edit would change both, and
    only a check of the whole file sees it, so the shortcut is not taken (and it is refused)."""
    seed = "hooks: &h\n  pre_tool_call:\n  - command: mine\nother: *h\n"
    doc = YamlDocument(seed)
    assert doc._segment("hooks") is None
    with pytest.raises(YamlEditError):
        doc.append_item(("hooks", "pre_tool_call"), {"command": "ours"})
