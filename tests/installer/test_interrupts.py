"""Ctrl-C and SIGTERM during a run land between two changes, never inside one
(``installer/interrupts.py``), and a journal a kill left half removed does not stop the
next run."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from helpers import run_cli, snapshot
from msd_install.installer import interrupts
from msd_install.installer.journal import INTENT, JOURNAL_DIR, discard


def _signal_self(number: int) -> None:
    os.kill(os.getpid(), number)


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_inside_a_section_is_raised_when_the_section_ends(number: int) -> None:
    done = []
    with interrupts.deferred():
        with pytest.raises(KeyboardInterrupt), interrupts.atomic():
            _signal_self(number)
            done.append("inner change")
            with interrupts.atomic():  # nested: still inside
                done.append("nested change")
            done.append("after nested")
        assert done == ["inner change", "nested change", "after nested"]
        with pytest.raises(KeyboardInterrupt):
            _signal_self(number)  # outside a section: at once


def test_a_section_that_fails_keeps_its_own_error(tmp_path: Path) -> None:
    with interrupts.deferred():
        with pytest.raises(ValueError), interrupts.atomic():
            _signal_self(signal.SIGTERM)
            raise ValueError("the run's own error")
        # the signal is still owed: the next section that ends well raises it
        with pytest.raises(KeyboardInterrupt), interrupts.atomic():
            pass


def test_handlers_are_put_back_after_a_run() -> None:
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    with interrupts.deferred():
        assert signal.getsignal(signal.SIGINT) is not before[0]
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before


def test_a_journal_removed_intent_first_is_only_cleaned_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kill while a finished run removes its journal leaves backups without their intent:
    the next run removes them and goes on (it used to refuse, naming a missing backup)."""
    home = tmp_path / "h"
    home.mkdir()
    assert run_cli(["--claude", "--global", "--yes"], home).returncode == 0
    installed = snapshot(home)
    journal = home / ".claude" / JOURNAL_DIR
    journal.mkdir()
    (journal / INTENT).write_text('{"msd_journal": 1}\n')
    (journal / "1.bak").write_text("old")
    (journal / "2.bak").write_text("old")
    names: list[str] = []
    real_unlink = os.unlink

    def unlink_then_die(path: object, *args: object, **kwargs: object) -> None:
        names.append(os.path.basename(str(path)))
        if len(names) == 2:
            raise KeyboardInterrupt  # killed halfway through the removal
        real_unlink(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "unlink", unlink_then_die)
    with pytest.raises(KeyboardInterrupt):
        discard(journal)
    monkeypatch.undo()
    assert names[0] == INTENT and not (journal / INTENT).exists()
    proc = run_cli(["--claude", "--global", "--check"], home)
    assert proc.returncode == 0, proc.stderr
    assert snapshot(home) == installed


def test_a_second_signal_never_cuts_a_rollback_short() -> None:
    with interrupts.deferred():
        with interrupts.atomic(stopping=True):  # a rollback on the run's way out
            _signal_self(signal.SIGINT)
            with interrupts.atomic():  # the transaction's own undo step inside it
                pass
            _signal_self(signal.SIGINT)  # a second Ctrl-C
        with interrupts.atomic():  # dropped: nothing is owed afterwards
            pass


def test_a_signal_after_the_work_is_done_commits_and_says_so() -> None:
    with interrupts.deferred():
        interrupts.seal()
        _signal_self(signal.SIGTERM)  # while the journal goes, before the commit
        with pytest.raises(interrupts.InterruptedAfterCommitError):
            interrupts.unseal(committed=True)
        interrupts.seal()
        _signal_self(signal.SIGTERM)
        interrupts.unseal(committed=False)  # a failure is stopping the run: dropped


def test_recovery_skips_what_a_rollback_already_removed(tmp_path: Path) -> None:
    """A rollback cut short (killed) after it removed some folders the run made: their
    files' lines name folders that are gone; recovery finishes without them."""
    home = tmp_path / "h"
    root = home / ".claude"
    journal = root / JOURNAL_DIR
    journal.mkdir(parents=True)
    lines = [
        {"msd_journal": 1, "verb": "install", "pid": 1, "started": "2026-01-01 10:00:00"},
        {"op": "mkdir", "path": "msd-core"},
        {"op": "mkdir", "path": "msd-core/workflows"},
        {"op": "file", "path": "msd-core/workflows/a.md", "was": "absent"},
        {"op": "file", "path": "kept.md", "was": "absent"},
    ]
    (journal / INTENT).write_text("".join(json.dumps(x) + "\n" for x in lines))
    (root / "kept.md").write_text("half written")  # msd-core/ is gone already
    proc = run_cli(["--claude", "--global", "--check"], home)
    assert "recovered: an interrupted install" in proc.stdout + proc.stderr, proc.stderr
    assert not journal.exists() and not (root / "kept.md").exists()
