"""The audit log of mutating tool calls: append-only, hash-chained, and failing closed.

A mutating call writes an **intent** record for every change *before* making it (fsync-ed), and
one **outcome** record when it ends. If an intent cannot be written, the change does not
happen, so the log can never miss a change that was made: a log with a garbage last line, on
a full disk (``/dev/full``), unwritable, replaced by a symlink or by anything but a regular
file refuses the change instead of reporting ``audit_failed`` after it.

Records are one JSON line each, written with a single ``os.write`` to an ``O_APPEND`` descriptor
and length-checked. They are strict JSON (``allow_nan=False``; ASCII-escaped, so a path with a
newline or ESC cannot forge a line) and bounded (``MAX_RECORD_BYTES``: the client is a short
summary, arguments only a hash). ``seq`` and ``prev_hash`` chain them (``auditverify``).
Several servers may share one log: reading the last line and appending the next happen under
an exclusive ``flock`` (and a thread lock, since one server runs calls in parallel), so the
chain stays linear and nobody reads a record half written. A torn last line (a crash
mid-write) is never repaired: appending after it would bury it, so the log refuses changes
until it is moved aside.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import stat
import threading
import time
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .auditverify import SCHEMA_VERSION, Verdict, parse_record, verify, verify_main
from .callguard import Change

__all__ = ["AuditError", "AuditLog", "Verdict", "verify", "verify_main"]

_TAIL_CHUNK = 64 * 1024
MAX_RECORD_BYTES = 64 * 1024
_OPEN_FLAGS = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW


class AuditError(Exception):
    """The audit log cannot be appended to; mutations must not proceed."""


def canonical(value: Any) -> bytes:
    """Strict, compact, ASCII JSON (no NaN/Infinity; control characters escaped)."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
    ).encode()


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
        if start == 0 or len(buf) > 16 * MAX_RECORD_BYTES:
            return buf
        end = start


def _last_seq(fd: int, path: Path) -> tuple[int, bytes | None]:
    prev = last_line(fd)
    if prev is None:
        return 0, None
    try:
        seq = parse_record(prev)["seq"]
    except (ValueError, RecursionError):
        raise AuditError(
            f"audit log {path}: the last line is not a record; move it aside"
        ) from None
    assert isinstance(seq, int)
    return seq, prev


class AuditLog:
    """Appends records to one log file; opened lazily, reopened when it was rotated."""

    def __init__(self, path: Path, workspace: Path | None = None) -> None:
        self.path = path
        self.workspace = workspace
        self._fd: int | None = None
        self._lock = threading.Lock()

    def _open(self) -> int:
        if self._fd is not None:
            try:
                now = os.stat(self.path, follow_symlinks=False)
                mine = os.fstat(self._fd)
                if (now.st_dev, now.st_ino) == (mine.st_dev, mine.st_ino):
                    return self._fd
            except FileNotFoundError:
                pass
            self.close()
        real = os.path.realpath(self.path)
        if self.workspace is not None:
            root = str(self.workspace).rstrip("/") + "/"
            if real == str(self.workspace) or real.startswith(root):
                raise AuditError(f"audit log {self.path}: now resolves into the workspace")
        fresh = not os.path.lexists(self.path)
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.path, _OPEN_FLAGS, 0o600)
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise AuditError(f"audit log {self.path}: not a regular file")
        self._fd = fd
        if fresh:  # make the new directory entry itself durable
            dfd = os.open(self.path.parent, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
        return fd

    def check(self) -> None:
        """Raise AuditError now if an append would fail (called before a mutation runs)."""
        with self._lock:
            try:
                fd = self._open()
                with _Locked(fd):
                    _last_seq(fd, self.path)
            except OSError as exc:
                raise AuditError(f"audit log {self.path}: {exc.strerror}") from None

    def append(self, fields: dict[str, Any]) -> dict[str, Any]:
        """Write one record (``fields`` plus v, seq, ts, prev_hash), fsync-ed; return it."""
        with self._lock:
            try:
                fd = self._open()
                with _Locked(fd):
                    seq, prev = _last_seq(fd, self.path)
                    record = {
                        "v": SCHEMA_VERSION,
                        "seq": seq + 1,
                        "ts": utc_now(),
                        "audit_id": secrets.token_hex(16),
                        "pid": os.getpid(),
                        **fields,
                        "prev_hash": hashlib.sha256(prev).hexdigest() if prev else None,
                    }
                    line = canonical(record) + b"\n"
                    if len(line) > MAX_RECORD_BYTES:
                        raise AuditError(f"audit log {self.path}: record too large")
                    if os.write(fd, line) != len(line):
                        raise AuditError(f"audit log {self.path}: short write")
                    os.fsync(fd)
            except OSError as exc:
                raise AuditError(f"audit log {self.path}: {exc.strerror}") from None
            except (ValueError, TypeError) as exc:
                raise AuditError(f"audit log {self.path}: record is not JSON ({exc})") from None
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


def args_digest(args: Any) -> str:
    try:
        return hashlib.sha256(canonical(args)).hexdigest()
    except (ValueError, TypeError, RecursionError):
        return hashlib.sha256(repr(args).encode("utf-8", "backslashreplace")).hexdigest()


def change_fields(change: Change) -> dict[str, Any]:
    """The intent record's description of one change."""
    fields: dict[str, Any] = {
        "op": change.op,
        "path": change.path,
        "before_sha256": change.before_sha256,
        "after_sha256": change.after_sha256,
    }
    if change.to is not None:
        fields["to"] = change.to
    return fields


def paths_of(changes: Sequence[Change]) -> list[dict[str, Any]]:
    """Per path touched, in order: its hash before the call's first change and after its last."""
    seen: dict[str, dict[str, Any]] = {}

    def touch(path: str, before: str | None, after: str | None) -> None:
        entry = seen.setdefault(path, {"path": path, "before_sha256": before})
        entry["after_sha256"] = after

    for c in changes:
        if c.op == "move" and c.to is not None:
            touch(c.path, c.before_sha256, None)
            touch(c.to, None, c.after_sha256)
        else:
            touch(c.path, c.before_sha256, c.after_sha256)
    return list(seen.values())


def outcome_fields(
    changes: Sequence[Change], error_code: str | None, started: float, dry_run: bool | None
) -> dict[str, Any]:
    """The outcome record of a call (the common fields are added by the caller)."""
    fields: dict[str, Any] = {
        "stage": "outcome",
        "paths": paths_of(changes),
        "outcome": "ok" if error_code is None else "error",
        "duration_ms": round((time.monotonic() - started) * 1000, 3),
    }
    if error_code is not None:
        fields["error_code"] = error_code
    if dry_run is not None:
        fields["dry_run"] = dry_run
    return fields
