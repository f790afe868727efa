"""One updating line on a terminal's stderr while a run takes longer than a second.

Shown only when stderr is a terminal and the output is text (never under ``--json``, never
in a pipe or a log); it names the runtime being worked on and counts the changes made so
far, and is erased before anything else is printed. A quick run shows nothing at all.
"""

from __future__ import annotations

import os
import threading
import time
from types import TracebackType
from typing import TextIO

DELAY = 1.0  # seconds of silence before the line appears
INTERVAL = 0.1  # seconds between redraws


class Progress:
    """``with Progress(stream) as p: p.step("installing Claude Code (1/3)"); p.tick(n)``;
    ``stream`` None: shows nothing (and starts no thread)."""

    def __init__(self, stream: TextIO | None, delay: float = DELAY) -> None:
        self._stream = stream
        self._delay = delay
        self._what = ""
        self._changes = 0
        self._start = time.monotonic()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._width = 0  # of the line on screen, to erase it
        self._drawing = threading.Lock()
        self._drawn_at = 0.0  # when the line was last drawn
        self._shown = 0  # the change count the line on screen shows

    def __enter__(self) -> Progress:
        if self._stream is not None:
            self._thread = threading.Thread(target=self._run, name="msd-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def step(self, what: str) -> None:
        self._what = what
        self._changes = self._shown = 0
        if self._thread is not None and time.monotonic() - self._start >= self._delay:
            self._draw()  # at once: the next redraw may come after this step is over

    def paused(self) -> threading.Lock:
        """Held, the line is not being drawn (a fork must not copy a lock the drawing thread
        holds, like the one of stderr's buffer, into a child)."""
        return self._drawing

    def tick(self, changes: int) -> None:
        """The engine is about to make its ``changes``-th change of this runtime's run.

        Drawn from here too (the first change of a step at once, then every INTERVAL): the
        engine's thread holds the interpreter while it works, so the drawing thread alone may
        not get a turn before a short step is over."""
        self._changes = changes
        if self._thread is None:
            return
        now = time.monotonic()
        if now - self._start >= self._delay and (
            not self._shown or now - self._drawn_at >= INTERVAL
        ):
            self._draw()

    def close(self) -> None:
        """Stop and erase the line (before the caller prints anything)."""
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join()
        self._thread = None
        if self._width and self._stream is not None:
            self._width, width = 0, self._width
            self._stream.write("\r" + " " * width + "\r")
            self._stream.flush()

    def _run(self) -> None:
        if self._stop.wait(self._delay):
            return
        while not self._stop.is_set():
            self._draw()
            self._stop.wait(INTERVAL)

    def _draw(self) -> None:
        with self._drawing:
            if self._stream is not None and self._what and not self._stop.is_set():
                self._write(self._stream)
                self._drawn_at = time.monotonic()
                self._shown = self._changes

    def _write(self, stream: TextIO) -> None:
        seconds = int(time.monotonic() - self._start)
        done = f", {self._changes} changes" if self._changes else ""
        line = f"msd-install: {self._what}{done} ({seconds} s)"
        try:  # the width of the terminal the line is drawn on (0 on a fresh pty: 80)
            columns = os.get_terminal_size(stream.fileno()).columns
        except (OSError, ValueError, AttributeError):
            columns = 0
        room = (columns or 80) - 1  # never the last column: the line would wrap
        line = line[:room]
        stream.write("\r" + line.ljust(self._width))
        stream.flush()
        self._width = max(self._width, len(line))
