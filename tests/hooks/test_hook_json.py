"""The hooks' JSON codec (json_loads / json_dumps in the msd-hook-common block) is json's.

Hooks parse and print JSON with json's C accelerator called directly, so that they never import
json (and re with it): see the block. These tests hold it to json.loads / json.dumps with
default settings, on generated documents and on generated text that is mostly not JSON, with
the accelerator and with the fallback to json.
"""

from __future__ import annotations

import importlib.machinery
import json
import math
import types
from pathlib import Path
from typing import Any

import pytest
from hookkit import HOOKS_DIR
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def _load(accelerated: bool) -> types.ModuleType:
    path = str(HOOKS_DIR / "msd-context-monitor-code.py")  # any hook: each inlines the block
    loader = importlib.machinery.SourceFileLoader(f"hook_json_{accelerated}", path)
    module = types.ModuleType(loader.name)
    module.__file__ = path
    loader.exec_module(module)
    assert (module._SCAN is not None) is True  # CPython has the accelerator
    if not accelerated:
        module._SCAN = module._ASCII = None
    return module


CODECS = [_load(True), _load(False)]
IDS = ["accelerator", "fallback"]

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=30,
)
# text near JSON: documents cut, doubled, padded, with odd whitespace, or JSON-ish garbage
texts = st.one_of(
    values.map(json.dumps),
    st.tuples(values.map(json.dumps), st.integers(0, 200)).map(lambda t: t[0][: t[1]]),
    st.tuples(
        values.map(json.dumps),
        st.sampled_from([" ", "\t", "\n", "\r", "\f", "\v", "\u00a0", "\ufeff", "x", "}", "0"]),
    ).map(lambda t: t[1] + t[0] + t[1]),
    st.text(alphabet='{}[]:,"\\0123456789.eE+-truefalsnNIiy \t\n\r\u00e9\ud800', max_size=40),
)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _outcome(fn: Any, arg: Any) -> tuple[str, Any]:
    try:
        return "value", fn(arg)
    except RecursionError:
        return "RecursionError", None
    except ValueError:
        return "ValueError", None
    except TypeError:
        return "TypeError", None


@pytest.mark.parametrize("codec", CODECS, ids=IDS)
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts)
def test_loads_is_json_loads(codec: types.ModuleType, text: str) -> None:
    ours, theirs = _outcome(codec.json_loads, text), _outcome(json.loads, text)
    assert ours[0] == theirs[0], (text, ours, theirs)
    assert _same(ours[1], theirs[1]), text


@pytest.mark.parametrize("codec", CODECS, ids=IDS)
@settings(max_examples=400, deadline=None)
@given(value=values)
def test_dumps_is_json_dumps(codec: types.ModuleType, value: Any) -> None:
    assert codec.json_dumps(value) == json.dumps(value)


@pytest.mark.parametrize("codec", CODECS, ids=IDS)
@pytest.mark.parametrize(
    "text",
    ["[" * 100_000 + "]" * 100_000, "1" * 5000, '{"a": 1} {"b": 2}', "", "  ", '"\x01"', "NaN"],
)
def test_edge_documents_fail_or_pass_as_json(codec: types.ModuleType, text: str) -> None:
    ours, theirs = _outcome(codec.json_loads, text), _outcome(json.loads, text)
    assert ours[0] == theirs[0] and _same(ours[1], theirs[1])


@pytest.mark.parametrize("codec", CODECS, ids=IDS)
@pytest.mark.parametrize("value", [{1, 2}, {"a": object()}, b"bytes", {(1, 2): 3}])
def test_what_json_cannot_write_is_refused_alike(codec: types.ModuleType, value: Any) -> None:
    assert _outcome(codec.json_dumps, value)[0] == _outcome(json.dumps, value)[0] == "TypeError"


def test_a_hook_that_prints_json_imports_neither_json_nor_re(tmp_path: Any) -> None:
    """The context monitor, on a call that makes it warn, answers without importing json or re
    (the point of the codec: importing them costs about as much as starting Python)."""
    import subprocess
    import sys
    import time

    session = "s-1"
    bridge = {"session_id": session, "remaining_percentage": 10, "used_pct": 90}
    bridge["timestamp"] = int(time.time())
    (tmp_path / f"msd-ctx-{session}.json").write_text(json.dumps(bridge))
    event = {"session_id": session, "cwd": str(tmp_path), "hook_event_name": "PostToolUse"}
    event |= {"tool_name": "Bash", "tool_input": {"command": "ls"}}
    proc = subprocess.run(
        [sys.executable, "-I", "-S", "-X", "importtime", str(HOOKS_DIR / "msd-context-monitor.py")],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        env={"TMPDIR": str(tmp_path), "HOME": str(tmp_path)},
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr
    assert "additionalContext" in proc.stdout  # it did answer, in JSON
    assert json.loads(proc.stdout)
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if "|" in line}
    assert not imported & {"json", "re", "json.decoder", "enum"}, sorted(imported)


MALFORMED = ['{"a" 1}', '{"a": {"b": 1}', '"abc', "[1 2]", "{1: 2}", '"\\q"', '{"a": 1,}', "[", "{"]


def test_malformed_json_is_a_value_error_where_json_was_never_imported() -> None:
    """Hooks run as ``python -I -S`` and never import json. There, on Python 3.10 and 3.11,
    _json reports a syntax error as a SystemError (it looks json.decoder up without
    importing it): a hook that catches ValueError then died, and a guard let the call run."""
    import subprocess
    import sys

    probe = (
        "import sys, types\n"
        "from importlib.machinery import SourceFileLoader\n"
        "path = sys.argv[1]\n"
        "m = types.ModuleType('probe')\n"
        "m.__file__ = path\n"
        "SourceFileLoader('probe', path).exec_module(m)\n"
        "assert 'json' not in sys.modules\n"
        "for text in sys.argv[2:]:\n"
        "    try:\n"
        "        m.json_loads(text)\n"
        "    except ValueError:\n"
        "        print('ValueError')\n"
        "    except BaseException as exc:\n"
        "        print(type(exc).__name__)\n"
        "    else:\n"
        "        print('parsed')\n"
    )
    code = str(HOOKS_DIR / "msd-context-monitor-code.py")
    proc = subprocess.run(
        [sys.executable, "-I", "-S", "-c", probe, code, *MALFORMED],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["ValueError"] * len(MALFORMED)


def test_the_guard_blocks_a_read_of_env_sent_in_pieces(tmp_path: Path) -> None:
    """A first chunk that ends in "}" is parsed early (the object may be complete); a partial
    object must read as "not yet", and the whole call is then judged: blocked."""
    import os
    import subprocess
    import sys
    import time

    (tmp_path / ".env").write_text("TOKEN=x\n")
    event = {"session_id": "s", "cwd": str(tmp_path), "hook_event_name": "PreToolUse"}
    event |= {"tool_name": "Bash", "tool_input": {"command": "cat .env; echo '{x}'"}}
    text = json.dumps(event).encode()
    cut = text.index(b"}") + 1  # the first piece ends inside the object, with a "}"
    proc = subprocess.Popen(
        [sys.executable, "-I", "-S", str(HOOKS_DIR / "msd-secret-read-guard.py")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        env={"HOME": str(tmp_path), "PATH": os.environ.get("PATH", "")},
    )
    assert proc.stdin is not None
    proc.stdin.write(text[:cut])
    proc.stdin.flush()
    time.sleep(0.3)  # the hook sees a pause after a "}": it tries to parse
    proc.stdin.write(text[cut:])
    proc.stdin.close()
    assert proc.wait(timeout=30) == 2, proc.stderr.read() if proc.stderr else ""
