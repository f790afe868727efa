"""Hostile config records against the TOML and YAML editors: an edited (foreign) manifest of
a Codex or Hermes install, its ops pointing anywhere in the user's config.toml / config.yaml
with any hash and any interior. Whatever the manifest says, an install or uninstall either
refuses (one line, nothing written) or leaves a file that parses, in which every entry of the
user's is still there, unless the manifest named it with its exact hash (a foreign manifest
removes what hashes as it says; that is the documented rule), and nothing outside the root and
the config files changes.
"""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import tomlkit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from helpers import build, global_context, snapshot
from msd_install.errors import MsdError
from msd_install.installer import engine
from msd_install.installer.configedit import value_hash
from msd_install.installer.context import Context
from msd_install.payload import load
from msd_install.runtimes import ADAPTERS

USER = {
    "codex": (
        ".codex/config.toml",
        '# mine\nmodel = "o3"\n\n[mcp_servers.github]\ncommand = "gh"  # keep\n\n'
        '[profiles.fast]\nmodel = "o4-mini"\n',
    ),
    "hermes": (
        ".hermes/config.yaml",
        "# mine\nmodel: x\nmcp_servers:\n  github:\n    command: gh  # keep\nhooks:\n"
        "  pre_tool_call:\n  - matcher: terminal\n    command: my-guard\n",
    ),
}
# what an attacker could name: the user's entries (by their real hash), msd's, anything
PATHS = [[], ["mcp_servers"], ["hooks"], ["hooks", "pre_tool_call"], ["profiles"], ["x", "y"]]
KEYS = ["github", "msd", "model", "fast", "pre_tool_call", "mcp_servers", "hooks", "nope"]
TEXTS = [
    "",
    "\n",
    "# injected\n",
    "[mcp_servers.evil]\ncommand = 'sh'\n",
    "evil: 1\n",
    "  evil:\n    command: sh\n",
    '["  github:\\n    command: gh  # keep\\n", ""]',
    '["", "evil: 1\\n"]',
    '["x", " {}"]',
    '["\\n", " null"]',
    '[mcp_servers.github]\ncommand = "gh"  # keep\n',
]


def ctx_for(home: Path) -> Context:
    ctx: Context = global_context(home)
    return ctx


def parse(fmt: str, text: str) -> Any:
    if fmt == "toml":
        return tomlkit.parse(text).unwrap()
    return YAML(typ="safe", pure=True).load(StringIO(text)) or {}


def user_entries(fmt: str, text: str) -> dict[tuple[Any, ...], Any]:
    data = parse(fmt, text)
    out: dict[tuple[Any, ...], Any] = {("model",): data["model"]}
    out[("mcp_servers", "github")] = data["mcp_servers"]["github"]
    if fmt == "toml":
        out[("profiles", "fast")] = data["profiles"]["fast"]
    else:
        out[("hooks", "pre_tool_call", 0)] = data["hooks"]["pre_tool_call"][0]
    return out


def lookup(data: Any, path: tuple[Any, ...], fmt: str) -> Any:
    for key in path[:-1] if fmt == "yaml" and isinstance(path[-1], int) else path:
        if not isinstance(data, dict) or key not in data:
            return None
        data = data[key]
    if isinstance(path[-1], int):
        return data if isinstance(data, list) else None
    return data


@st.composite
def hostile_ops(draw: st.DrawFn, entries: dict[tuple[Any, ...], Any]) -> list[dict[str, Any]]:
    hashes = [value_hash(v) for v in entries.values()] + ["0" * 64, "f" * 64]
    out = []
    for _ in range(draw(st.integers(1, 4))):
        op: dict[str, Any] = {
            "op": draw(st.sampled_from(["member", "item", "replace"])),
            "path": draw(st.sampled_from(PATHS)),
            "key": draw(st.sampled_from(KEYS)),
            "sha256": draw(st.sampled_from(hashes)),
            "label": "x",
        }
        if draw(st.booleans()):
            op["interior"] = draw(st.sampled_from(TEXTS))
        if op["op"] == "replace" or draw(st.booleans()):
            op["previous"] = draw(st.sampled_from(TEXTS))
        if draw(st.booleans()):
            op["marker"] = draw(st.sampled_from(["gh", "my-guard", "o3", "sh"]))
        out.append(op)
    return out


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    runtime=st.sampled_from(list(USER)),
    data=st.data(),
    action=st.sampled_from(["uninstall", "install"]),
)
def test_hostile_toml_and_yaml_records_never_damage_the_users_config(
    tmp_path_factory: Any, runtime: str, data: st.DataObject, action: str
) -> None:
    home = tmp_path_factory.mktemp("h")
    rel, text = USER[runtime]
    fmt = "toml" if rel.endswith(".toml") else "yaml"
    build(home, {rel: text, "outside/keep.txt": "mine\n"})
    ctx = ctx_for(home)
    adapter = ADAPTERS[runtime]
    plan = adapter.plan(ctx, load())
    engine.install(plan, ctx)
    config = home / rel
    installed = config.read_text()
    manifest = adapter.root(ctx) / "msd-file-manifest.json"
    doc = json.loads(manifest.read_text())
    entries = user_entries(fmt, text)
    record = next(c for c in doc["config"] if c["file"] == Path(rel).name)
    record["ops"] = data.draw(hostile_ops(entries)) + record["ops"]
    manifest.write_text(json.dumps(doc))  # edited: foreign
    outside = snapshot(home / "outside")
    try:
        if action == "uninstall":
            engine.uninstall(runtime, ctx, adapter.root(ctx), plan.bounds)
        else:
            engine.install(plan, ctx)
    except MsdError:
        assert config.read_text() == installed  # refused: nothing written
        return
    finally:
        assert snapshot(home / "outside") == outside
    after = parse(fmt, config.read_text())
    named = {(tuple(op["path"]), op.get("key"), op["sha256"]) for op in record["ops"]}
    for path, value in entries.items():
        if isinstance(path[-1], int):  # the user's hook: an item of the list
            items = lookup(after, path, fmt) or []
            claimed = (path[:-1], "x", value_hash(value))
            if not any((p, h) == (claimed[0], claimed[2]) for p, _k, h in named):
                assert value in items, (path, config.read_text())
            continue
        claimed_by_hash = (path[:-1], path[-1], value_hash(value)) in named
        if not claimed_by_hash:
            assert lookup(after, path, fmt) == value, (path, config.read_text())
