"""Table-driven conversion of payload text and frontmatter into a runtime's own terms."""

from __future__ import annotations

from io import StringIO

import pytest
from hypothesis import given
from hypothesis import strategies as st
from ruamel.yaml import YAML

from msd_install.payload import load
from msd_install.runtimes.convert import (
    Dialect,
    Spawn,
    convert_model,
    convert_text,
    convert_tools,
    spawns,
    summarize,
)
from msd_install.runtimes.markdown import document, frontmatter

CLAUDE = Dialect("Claude Code", tools={}, context_file="CLAUDE.md")


def _names() -> list[str]:
    payload = load()
    return [c.name for c in payload.commands] + [s.name for s in payload.skills]


def _texts() -> list[tuple[str, str]]:
    payload = load()
    out = [(f.relpath, f.content.decode()) for f in payload.core if f.is_text]
    out += [
        (d.doc.relpath, d.doc.raw) for d in (*payload.commands, *payload.agents, *payload.skills)
    ]
    return out


def test_the_claude_dialect_is_the_identity_on_every_payload_text() -> None:
    names = _names()
    changed = [
        rel for rel, text in _texts() if convert_text(text, CLAUDE, "~/.claude/", names) != text
    ]
    assert changed == []


def test_every_task_call_of_the_workflows_is_parsed() -> None:
    total = 0
    for rel, text in _texts():
        found = spawns(text)
        assert len(found) == text.count("Task("), rel
        total += len(found)
    assert total >= 15


def _other(spawn: Spawn) -> str:
    return f"spawn {spawn.agent} [{spawn.description}] with: {spawn.prompt}"


OTHER = Dialect(
    "Other",
    tools={"Read": "read_file", "Bash": "shell", "WebSearch": None},
    models={"opus": "big"},
    args="{{args}}",
    spawn=_other,
    invoke=lambda name: f"${name}",
    file_ref=lambda path: f"@{{{path}}}",
    context_file="OTHER.md",
    project_dir="$OTHER_DIR",
)


def test_a_dialect_rewrites_each_claude_mechanism() -> None:
    text = (
        "Read @~/.claude/msd-core/x.md then run /msd-plan-phase (not /msd-core/ or /msd-unknown).\n"
        "Args: $ARGUMENTS in $CLAUDE_PROJECT_DIR; rules in `./CLAUDE.md` or `AGENTS.md`.\n"
        '```\nTask(\n  subagent_type="msd-planner",\n  model="<m>",\n  description="Plan",\n'
        '  prompt="Mode: x.\n          More."\n)\n```\n'
    )
    out = convert_text(text, OTHER, "~/.other/", ["msd-plan-phase"])
    assert "@{~/.other/msd-core/x.md}" in out
    assert "$msd-plan-phase" in out and "/msd-core/" in out and "/msd-unknown" in out
    assert "{{args}}" in out and "$OTHER_DIR" in out and "CLAUDE" not in out
    assert "`./OTHER.md` or `AGENTS.md`" in out
    assert "spawn msd-planner [Plan] with: Mode: x.\n          More." in out
    assert "Task(" not in out and "~/.claude" not in out


def test_tools_without_equivalent_are_reported_never_dropped_silently() -> None:
    tools, notes = convert_tools(["Read", "Bash", "Read", "WebSearch", "Frobnicate"], OTHER, "a.md")
    assert tools == ["read_file", "shell"]
    assert any("WebSearch" in n for n in notes) and any("Frobnicate" in n for n in notes)
    assert len(notes) == 2


def test_models_map_or_fall_back_to_the_default_with_a_note() -> None:
    assert convert_model("opus", OTHER, "a.md") == ("big", [])
    model, notes = convert_model("haiku", OTHER, "a.md")
    assert model is None and "haiku" in notes[0]
    assert convert_model(None, OTHER, "a.md") == (None, [])


def test_summarize_folds_repeats() -> None:
    notes = [f"agents/{i}.md: model 'opus' is a Claude tier" for i in range(5)] + ["x: y"]
    out = summarize(notes)
    assert out == ("model 'opus' is a Claude tier (5 files, e.g. agents/0.md)", "x: y")


_YAML = YAML(typ="safe")
_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20)


@given(
    st.dictionaries(
        st.from_regex(r"[a-z][a-z_-]{0,8}", fullmatch=True),
        st.one_of(
            _text,
            st.booleans(),
            st.integers(),
            st.lists(_text, max_size=3),
            st.dictionaries(st.from_regex(r"[a-z]{1,5}", fullmatch=True), _text, max_size=3),
        ),
        max_size=6,
    )
)
def test_frontmatter_is_yaml_that_loads_back_to_the_same_values(meta: dict[str, object]) -> None:
    loaded = _YAML.load(StringIO(frontmatter(meta))) or {}
    assert loaded == meta


def test_document_keeps_the_body_as_given() -> None:
    text = document({"name": "x", "tools": ["a"], "on": "yes"}, "\nBody\n")
    assert text == '---\nname: "x"\ntools:\n  - "a"\non: "yes"\n---\n\nBody\n'
    assert _YAML.load(StringIO(text.split("---")[1])) == {"name": "x", "tools": ["a"], "on": "yes"}


@pytest.mark.parametrize("value", ["on", "1.0", "null", "a: b", "- x", "#c", "'q'", '"dq"'])
def test_strings_stay_strings(value: str) -> None:
    assert _YAML.load(StringIO(frontmatter({"k": value}))) == {"k": value}


def test_a_file_reference_ends_before_sentence_punctuation() -> None:
    text = "See @~/.claude/msd-core/tdd.md: first. Then @~/.claude/msd-core/gates.md.\n"
    out = convert_text(text, OTHER, "~/.other/", [])
    assert out == "See @{~/.other/msd-core/tdd.md}: first. Then @{~/.other/msd-core/gates.md}.\n"
