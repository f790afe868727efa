"""A small JSON Schema checker for tool arguments (the keywords our input schemas use).

Covers ``type``, ``properties``, ``required``, ``additionalProperties`` (boolean or schema),
``enum``, ``minimum``/``maximum``, ``minLength``/``maxLength``, ``items``, ``minItems``/
``maxItems``. Annotation keywords (``title``, ``description``, ``default``) are ignored. A
schema using any other keyword is rejected by ``unsupported_keywords`` so that a tool cannot
silently declare a constraint that nobody checks.

Stricter than JSON Schema on purpose, since the values reach Python code: an ``integer`` is a
JSON number without a fraction or exponent part (``1.0`` is refused, not passed on as a float
that later breaks a slice), and ``plain_json`` refuses, anywhere in the arguments, strings that
are not valid Unicode (lone surrogates from ``\ud800`` escapes), non-finite numbers and nesting
deeper than ``MAX_DEPTH``, so no tool has to cope with them.
"""

from __future__ import annotations

from typing import Any

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "boolean": (bool,),
    "null": (type(None),),
    "number": (int, float),
    "integer": (int,),
}
_CHECKED = {
    "type",
    "properties",
    "required",
    "additionalProperties",
    "enum",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "items",
    "minItems",
    "maxItems",
}
_ANNOTATIONS = {"title", "description", "default", "$schema", "examples"}


MAX_DEPTH = 64


def _is_type(value: Any, name: str) -> bool:
    if isinstance(value, bool) and name in ("number", "integer"):
        return False  # JSON booleans are not numbers, though Python's bool is an int
    return isinstance(value, _TYPES.get(name, ()))


def plain_json(value: Any, where: str = "arguments") -> list[str]:
    """Problems that make ``value`` unfit for any tool, found without recursion."""
    import math

    stack = [(value, where, 0)]
    while stack:
        item, at, depth = stack.pop()
        if depth > MAX_DEPTH:
            return [f"{at}: nested deeper than {MAX_DEPTH} levels"]
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return [f"{at}: not valid Unicode (a lone surrogate)"]
        elif isinstance(item, float) and not math.isfinite(item):
            return [f"{at}: not a finite number"]
        elif isinstance(item, dict):
            for key, sub in item.items():
                stack.append((key, f"{at} (a key)", depth + 1))
                stack.append((sub, f"{at}.{key}", depth + 1))
        elif isinstance(item, list):
            stack.extend((sub, f"{at}[{i}]", depth + 1) for i, sub in enumerate(item))
    return []


def validate(value: Any, schema: dict[str, Any], where: str = "") -> list[str]:
    """Return one message per violation (empty when ``value`` conforms)."""
    at = where or "arguments"
    errors: list[str] = []
    kind = schema.get("type")
    if kind is not None:
        names = kind if isinstance(kind, list) else [kind]
        if not any(_is_type(value, n) for n in names):
            return [f"{at}: expected {' or '.join(names)}"]
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{at}: must be one of {schema['enum']}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{at}: must be >= {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            errors.append(f"{at}: must be <= {schema['maximum']}")
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            errors.append(f"{at}: shorter than {schema['minLength']} characters")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            errors.append(f"{at}: longer than {schema['maxLength']} characters")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            errors.append(f"{at}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            errors.append(f"{at}: more than {schema['maxItems']} items")
        if isinstance(schema.get("items"), dict):
            for i, item in enumerate(value):
                errors += validate(item, schema["items"], f"{at}[{i}]")
    if isinstance(value, dict):
        errors += _validate_object(value, schema, at)
    return errors


def _validate_object(value: dict[str, Any], schema: dict[str, Any], at: str) -> list[str]:
    errors = [f"{at}: missing required '{k}'" for k in schema.get("required", ()) if k not in value]
    props: dict[str, Any] = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    for key, item in value.items():
        if key in props:
            errors += validate(item, props[key], f"{at}.{key}")
        elif extra is False:
            errors.append(f"{at}: unexpected property '{key}'")
        elif isinstance(extra, dict):
            errors += validate(item, extra, f"{at}.{key}")
    return errors


def unsupported_keywords(schema: Any) -> set[str]:
    """Keywords in ``schema`` (recursively) that ``validate`` would not enforce."""
    if not isinstance(schema, dict):
        return set()
    found = set(schema) - _CHECKED - _ANNOTATIONS
    for sub in schema.get("properties", {}).values():
        found |= unsupported_keywords(sub)
    for key in ("items", "additionalProperties"):
        found |= unsupported_keywords(schema.get(key))
    return found
