"""The payload loader reads what the loader before it read, field for field.

``load_tree`` lists a payload folder with ``os.scandir``, reads each file with one unbuffered
read, reads each hook block once per load, and splits a document's frontmatter without
splitting its body into lines (docs/explanation/performance.md). The loader it replaced is
kept below, verbatim, as the reference: the loaded ``Payload`` must equal its reading
(dataclass equality: every command, agent, skill, hook, engine and library file, bytes and
parsed frontmatter included) on the bundled payload, on the bench's synthetic payload, on a
tree of traps (CRLF and lone CR, nested folders, name order, compiled files, links, empty
folders, a block used twice) and inside a zip; and a document must split the same way, or
fail with the same message, for generated texts.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from msd_install.errors import PayloadError
from msd_install.payload import (
    Document,
    HookSpec,
    Payload,
    _data,
    entries,
    hook_specs,
    load,
    load_tree,
    split_frontmatter,
)
from msd_install.payload.frontmatter import fast_parse, slow_parse, yaml_error
from msd_install.pkgfiles import files

BENCH = Path(__file__).resolve().parents[2] / "bench" / "incumbent_bench.py"

# ------------------------------------------------------------ the reference: the old loader


def old_split_frontmatter(relpath: str, text: str) -> Document:
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        raise PayloadError(f"payload file {relpath} has no frontmatter")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise PayloadError(f"payload file {relpath}: frontmatter is not closed") from None
    block = "\n".join(lines[1:end])
    meta = fast_parse(block)
    if meta is None:
        try:
            meta = slow_parse(block)
        except yaml_error() as exc:
            raise PayloadError(f"payload file {relpath}: bad frontmatter: {exc}") from None
    if not isinstance(meta, dict):
        raise PayloadError(f"payload file {relpath}: frontmatter is not a mapping")
    body = "\n".join(lines[end + 1 :])
    return Document(relpath, tuple(meta.items()), body, text)


def old_walk(node: Any, prefix: str = "") -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for child in sorted(node.iterdir(), key=lambda c: c.name):
        if child.name == "__pycache__" or child.name.endswith((".pyc", ".pyo")):
            continue
        rel = f"{prefix}{child.name}"
        if child.is_dir():
            out.extend(old_walk(child, rel + "/"))
        else:
            out.append((rel, child))
    return out


def old_markdown(data: Any, folder: str) -> list[Document]:
    node = data.joinpath(folder)
    if not node.is_dir():
        return []
    return [
        old_split_frontmatter(f"{folder}/{rel}", item.read_text(encoding="utf-8"))
        for rel, item in old_walk(node)
        if rel.endswith(".md")
    ]


def old_assemble_hook(source: str, blocks: Any) -> str:
    import re

    out: list[str] = []
    pos = 0
    for match in re.compile(r"^# >>> ([a-z-]+)\b.*>>>$", re.M).finditer(source):
        name = match.group(1)
        end = source.find(f"# <<< {name} <<<", match.end())
        if end < 0:
            raise PayloadError(f"hook block {name} is not closed")
        block = blocks.joinpath(f"{name}.pyblock")
        if not block.is_file():
            raise PayloadError(f"hook block {name} is not in the payload")
        out += [source[pos : match.end()], "\n", block.read_text(encoding="utf-8")]
        pos = end
    out.append(source[pos:])
    return "".join(out)


def old_hooks(data: Any) -> tuple[HookSpec, ...]:
    folder = data.joinpath("hooks")
    registry = folder.joinpath("hooks.json")
    if not registry.is_file():
        return ()
    specs: list[HookSpec] = []
    for item in json.loads(registry.read_text(encoding="utf-8"))["hooks"]:
        script = folder.joinpath(item["script"])
        if not script.is_file():
            raise PayloadError(f"hooks.json names {item['script']}, which is not in the payload")
        text = old_assemble_hook(script.read_text(encoding="utf-8"), folder.joinpath("_blocks"))
        specs.extend(hook_specs(item, text.encode("utf-8")))
    return tuple(specs)


def old_load_tree(data: Any) -> Payload:
    from msd_install.payload import DataFile

    def tree(node: Any) -> tuple[DataFile, ...]:
        return tuple(
            DataFile(rel, item.read_bytes(), rel.startswith("bin/")) for rel, item in old_walk(node)
        )

    commands, agents, skills = entries(
        old_markdown(data, "commands"),
        old_markdown(data, "agents"),
        [d for d in old_markdown(data, "skills") if d.relpath.endswith("/SKILL.md")],
    )
    core = data.joinpath("core")
    lib = files("msd_install").joinpath("msdcore")
    return Payload(
        commands,
        agents,
        skills,
        old_hooks(data),
        tree(core) if core.is_dir() else (),
        tuple(f for f in tree(lib) if f.relpath.endswith(".py")),
    )


def outcome(read: Any, *args: Any) -> Any:
    try:
        return read(*args)
    except PayloadError as exc:
        return ("PayloadError", str(exc))


# --------------------------------------------------------------------------------- the tests


def test_the_bundled_payload_loads_as_the_old_loader_read_it() -> None:
    old = old_load_tree(_data())
    assert len(old.commands) > 5 and len(old.hooks) > 5 and len(old.core) > 5 and old.lib
    assert load_tree(_data()) == old
    assert load() == old


def test_the_bench_payload_loads_as_the_old_loader_read_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = importlib.util.spec_from_file_location("incumbent_bench", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, bench)  # its dataclasses look themselves up
    spec.loader.exec_module(bench)
    data = bench.synthetic_payload(tmp_path / "synthetic")
    old = old_load_tree(data)
    assert (len(old.commands), len(old.agents), len(old.core)) == (67, 33, 280)
    assert load_tree(data) == old


def _traps(root: Path) -> Path:
    """A payload folder with what a walk or a read could get wrong."""
    data = root / "data"
    for rel, text in {
        "commands/b.md": "---\r\nname: b\r\ndescription: CRLF lines\r\n---\r\nbody\r\n",
        "commands/B.md": "---\rname: B\rdescription: lone CR lines\r---\rbody\r",
        "commands/_a.md": " --- \nname: a\ndescription: blanks around the fences\n ---\n",
        "commands/sub/deeper/c.md": "---\nname: c\ndescription: nested\n---\nno newline at end",
        "commands/d.md": "---\nname: d\ndescription: body with fences\n---\n---\nx\n---\n",
        "commands/notes.txt": "not a command",
        "commands/__pycache__/x.md": "---\nname: cached\n---\n",
        "commands/e.md.pyc": "compiled",
        "agents/z.md": "---\nname: z\ndescription: an agent\ntools: Read, Bash\n---\n",
        "agents/\u00e9.md": "---\nname: e\ndescription: a non-ASCII name\n---\n\u00e9\n",
        "skills/one/SKILL.md": "---\nname: one\ndescription: a skill\n---\nbody\n",
        "skills/one/references/more.md": "---\nname: more\ndescription: not a skill\n---\n",
        "core/bin/tool": "#!/bin/sh\r\necho bytes as they are\r\n",
        "core/workflows/w.md": "text\rwith\r\nevery\nending",
        "core/Z/last.txt": "",
        "core/a/first.txt": "\ufeffa BOM",
        "core/x.pyo": "optimised",
        "hooks/hooks.json": json.dumps(
            {
                "hooks": [
                    {"name": "one", "script": "one.py", "event": "PreToolUse", "timeout": 5},
                    {"name": "two", "script": "two.py", "event": "Stop"},
                    {"name": "helper", "script": "helper.py"},
                ]
            }
        ),
        "hooks/one.py": "# >>> blk x >>>\n# <<< blk <<<\nmid\n# >>> blk >>>\n# <<< blk <<<\n",
        "hooks/two.py": "a\r\n# >>> blk >>>\nold\n# <<< blk <<<\n"
        "# >>> other >>>\n# <<< other <<<\n",
        "hooks/helper.py": "print('helper')\n",
        "hooks/_blocks/blk.pyblock": "shared = 1\r\n",
        "hooks/_blocks/other.pyblock": "other = 2\n",
    }.items():
        path = data / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    (data / "core" / "empty").mkdir()
    (data / "core" / "bin" / "tool").chmod(0o755)
    outside = root / "outside"
    (outside / "inner").mkdir(parents=True)
    (outside / "inner" / "f.txt").write_text("through a link to a folder")
    os.symlink(outside, data / "core" / "linked")
    os.symlink(data / "core" / "a" / "first.txt", data / "core" / "alias.txt")
    return data


def test_a_tree_of_traps_loads_as_the_old_loader_read_it(tmp_path: Path) -> None:
    data = _traps(tmp_path)
    old = old_load_tree(data)
    new = load_tree(data)
    assert new == old
    # the traps were met: names in order, CR and CRLF read as LF, links followed
    assert [c.name for c in new.commands] == ["B", "a", "b", "d", "c"]
    assert new.commands[0].doc.raw == "---\nname: B\ndescription: lone CR lines\n---\nbody\n"
    assert [(f.relpath, f.executable) for f in new.core][:3] == [
        ("Z/last.txt", False),
        ("a/first.txt", False),
        ("alias.txt", False),
    ]
    assert ("bin/tool", True) in [(f.relpath, f.executable) for f in new.core]
    assert "linked/inner/f.txt" in [f.relpath for f in new.core]
    assert [s.doc.relpath for s in new.skills] == ["skills/one/SKILL.md"]
    # the block read once is inlined everywhere it is named, twice in one hook
    assert sorted(h.content.count(b"shared = 1") for h in new.hooks) == [0, 0, 0, 1, 2]


def test_a_payload_inside_a_zip_loads_as_the_old_loader_read_it(tmp_path: Path) -> None:
    data = _traps(tmp_path)
    (data / "core" / "linked").unlink()
    (data / "core" / "alias.txt").unlink()
    archive = tmp_path / "payload.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for path in sorted(data.rglob("*")):
            if path.is_file():
                zipped.write(path, path.relative_to(tmp_path).as_posix())
    inside = zipfile.Path(archive, "data/")
    assert load_tree(inside) == old_load_tree(inside)
    assert load_tree(inside) == load_tree(data)


@pytest.mark.parametrize(
    ("hook", "blocks"),
    [
        ("# >>> blk >>>\nno end\n", {"blk.pyblock": "x\n"}),
        ("# >>> missing >>>\n# <<< missing <<<\n", {}),
    ],
)
def test_a_broken_hook_fails_as_it_did(tmp_path: Path, hook: str, blocks: dict[str, str]) -> None:
    data = tmp_path / "data"
    (data / "hooks" / "_blocks").mkdir(parents=True)
    (data / "hooks" / "hooks.json").write_text(
        json.dumps({"hooks": [{"name": "h", "script": "h.py", "event": "Stop"}]})
    )
    (data / "hooks" / "h.py").write_text(hook)
    for name, text in blocks.items():
        (data / "hooks" / "_blocks" / name).write_text(text)
    old = outcome(old_load_tree, data)
    assert old[0] == "PayloadError"
    assert outcome(load_tree, data) == old


LINES = st.sampled_from(
    ["---", " --- ", "---\r", "--- x", "-- -", "\u2028---", "name: x", "a: b", "  - i", "", "b"]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(LINES, max_size=8), st.booleans())
def test_a_document_splits_as_it_did(lines: list[str], newline_at_end: bool) -> None:
    text = "\n".join(lines) + ("\n" if newline_at_end else "")
    assert outcome(split_frontmatter, "x.md", text) == outcome(old_split_frontmatter, "x.md", text)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="-\n\r :ab \u2028\t", max_size=40))
def test_any_text_splits_as_it_did(text: str) -> None:
    assert outcome(split_frontmatter, "x.md", text) == outcome(old_split_frontmatter, "x.md", text)
