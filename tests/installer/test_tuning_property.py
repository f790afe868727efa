"""Property: random user edits to the leaves of our JSON entry, and random changes of ours in
a new version. A reinstall keeps every leaf the user changed and applies every change of ours
to a leaf the user left alone; uninstall gives back the user's file byte for byte."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from msd_install.installer.configedit import invert, reconcile
from msd_install.installer.jsonedit import JsonDocument
from msd_install.installer.plan import MEMBER, ConfigEntry

FILE = Path("/x/settings.json")
MARKER = "python3 /x/hooks/msd-guard.py"
LEAVES = ("timeout", "matcher", "async", "status")
scalar = st.one_of(st.integers(-5, 200), st.sampled_from(["Read", "Bash|Edit", "x"]), st.booleans())
edits = st.dictionaries(st.sampled_from(LEAVES), st.one_of(scalar, st.none()), max_size=4)


def entry(value: dict[str, Any]) -> ConfigEntry:
    return ConfigEntry(
        FILE, "json", MEMBER, ("hooks",), value, key="msd", label="hook msd-guard", marker=MARKER
    )


def edited(value: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    out = dict(value)
    for key, new in changes.items():
        if new is None:
            out.pop(key, None)  # None: the leaf is removed
        else:
            out[key] = new
    return out


@settings(max_examples=300, deadline=None)
@given(base=st.dictionaries(st.sampled_from(LEAVES), scalar), theirs=edits, ours=edits)
def test_reinstall_keeps_theirs_and_applies_ours(
    base: dict[str, Any], theirs: dict[str, Any], ours: dict[str, Any]
) -> None:
    base = {"command": MARKER, **base}
    original = '{\n  "model": "opus"\n}\n'
    first = reconcile(FILE, JsonDocument(original), [entry(base)], [])
    user = edited(base, theirs)
    doc = JsonDocument(first.text)
    text = doc.replace_value(("hooks", "msd"), user)[0].text
    new = edited(base, ours)
    second = reconcile(FILE, JsonDocument(text), [entry(new)], first.ops)
    got = json.loads(second.text)["hooks"]["msd"]
    for key in {*LEAVES, "command"}:
        # compared as JSON text: true is not 1, as in the file
        mine, ourv, was = (json.dumps(d.get(key)) for d in (user, new, base))
        changed_by_user = mine != was or (key in user) != (key in base)
        changed_by_us = ourv != was or (key in new) != (key in base)
        if changed_by_user:
            assert json.dumps(got.get(key)) == mine and (key in got) == (key in user), key
        elif changed_by_us:
            assert json.dumps(got.get(key)) == ourv and (key in got) == (key in new), key
        else:
            assert json.dumps(got.get(key)) == was
    assert json.loads(second.text)["model"] == "opus"
    removed, _notes = invert(JsonDocument(second.text), second.ops)
    assert removed.text == original
