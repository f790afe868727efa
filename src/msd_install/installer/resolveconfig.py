"""Install resolution of the config files: the entries a plan wants, against the disk and
the manifest's recorded edits (``configedit`` reconciles; this decides the steps and reports).
"""

from __future__ import annotations

from pathlib import Path

from ..errors import ConfigFileError
from .configdoc import ConfigDoc, fmt_of, parse_text
from .configedit import (
    check_writable,
    open_doc,
    ours_exactly,
    reconcile,
    refused,
    satisfied,
    value_hash,
)
from .confine import real_target
from .jsonedit import JsonDocument
from .manifest import ConfigOp, ConfigRecord, Manifest
from .plan import IF_ABSENT, MEMBER, ConfigEntry, Plan
from .report import Result
from .resolution import Resolution
from .steps import ABSENT, Remove, Step, Write


def resolve_config(
    plan: Plan, old: Manifest | None, new: Manifest, res: Resolution, result: Result
) -> list[Step]:
    steps: list[Step] = []
    files = list(plan.config_files())
    if old is not None:
        for old_record in old.config:
            old_path = old.abs(old_record["file"])
            if old_path not in files:
                files.append(old_path)
    for path in files:
        record = old.config_for(path) if old else None
        link = res.config_link(path)
        if link is not None:
            result.add("conflict", path, link)
            if record is not None:
                new.config.append(record)  # restricted: removes by hash only, later
            continue
        entries = []
        for entry in plan.entries:
            if entry.file != path:
                continue
            missing = [r for r in entry.requires if r in res.not_installed]
            if missing:
                result.add(
                    "skip", path, f"{entry.label}: not added, {missing[0].name} is not installed"
                )
                continue
            entries.append(entry)
        old_ops = record["ops"] if record else []
        raw = res.read_config(path)
        fmt = entries[0].fmt if entries else (record["fmt"] if record else "json")
        doc = open_doc(path, raw, fmt)
        _watch(plan, path, doc, result)
        created = raw is None or bool(record and record["created"])
        # a foreign record lost its markers: re-record the entries rather than carry it over
        if record is not None and res.follow_links and satisfied(doc, entries, old_ops):
            new.config.append(record)
            result.add("identical", path)
            _report_untouched(entries, doc, old_ops, result)
            continue
        # a foreign record that holds exactly what we would record (a teammate's committed
        # install of this version) is carried over as it came: no churn in the project
        original = old.original_config_for(path) if old is not None and record else None
        if (
            original is not None
            and original["fmt"] == fmt
            and ours_exactly(original["ops"], entries)
            and satisfied(doc, entries, original["ops"])
        ):
            new.config.append(original)
            result.add("identical", path)
            continue
        try:
            rec = reconcile(path, doc, entries, old_ops)
        except ValueError as exc:  # an editor refused a splice it could not verify
            raise refused(path, exc) from None
        for note in rec.kept:
            result.add("skip", path, note)
        for note in rec.tuned:
            result.add("kept", path, note)
        for outcome in rec.outcomes:
            if outcome.verb in ("skip", "conflict", "backup"):
                result.add(outcome.verb, path, f"{outcome.entry.label}: {outcome.detail}")
        text = rec.text
        if raw is None and not rec.ops:
            continue
        if created and not rec.ops and fmt_of(fmt).is_empty(text):
            steps.append(Remove(real_target(path)))  # a dotfile link stays; its target goes
            result.add("remove", real_target(path))
            continue
        _validate(path, entries, fmt, raw, text, doc)
        if rec.ops:
            new.config.append(
                ConfigRecord(file=new.rel(path), fmt=fmt, created=created, ops=rec.ops)
            )
        if raw is not None and text.encode() == raw:
            result.add("identical", path)
            continue
        check_writable(path)
        if raw is None:
            res.ensure_parent(real_target(path))  # a dangling dotfile link: create its target
        mode = None if raw is not None else 0o644
        expect = ABSENT if raw is None else raw
        steps.append(Write(path, text.encode(), mode, expect=expect, in_place=True))
        result.add("create" if raw is None else "update", path)
    return steps


def _watch(plan: Plan, path: Path, doc: ConfigDoc, result: Result) -> None:
    """Say when a setting of the user's silences what we install (their hooks switch)."""
    for watch in plan.watches:
        if watch.file != path:
            continue
        node = doc.node(watch.path)
        value = getattr(node, "value", None) if node is not None else None
        if node is not None and type(value) is type(watch.equals) and value == watch.equals:
            result.notes.append(watch.note)


def _report_untouched(
    entries: list[ConfigEntry], doc: ConfigDoc, ops: list[ConfigOp], result: Result
) -> None:
    """On an identical run, still tell the user about entries we leave to them (not about
    ours that they tuned: that was reported once, when it was first seen)."""
    tuned = {(tuple(op["path"]), op.get("key")): op["sha256"] for op in ops if "ours" in op}
    for entry in entries:
        if entry.kind == MEMBER and not entry.force:
            node = doc.node((*entry.path, entry.key))
            there = value_hash(node.value) if node is not None else None
            if tuned.get((entry.path, entry.key)) == there:
                continue
            if node is not None and there != value_hash(entry.value):
                verb = "skip" if entry.policy == IF_ABSENT else "conflict"
                result.add(verb, entry.file, f"{entry.label}: yours is kept")


def _validate(
    path: Path,
    entries: list[ConfigEntry],
    fmt: str,
    raw: bytes | None,
    text: str,
    before_doc: ConfigDoc,
) -> None:
    """Refuse to save an edit that breaks the file's published schema (errors we introduced).

    Both versions are read by the file's own format parser: a JSONC file's comments are not
    JSON, and ``raw`` has already parsed once, so neither can fail here."""
    names = {e.schema for e in entries if e.schema}
    if not names or (raw is not None and text.encode() == raw):
        return  # an unchanged file has no error we introduced
    from .schemacheck import adds_no_error, is_valid

    parsed = parse_text(fmt, text)
    after = parsed.node(()).value
    # the compiled checker answers "valid" without importing jsonschema (proven to agree with
    # it: tests/installer/test_schemacheck.py); jsonschema names the errors, if any
    changed = _changed_members(before_doc, parsed) if raw is not None else None
    if changed is None:
        names = {n for n in names if is_valid(n, after) is not True}
    else:
        names = {n for n in names if not adds_no_error(n, after, changed)}
    if not names:
        return
    import jsonschema

    from .. import schemas

    before = parse_text(fmt, raw.decode("utf-8")).node(()).value if raw else {}
    for name in sorted(n for n in names if n):
        validator = jsonschema.Draft7Validator(schemas.load(name))
        old_errors = {_err(e) for e in validator.iter_errors(before)}
        for err in validator.iter_errors(after):
            if _err(err) not in old_errors:
                raise ConfigFileError(
                    f"the edited file would not match the {name} schema at "
                    f"{'.'.join(str(p) for p in err.absolute_path) or '/'}: "
                    f"{err.message}",
                    path=path,
                )


def _changed_members(before: ConfigDoc, after: ConfigDoc) -> set[str] | None:
    """The top-level keys whose value text differs between two JSON documents (None for
    other formats): a 20 MB settings.json is edited in ``hooks``; its 400,000 permission
    rules need no second look."""
    if not isinstance(before, JsonDocument) or not isinstance(after, JsonDocument):
        return None
    if before.root.kind != "object" or after.root.kind != "object":
        return None
    old = {m.key: before.text[m.value.start : m.value.end] for m in before.root.members}
    new = {m.key: after.text[m.value.start : m.value.end] for m in after.root.members}
    return {k for k, v in new.items() if old.get(k) != v}


def _err(err: object) -> tuple[str, str]:
    path = getattr(err, "absolute_path", ())
    return ".".join(str(p) for p in path), str(getattr(err, "message", ""))
