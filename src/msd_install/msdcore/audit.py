"""The audit log of mutating tool calls, and its verifier.

One JSON line per call, appended with a single ``os.write`` to an ``O_APPEND | O_CREAT |
O_CLOEXEC`` 0600 descriptor, length-checked, then ``fsync``-ed. Each record carries ``seq`` and
``prev_hash`` (sha256 of the previous line's bytes), so an edited, deleted or reordered line
breaks the chain. Several server processes may share one log: an exclusive ``flock`` around
"read the last line, append the next" keeps the chain linear.

The log is never repaired or rewritten. A torn last line (a crash mid-write) is reported by
``verify`` but is not a chain error; appending after it would bury it mid-file, so ``AuditLog``
refuses to append until the file is moved aside.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TextIO

SCHEMA_VERSION = 1
_TAIL_CHUNK = 64 * 1024


class AuditError(Exception):
    """The audit log cannot be appended to; mutations must not proceed."""


def canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def utc_now() -> str:
    stamp = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
    return stamp.replace("+00:00", "Z")


def last_line(fd: int) -> bytes | None:
    """The last complete line of the file (without newline), None for an empty file.

    Raises AuditError if the file does not end with a newline (a torn last record)."""
    size = os.fstat(fd).st_size
    if size == 0:
        return None
    if os.pread(fd, 1, size - 1) != b"\n":
        raise AuditError("the audit log ends with an incomplete line (torn write); move it aside")
    end, buf = size - 1, b""
    while True:
        start = max(0, end - _TAIL_CHUNK)
        buf = os.pread(fd, end - start, start) + buf
        nl = buf.rfind(b"\n")
        if nl >= 0:
            return buf[nl + 1 :]
        if start == 0:
            return buf
        end = start


@dataclass(frozen=True)
class PathChange:
    path: str  # workspace-relative
    before_sha256: str | None
    after_sha256: str | None


class AuditLog:
    """Appends records to one log file; opened lazily on the first mutating call."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def _open(self) -> int:
        """The append descriptor, reopened if the file was moved aside (rotated) meanwhile."""
        if self._fd is not None:
            try:
                now = self.path.stat()
                mine = os.fstat(self._fd)
                if (now.st_dev, now.st_ino) == (mine.st_dev, mine.st_ino):
                    return self._fd
            except FileNotFoundError:
                pass
            self.close()
        fresh = not self.path.exists()
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        # Read-write so the last line is read through the very file we append to.
        flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC
        self._fd = os.open(self.path, flags, 0o600)
        if fresh:  # make the new directory entry itself durable
            dfd = os.open(self.path.parent, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
        return self._fd

    def check(self) -> None:
        """Raise AuditError now if an append would fail (called before a mutation runs)."""
        try:
            last_line(self._open())
        except OSError as exc:
            raise AuditError(f"audit log {self.path}: {exc.strerror}") from None

    def append(self, fields: dict[str, Any]) -> dict[str, Any]:
        """Write one record (``fields`` plus v, seq, ts, prev_hash); return it."""
        try:
            fd = self._open()
            with _Locked(fd):
                prev = last_line(fd)
                record = {
                    "v": SCHEMA_VERSION,
                    "seq": json.loads(prev)["seq"] + 1 if prev else 1,
                    "ts": utc_now(),
                    "audit_id": secrets.token_hex(16),
                    "pid": os.getpid(),
                    **fields,
                    "prev_hash": hashlib.sha256(prev).hexdigest() if prev else None,
                }
                line = canonical(record) + b"\n"
                if os.write(fd, line) != len(line):
                    raise AuditError(f"audit log {self.path}: short write")
                os.fsync(fd)
        except OSError as exc:
            raise AuditError(f"audit log {self.path}: {exc.strerror}") from None
        except (ValueError, KeyError, TypeError):
            raise AuditError(f"audit log {self.path}: last line is not a record") from None
        return record

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


class _Locked:
    """``flock`` for the duration of one append (a no-op where flock does not exist)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            self._fcntl = None
        else:
            self._fcntl = fcntl

    def __enter__(self) -> None:
        if self._fcntl is not None:
            self._fcntl.flock(self._fd, self._fcntl.LOCK_EX)

    def __exit__(self, *exc: object) -> None:
        if self._fcntl is not None:
            self._fcntl.flock(self._fd, self._fcntl.LOCK_UN)


def record_fields(
    tool: str,
    args: Any,
    changes: Sequence[PathChange],
    outcome: str,
    error_code: str | None,
    started: float,
    client: dict[str, Any] | None,
    protocol_version: str | None,
) -> dict[str, Any]:
    """The per-call part of a record; ``AuditLog.append`` adds the chain fields."""
    fields: dict[str, Any] = {
        "tool": tool,
        "paths": [
            {"path": c.path, "before_sha256": c.before_sha256, "after_sha256": c.after_sha256}
            for c in changes
        ],
        "args_sha256": hashlib.sha256(canonical(args)).hexdigest(),
        "outcome": outcome,
        "duration_ms": round((time.monotonic() - started) * 1000, 3),
        "client": client,
        "protocol_version": protocol_version,
    }
    if error_code is not None:
        fields["error_code"] = error_code
    if isinstance(args, dict) and "dry_run" in args:
        fields["dry_run"] = bool(args["dry_run"])
    return fields


@dataclass(frozen=True)
class Verdict:
    records: int
    broken_line: int | None = None
    problem: str | None = None
    torn_line: int | None = None


def verify(data: bytes) -> Verdict:
    """Check the chain; report the first broken line (1-based) and any torn last line."""
    lines = data.split(b"\n")
    tail = lines.pop()  # b"" when the file ends with a newline
    torn = len(lines) + 1 if tail else None
    prev: bytes | None = None
    prev_seq = 0
    for n, line in enumerate(lines, 1):
        try:
            rec = json.loads(line)
            seq, link = rec["seq"], rec["prev_hash"]
            if not isinstance(rec, dict) or rec.get("v") != SCHEMA_VERSION:
                raise ValueError
        except (ValueError, KeyError, TypeError):
            return Verdict(n - 1, n, "not a valid audit record (edited or corrupted)", torn)
        if seq != prev_seq + 1:
            why = "a line was deleted, inserted or reordered"
            return Verdict(n - 1, n, f"seq {seq} where {prev_seq + 1} was expected: {why}", torn)
        expected = hashlib.sha256(prev).hexdigest() if prev is not None else None
        if link != expected:
            if prev is None:
                return Verdict(0, 1, "first record links to a previous line that is missing", torn)
            return Verdict(n - 2, n - 1, f"altered: line {n} records a different hash for it", torn)
        prev, prev_seq = line, seq
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
