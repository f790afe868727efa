"""A fast yes/no JSON Schema check, compiled from the bundled schemas; jsonschema stays the record.

Importing ``jsonschema`` costs more than the rest of an install, and its validator walks a
20 MB ``settings.json`` in seconds. ``is_valid`` compiles a schema once into closures that
answer one question, "is this instance valid under Draft 7 as ``jsonschema.Draft7Validator``
reads it?", and nothing else: no messages, no paths. The installer asks it first; only when
it says "no" does ``jsonschema`` run, to name the errors (and to tell ours from the user's).

Keywords are read exactly as Draft7Validator reads them (``$ref`` hides its siblings, ``format``
only annotates, unknown keywords are ignored). A validating keyword this module does not
implement raises ``UnsupportedError`` when it is compiled, and the caller then uses jsonschema.
tests/installer/test_schemacheck.py proves agreement with jsonschema on a corpus.

Compiling is lazy: a subschema (a property's, an item's, a ``$ref``'s target) and a pattern are
compiled the first time an instance reaches them. Claude Code's settings schema has hundreds
of subschemas and patterns, an install's document reaches a few, and compiling them all was
most of an install's validation time. So an unsupported keyword (or a pattern ``re`` cannot
compile) is found when it is reached, and the answer is then None ("ask jsonschema"), as
before; ``compile_schema(..., lazy=False)`` compiles everything at once (the tests use it to
show that every bundled schema compiles whole, so that no run ever meets one of those).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any
from urllib.parse import unquote

Check = Callable[[Any], bool]


class UnsupportedError(Exception):
    """The schema uses something this checker does not implement: use jsonschema."""


# Draft 7 keywords that validate; anything else is an annotation or unknown (ignored by
# Draft7Validator too). The ones not listed in _compile_keyword raise UnsupportedError.
_VALIDATING = frozenset(
    {
        "$ref", "additionalItems", "additionalProperties", "allOf", "anyOf", "const",
        "contains", "dependencies", "enum", "exclusiveMaximum", "exclusiveMinimum", "if",
        "items", "maxItems", "maxLength", "maxProperties", "maximum", "minItems", "minLength",
        "minProperties", "minimum", "multipleOf", "not", "oneOf", "pattern",
        "patternProperties", "properties", "propertyNames", "required", "type", "uniqueItems",
    }
)  # fmt: skip


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda x: isinstance(x, dict),
    "array": lambda x: isinstance(x, list),
    "string": lambda x: isinstance(x, str),
    "boolean": lambda x: isinstance(x, bool),
    "null": lambda x: x is None,
    "number": _is_number,
    "integer": lambda x: (
        (isinstance(x, int) and not isinstance(x, bool))
        or (isinstance(x, float) and x.is_integer())
    ),
}


def equal(a: Any, b: Any) -> bool:
    """jsonschema's equality: booleans are not numbers, 1 == 1.0, containers deeply."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a is b
    if isinstance(a, str) or isinstance(b, str):
        return bool(a == b)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(equal, a, b))
    return bool(a == b)


def _identity(x: Any) -> Any:
    """A hashable key with ``equal(a, b)`` if and only if ``_identity(a) == _identity(b)``
    (uniqueItems in linear time: a 20 MB permission list is 400,000 rules)."""
    if isinstance(x, bool):
        return ("b", x)
    if isinstance(x, int):
        return ("i", x)
    if isinstance(x, float):
        return ("i", int(x)) if x.is_integer() else ("f", x)
    if isinstance(x, str):
        return ("s", x)
    if isinstance(x, list):
        return ("l", tuple(_identity(i) for i in x))
    if isinstance(x, dict):
        return ("d", frozenset((k, _identity(v)) for k, v in x.items()))
    return ("n", None)


class _Later:
    """A check made the first time it is asked (``make``), then kept: a subschema that no
    instance reaches is never compiled. Made at once when the compiler is not lazy."""

    __slots__ = ("_check", "_make")

    def __init__(self, make: Callable[[], Check]) -> None:
        self._make = make
        self._check: Check | None = None

    def get(self) -> Check:
        """The check (hot loops take it once, then call it for every item)."""
        if self._check is None:
            self._check = self._make()
        return self._check

    def __call__(self, x: Any) -> bool:
        check = self._check if self._check is not None else self.get()
        return check(x)


class _Search:
    """``re.compile(pattern).search``, compiled the first time it is asked (or at once when
    the compiler is not lazy; an invalid pattern then raises ``re.error`` there)."""

    __slots__ = ("_pattern", "_search")

    def __init__(self, pattern: str, lazy: bool) -> None:
        self._pattern = pattern
        self._search: Callable[[str], Any] | None = None if lazy else _regex(pattern)

    def __call__(self, text: str) -> Any:
        if self._search is None:
            self._search = _regex(self._pattern)
        return self._search(text)


class _Compiler:
    def __init__(self, root: Any, *, lazy: bool = True) -> None:
        self.root = root
        self.lazy = lazy
        self.refs: dict[str, _Later] = {}

    def sub(self, schema: Any) -> _Later:
        """``schema`` compiled when first used (at once when not lazy)."""
        later = _Later(lambda: self.compile(schema))
        if not self.lazy:
            later.get()
        return later

    def search(self, pattern: Any) -> _Search:
        if not isinstance(pattern, str):
            raise UnsupportedError(f"pattern {pattern!r}")
        return _Search(pattern, self.lazy)

    def compile(self, schema: Any) -> Check:
        if schema is True:
            return lambda _x: True
        if schema is False:
            return lambda _x: False
        if not isinstance(schema, dict):
            raise UnsupportedError(f"schema is a {type(schema).__name__}")
        if "$ref" in schema:  # Draft 7: a $ref's siblings are ignored
            return self.ref(schema["$ref"])
        if "$id" in schema and schema is not self.root:
            raise UnsupportedError("nested $id")
        found = [self.keyword(k, v, schema) for k, v in schema.items() if k in _VALIDATING]
        checks = [c for c in found if c is not None]
        if not checks:
            return lambda _x: True
        if len(checks) == 1:
            return checks[0]
        return lambda x: all(c(x) for c in checks)

    def ref(self, ref: Any) -> Check:
        if not isinstance(ref, str) or not (ref == "#" or ref.startswith("#/")):
            raise UnsupportedError(f"$ref {ref!r}")
        if ref not in self.refs:  # recursion-safe: a $ref inside its target finds this one
            later = self.refs[ref] = _Later(lambda: self.compile(self.resolve(ref)))
            if not self.lazy:
                later.get()
        return self.refs[ref]

    def resolve(self, ref: str) -> Any:
        target: Any = self.root
        for part in unquote(ref[1:]).split("/")[1:]:
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(target, dict) and part in target:
                target = target[part]
            elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
                target = target[int(part)]
            else:
                raise UnsupportedError(f"$ref {ref!r} does not resolve")
        return target

    def keyword(self, key: str, value: Any, schema: dict[str, Any]) -> Check | None:
        method = getattr(self, "k_" + key.replace("$", ""), None)
        if method is None:
            raise UnsupportedError(key)
        check: Check | None = method(value, schema)
        return check

    # --- any type -------------------------------------------------------------------------
    def k_type(self, value: Any, _s: dict[str, Any]) -> Check:
        names = [value] if isinstance(value, str) else list(value)
        if any(n not in _TYPES for n in names):
            raise UnsupportedError(f"type {value!r}")
        tests = [_TYPES[n] for n in names]
        return lambda x: any(t(x) for t in tests)

    def k_enum(self, value: Any, _s: dict[str, Any]) -> Check:
        options = list(value)
        return lambda x: any(equal(x, o) for o in options)

    def k_const(self, value: Any, _s: dict[str, Any]) -> Check:
        return lambda x: equal(x, value)

    def k_allOf(self, value: Any, _s: dict[str, Any]) -> Check:  # noqa: N802
        subs = [self.sub(s) for s in value]
        return lambda x: all(c(x) for c in subs)

    def k_anyOf(self, value: Any, _s: dict[str, Any]) -> Check:  # noqa: N802
        subs = [self.sub(s) for s in value]
        return lambda x: any(c(x) for c in subs)

    def k_oneOf(self, value: Any, _s: dict[str, Any]) -> Check:  # noqa: N802
        subs = [self.sub(s) for s in value]
        return lambda x: sum(1 for c in subs if c(x)) == 1

    def k_not(self, value: Any, _s: dict[str, Any]) -> Check:
        sub = self.sub(value)
        return lambda x: not sub(x)

    def k_if(self, value: Any, schema: dict[str, Any]) -> Check:
        cond = self.sub(value)
        then = self.sub(schema["then"]) if "then" in schema else None
        other = self.sub(schema["else"]) if "else" in schema else None

        def check(x: Any) -> bool:
            if cond(x):
                return then is None or then(x)
            return other is None or other(x)

        return check

    # --- numbers --------------------------------------------------------------------------
    def _bound(self, value: Any, ok: Callable[[Any, Any], bool]) -> Check:
        if not _is_number(value):
            raise UnsupportedError("non-numeric bound")
        return lambda x: not _is_number(x) or ok(x, value)

    def k_minimum(self, value: Any, _s: dict[str, Any]) -> Check:
        return self._bound(value, lambda x, v: x >= v)

    def k_maximum(self, value: Any, _s: dict[str, Any]) -> Check:
        return self._bound(value, lambda x, v: x <= v)

    def k_exclusiveMinimum(self, value: Any, _s: dict[str, Any]) -> Check:  # noqa: N802
        return self._bound(value, lambda x, v: x > v)

    def k_exclusiveMaximum(self, value: Any, _s: dict[str, Any]) -> Check:  # noqa: N802
        return self._bound(value, lambda x, v: x < v)

    # --- strings --------------------------------------------------------------------------
    def k_minLength(self, value: Any, _s: dict[str, Any]) -> Check:  # noqa: N802
        return lambda x: not isinstance(x, str) or len(x) >= value

    def k_maxLength(self, value: Any, _s: dict[str, Any]) -> Check:  # noqa: N802
        return lambda x: not isinstance(x, str) or len(x) <= value

    def k_pattern(self, value: Any, _s: dict[str, Any]) -> Check:
        search = self.search(value)
        return lambda x: not isinstance(x, str) or search(x) is not None

    # --- arrays ---------------------------------------------------------------------------
    def k_items(self, value: Any, schema: dict[str, Any]) -> Check:
        if isinstance(value, list):
            subs = [self.sub(s) for s in value]
            extra = schema.get("additionalItems", True)
            more = self.sub(extra)

            def positional(x: Any) -> bool:
                if not isinstance(x, list):
                    return True
                head = all(c(i) for c, i in zip(subs, x, strict=False))
                return head and all(map(more.get(), x[len(subs) :]))

            return positional
        sub = self.sub(value)
        return lambda x: not isinstance(x, list) or all(map(sub.get(), x))

    def k_additionalItems(self, _v: Any, _s: dict[str, Any]) -> None:  # noqa: N802
        return None  # read by k_items (ignored without a list-form "items", as in Draft 7)

    def k_minItems(self, value: Any, _s: dict[str, Any]) -> Check:  # noqa: N802
        return lambda x: not isinstance(x, list) or len(x) >= value

    def k_maxItems(self, value: Any, _s: dict[str, Any]) -> Check:  # noqa: N802
        return lambda x: not isinstance(x, list) or len(x) <= value

    def k_uniqueItems(self, value: Any, _s: dict[str, Any]) -> Check | None:  # noqa: N802
        if not value:
            return None
        return lambda x: not isinstance(x, list) or len({_identity(i) for i in x}) == len(x)

    def k_contains(self, value: Any, _s: dict[str, Any]) -> Check:
        sub = self.sub(value)
        return lambda x: not isinstance(x, list) or any(map(sub.get(), x))

    # --- objects --------------------------------------------------------------------------
    def k_properties(self, value: Any, _s: dict[str, Any]) -> Check:
        subs = {k: self.sub(s) for k, s in value.items()}
        return lambda x: not isinstance(x, dict) or all(c(x[k]) for k, c in subs.items() if k in x)

    def k_patternProperties(self, value: Any, _s: dict[str, Any]) -> Check:  # noqa: N802
        subs = [(self.search(p), self.sub(s)) for p, s in value.items()]
        return lambda x: (
            not isinstance(x, dict)
            or all(c(v) for k, v in x.items() for search, c in subs if search(k))
        )

    def k_additionalProperties(self, value: Any, schema: dict[str, Any]) -> Check:  # noqa: N802
        sub = self.sub(value)
        known = set(schema.get("properties", {}))
        patterns = [self.search(p) for p in schema.get("patternProperties", {})]

        def check(x: Any) -> bool:
            if not isinstance(x, dict):
                return True
            return all(
                sub(v)
                for k, v in x.items()
                if k not in known and not any(search(k) for search in patterns)
            )

        return check

    def k_required(self, value: Any, _s: dict[str, Any]) -> Check:
        names = list(value)
        return lambda x: not isinstance(x, dict) or all(n in x for n in names)

    def k_propertyNames(self, value: Any, _s: dict[str, Any]) -> Check:  # noqa: N802
        sub = self.sub(value)
        return lambda x: not isinstance(x, dict) or all(map(sub.get(), x))

    def k_minProperties(self, value: Any, _s: dict[str, Any]) -> Check:  # noqa: N802
        return lambda x: not isinstance(x, dict) or len(x) >= value

    def k_maxProperties(self, value: Any, _s: dict[str, Any]) -> Check:  # noqa: N802
        return lambda x: not isinstance(x, dict) or len(x) <= value

    def k_dependencies(self, value: Any, _s: dict[str, Any]) -> Check:
        checks: list[tuple[str, Check]] = []
        for key, dep in value.items():
            if isinstance(dep, list):
                checks.append((key, _has_all(list(dep))))
            else:
                checks.append((key, self.sub(dep)))
        return lambda x: not isinstance(x, dict) or all(c(x) for k, c in checks if k in x)


def _has_all(names: list[str]) -> Check:
    return lambda x: all(n in x for n in names)


@cache
def _regex(pattern: str) -> Callable[[str], Any]:
    return re.compile(pattern).search


@cache
def _compiled(name: str) -> Check | None:
    from .. import schemas

    try:
        return _Compiler(schemas.load(name)).compile(schemas.load(name))
    except (UnsupportedError, re.error):
        return None


def is_valid(name: str, instance: Any) -> bool | None:
    """Whether ``instance`` is valid under the bundled schema ``name`` (as Draft7Validator
    says), or None when this checker cannot tell (then ask jsonschema): the schema uses
    something it does not implement, met when ``instance`` reached it (compiling is lazy)."""
    check = _compiled(name)
    if check is None:
        return None
    try:
        return check(instance)
    except (RecursionError, UnsupportedError, re.error):
        return None


_ROOT_LOCAL = frozenset({"type", "required", "minProperties", "maxProperties", "propertyNames"})
_ROOT_MEMBERS = frozenset({"properties", "patternProperties", "additionalProperties"})


@cache
def _split(name: str) -> tuple[Check, Callable[[str, Any], bool]] | None:
    """For a schema whose top level only constrains the object itself and each member on
    its own (most settings schemas): the top-level check, and the check of one member."""
    from .. import schemas

    root = schemas.load(name)
    if not isinstance(root, dict) or "$ref" in root:
        return None
    if any(k in _VALIDATING and k not in _ROOT_LOCAL | _ROOT_MEMBERS for k in root):
        return None
    try:
        compiler = _Compiler(root)
        local = [compiler.keyword(k, v, root) for k, v in root.items() if k in _ROOT_LOCAL]
        props = {k: compiler.sub(v) for k, v in root.get("properties", {}).items()}
        patterns = [
            (compiler.search(p), compiler.sub(v))
            for p, v in root.get("patternProperties", {}).items()
        ]
        other = compiler.sub(root.get("additionalProperties", True))
    except (UnsupportedError, re.error):
        return None
    checks = [c for c in local if c is not None]

    def member(key: str, value: Any) -> bool:
        ok = key not in props or props[key](value)
        matched = False
        for search, check in patterns:
            if search(key):
                matched = True
                ok = ok and check(value)
        return ok and (key in props or matched or other(value))

    return (lambda x: all(c(x) for c in checks)), member


def adds_no_error(name: str, after: Any, changed: set[str]) -> bool:
    """True when ``after`` has no schema error that an edit of only its top-level members
    ``changed`` could have introduced: the top level itself and every changed member are
    valid (an unchanged member has exactly the errors it had before, at the same place).
    False means "cannot tell here": ask jsonschema."""
    split = _split(name)
    if split is None or not isinstance(after, dict):
        return is_valid(name, after) is True
    top, member = split
    try:
        return top(after) and all(member(k, after[k]) for k in changed if k in after)
    except (RecursionError, UnsupportedError, re.error):
        return False


def compile_schema(schema: Any, *, lazy: bool = True) -> Check:
    """``schema`` compiled (for tests: any schema, not only the bundled ones); ``lazy=False``:
    every subschema and pattern at once, so that anything unsupported raises here."""
    return _Compiler(schema, lazy=lazy).compile(schema)
