"""The compiled schema checker says exactly what ``jsonschema.Draft7Validator`` says.

``schemacheck.is_valid`` lets an install skip importing jsonschema when the edited file is
valid; it must agree with the validator of record on every instance, valid or not. The
corpus: instances generated from each bundled schema (following its properties, enums,
consts, examples and types, then mutated at random so that about half are invalid), random
JSON against small schemas that exercise every keyword the checker implements, and the
config files real installs write.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import run_cli
from msd_install import schemas
from msd_install.installer import schemacheck
from msd_install.installer.schemacheck import compile_schema, is_valid

NAMES = sorted(p.stem for p in (Path(schemas.__file__).parent).glob("*.json"))
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.sampled_from([0.0, 1.0, 1.5, -2.5])
    | st.sampled_from(["", "a", "x" * 70, "Bash(ls:*)", "https://e.x", "1", "*", "Read"]),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


def _resolve(root: dict[str, Any], schema: Any) -> Any:
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
        ref = schema["$ref"]
        target: Any = root
        for part in ref[2:].split("/") if ref.startswith("#/") else []:
            target = target[part.replace("~1", "/").replace("~0", "~")]
        schema = target
    return schema


def _guided(root: dict[str, Any], schema: Any, depth: int) -> st.SearchStrategy[Any]:
    """Values shaped by ``schema``: mostly plausible, sometimes anything."""
    schema = _resolve(root, schema)
    if not isinstance(schema, dict) or depth > 5:
        return JSON
    options: list[st.SearchStrategy[Any]] = [JSON]
    for key in ("enum", "examples"):
        if isinstance(schema.get(key), list) and schema[key]:
            options.append(st.sampled_from(schema[key]))
    if "const" in schema:
        options.append(st.just(schema["const"]))
    if "default" in schema:
        options.append(st.just(schema["default"]))
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in schema.get(key, [])[:6]:
            options.append(st.deferred(lambda sub=sub: _guided(root, sub, depth + 1)))
    props = schema.get("properties")
    if isinstance(props, dict) and props:
        names = sorted(props)

        @st.composite
        def obj(draw: Any) -> dict[str, Any]:
            picked = draw(st.lists(st.sampled_from(names), max_size=5, unique=True))
            for required in schema.get("required", []):
                if draw(st.integers(0, 9)) and required not in picked:
                    picked.append(required)
            out = {}
            for name in picked:
                out[name] = draw(_guided(root, props.get(name, {}), depth + 1))
            if not draw(st.integers(0, 5)):
                out[draw(st.text(max_size=5))] = draw(JSON)
            return out

        options.append(obj())
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        options.append(
            st.dictionaries(
                st.sampled_from(["a", "b", "msd", "Bash", "x y", "PreToolUse", ""]),
                st.deferred(lambda: _guided(root, extra, depth + 1)),
                max_size=3,
            )
        )
    items = schema.get("items")
    if isinstance(items, dict):
        options.append(st.lists(st.deferred(lambda: _guided(root, items, depth + 1)), max_size=3))
    if schema.get("type") == "string" or "pattern" in schema:
        options.append(st.sampled_from(["", "a", "Bash(npm test:*)", "mcp__msd__read", "Read"]))
    return st.one_of(options)


@pytest.mark.parametrize("name", NAMES)
def test_every_bundled_schema_compiles(name: str) -> None:
    """Whole, every subschema and pattern at once: no install ever meets an unsupported
    keyword in a bundled schema (compiling is lazy in a run; see the next test)."""
    assert schemacheck._compiled(name) is not None, f"{name} falls back to jsonschema"
    root = schemas.load(name)
    compile_schema(root, lazy=False)  # raises UnsupportedError or re.error if not


def test_a_run_compiles_only_what_the_document_reaches() -> None:
    """Claude Code's settings schema has many subschemas and patterns; checking a small
    settings file compiles the few it reaches, not the rest (that was most of the time an
    install spent validating)."""
    root = schemas.load("claude-code-settings")
    patterns = json.dumps(root).count('"pattern"')
    assert patterns >= 8
    schemacheck._regex.cache_clear()
    schemacheck._compiled.cache_clear()
    doc = {"statusLine": {"type": "command", "command": "x"}, "env": {"A": "1"}}
    assert is_valid("claude-code-settings", doc) is jsonschema.Draft7Validator(root).is_valid(doc)
    assert schemacheck._regex.cache_info().currsize <= patterns / 4


@pytest.mark.parametrize("lazy", [True, False])
def test_an_unsupported_keyword_is_met_where_an_instance_reaches_it(lazy: bool) -> None:
    """Lazily, an unsupported keyword or a pattern ``re`` cannot compile raises when an
    instance reaches it (``is_valid`` then answers None: ask jsonschema); instances that do
    not reach it get the answer; compiled whole, it raises at once."""
    schema = {
        "properties": {"n": {"type": "integer"}, "odd": {"multipleOf": 2}, "p": {"pattern": "("}},
        "items": {"$ref": "#/definitions/missing"},
    }
    if not lazy:
        with pytest.raises(schemacheck.UnsupportedError):
            compile_schema(schema, lazy=False)
        return
    check = compile_schema(schema)
    assert check({"n": 1}) is True
    assert check({"n": "x"}) is False
    assert check([]) is True  # no item: the $ref is never resolved
    with pytest.raises(schemacheck.UnsupportedError):
        check({"odd": 3})
    with pytest.raises(re.error):
        check({"p": "a"})
    with pytest.raises(schemacheck.UnsupportedError):
        check([1])


HARD_TO_SATISFY = {
    "claude-code-marketplace",
    "codex-hooks",
    "codex-plugin-manifest",
    "codex-skill-metadata",
}


@pytest.mark.parametrize("name", NAMES)
def test_agrees_with_jsonschema_on_generated_instances(name: str) -> None:
    root = schemas.load(name)
    validator = jsonschema.Draft7Validator(root)
    seen = {True: 0, False: 0}

    @settings(
        max_examples=300,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(_guided(root, root, 0))
    def check(instance: Any) -> None:
        expected = validator.is_valid(instance)
        seen[expected] += 1
        assert is_valid(name, instance) is expected, json.dumps(instance)[:500]

    check()
    assert seen[False] > 0  # the corpus reaches invalid instances too
    # valid ones too, except where random generation cannot satisfy the schema (required
    # nested groups, or nearly everything allowed); those are covered by the real files below
    if name not in HARD_TO_SATISFY:
        assert seen[True] > 0, f"no valid instance generated for {name}"


KEYWORD_SCHEMAS: list[Any] = [
    True,
    False,
    {"type": ["integer", "null"]},
    {"type": "number", "minimum": 0, "exclusiveMaximum": 2},
    {"enum": [1, True, "a", [1], {"a": 1}, None]},
    {"const": {"a": [1, False]}},
    {"type": "string", "minLength": 1, "maxLength": 3, "pattern": "^[a-z]"},
    {"items": {"type": "integer"}, "minItems": 1, "maxItems": 3, "uniqueItems": True},
    {"items": [{"type": "string"}, {"type": "integer"}], "additionalItems": False},
    {"items": [{"type": "string"}], "additionalItems": {"type": "boolean"}},
    {"additionalItems": False},
    {"contains": {"const": 1}},
    {
        "properties": {"a": {"type": "integer"}},
        "patternProperties": {"^x": {"type": "string"}},
        "additionalProperties": {"type": "array"},
        "required": ["a"],
    },
    {"propertyNames": {"maxLength": 1}, "minProperties": 1, "maxProperties": 2},
    {"dependencies": {"a": ["b"], "b": {"required": ["c"]}}},
    {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    {"oneOf": [{"type": "integer"}, {"minimum": 2}]},
    {"allOf": [{"type": "object"}, {"not": {"required": ["a"]}}]},
    {"if": {"type": "integer"}, "then": {"minimum": 1}, "else": {"type": "string"}},
    {"then": {"type": "string"}},
    {"$ref": "#/definitions/n", "type": "string", "definitions": {"n": {"type": "integer"}}},
    {"definitions": {"t": {"items": {"$ref": "#/definitions/t"}}}, "$ref": "#/definitions/t"},
    {"format": "uri", "description": "annotations only", "unknownKeyword": {"type": "null"}},
]  # fmt: skip


@pytest.mark.parametrize("lazy", [True, False])
@pytest.mark.parametrize("index", range(len(KEYWORD_SCHEMAS)))
def test_agrees_with_jsonschema_keyword_by_keyword(index: int, lazy: bool) -> None:
    schema = KEYWORD_SCHEMAS[index]
    validator = jsonschema.Draft7Validator(schema)
    check = compile_schema(schema, lazy=lazy)

    @settings(max_examples=300, deadline=None)
    @given(JSON)
    def run(instance: Any) -> None:
        assert check(instance) is validator.is_valid(instance), (schema, instance)

    run()


def test_keywords_it_does_not_implement_fall_back_to_jsonschema() -> None:
    for schema in ({"multipleOf": 2}, {"$ref": "other.json#/x"}, {"$ref": "#anchor"}):
        with pytest.raises(schemacheck.UnsupportedError):
            compile_schema(schema)


def test_agrees_on_the_settings_real_installs_write(tmp_path: Path) -> None:
    files = {
        "claude": (".claude/settings.json", "claude-code-settings"),
        "gemini": (".gemini/settings.json", "gemini-cli-settings"),
        "qwen": (".qwen/settings.json", "qwen-code-settings"),
        "codex": (".codex/hooks.json", "codex-hooks"),
    }
    for runtime, (rel, name) in files.items():
        home = tmp_path / runtime
        home.mkdir()
        proc = run_cli([f"--{runtime}", "--global", "--yes"], home)
        assert proc.returncode == 0, proc.stderr
        doc = json.loads((home / rel).read_text())
        validator = jsonschema.Draft7Validator(schemas.load(name))
        # (Qwen's installed settings are not valid under its schema: entries it does not
        # know are not validated; what matters here is that both checkers say the same)
        for broken in (
            doc,
            dict(doc, hooks={"PreToolUse": [{"hooks": [{"type": "command"}]}]}),
            dict(doc, hooks={}),
            {k: v for k, v in doc.items() if k != "hooks"},
            dict(doc, statusLine={"type": "command"}),
        ):
            assert is_valid(name, broken) is validator.is_valid(broken), (runtime, broken)


def _errors(validator: Any, doc: Any) -> set[tuple[str, str]]:
    return {(".".join(map(str, e.absolute_path)), e.message) for e in validator.iter_errors(doc)}


@pytest.mark.parametrize("name", ["claude-code-settings", "gemini-cli-settings", "codex-hooks"])
def test_a_member_only_check_never_hides_an_error_the_edit_introduced(name: str) -> None:
    """``adds_no_error`` (the check of only the members an edit changed) says True only when
    jsonschema finds no error in the edited document that the original did not have."""
    root = schemas.load(name)
    validator = jsonschema.Draft7Validator(root)
    props = sorted(root.get("properties", {}))
    said = {True: 0, False: 0}

    @settings(
        max_examples=200,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(_guided(root, root, 0), st.sampled_from(props), st.data())
    def check(before: Any, key: str, data: Any) -> None:
        if not isinstance(before, dict):
            return
        after = dict(before)
        after[key] = data.draw(_guided(root, root["properties"][key], 1))
        text = {k: json.dumps(v, sort_keys=True) for k, v in before.items()}
        changed = {k for k, v in after.items() if text.get(k) != json.dumps(v, sort_keys=True)}
        verdict = schemacheck.adds_no_error(name, after, changed)
        said[verdict] += 1
        if verdict:
            assert _errors(validator, after) <= _errors(validator, before), (key, after[key])

    check()
    assert said[True] > 0 and said[False] > 0, said
