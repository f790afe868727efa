"""``msd-mcp verify-audit PATH``: check an audit log's hash chain, read-only.

Each record carries ``seq`` and ``prev_hash`` (sha256 of the previous line's bytes), so an
edited, deleted or reordered line breaks the chain. A torn last line (a crash mid-write) is
reported but is not a chain error. The log is never repaired or rewritten.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Verdict:
    records: int
    broken_line: int | None = None
    problem: str | None = None
    torn_line: int | None = None


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def parse_record(line: bytes) -> dict[str, object]:
    """One record, strictly: a JSON object of the current schema (no NaN/Infinity)."""
    rec = json.loads(line, parse_constant=_reject_constant)
    if not isinstance(rec, dict) or rec.get("v") != SCHEMA_VERSION:
        raise ValueError("not a record")
    seq = rec.get("seq")
    if isinstance(seq, bool) or not isinstance(seq, int) or "prev_hash" not in rec:
        raise ValueError("not a record")
    return rec


def verify(data: bytes) -> Verdict:
    """Check the chain; report the first broken line (1-based) and any torn last line."""
    lines = data.split(b"\n")
    tail = lines.pop()  # b"" when the file ends with a newline
    torn = len(lines) + 1 if tail else None
    prev: bytes | None = None
    prev_seq = 0
    for n, line in enumerate(lines, 1):
        try:
            rec = parse_record(line)
        except (ValueError, RecursionError):
            return Verdict(n - 1, n, "not a valid audit record (edited or corrupted)", torn)
        seq, link = rec["seq"], rec["prev_hash"]
        if seq != prev_seq + 1:
            why = "a line was deleted, inserted or reordered"
            return Verdict(n - 1, n, f"seq {seq} where {prev_seq + 1} was expected: {why}", torn)
        expected = hashlib.sha256(prev).hexdigest() if prev is not None else None
        if link != expected:
            if prev is None:
                return Verdict(0, 1, "first record links to a previous line that is missing", torn)
            return Verdict(n - 2, n - 1, f"altered: line {n} records a different hash for it", torn)
        prev, prev_seq = line, int(str(seq))
    return Verdict(len(lines), torn_line=torn)


def verify_main(argv: Sequence[str], out: TextIO) -> int:
    """``verify-audit PATH``: 0 intact, 1 broken chain, 2 usage or unreadable file."""
    if len(argv) != 1:
        out.write("usage: msd-mcp verify-audit PATH\n")
        return 2
    try:
        data = Path(argv[0]).read_bytes()
    except OSError as exc:
        out.write(f"error: cannot read {argv[0]}: {exc.strerror}\n")
        return 2
    verdict = verify(data)
    if verdict.torn_line is not None:
        out.write(f"note: line {verdict.torn_line} is incomplete (torn write); ignored\n")
    if verdict.broken_line is not None:
        out.write(f"broken: line {verdict.broken_line}: {verdict.problem}\n")
        return 1
    out.write(f"ok: {verdict.records} records, chain intact\n")
    return 0
