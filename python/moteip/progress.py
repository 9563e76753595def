"""Progress of a sweep on stderr: a bar redrawn in place on a terminal,
plain lines otherwise (at most one a second, and always the last), so logs
of CI jobs and batch systems stay readable."""
from __future__ import annotations

import sys
import time
from typing import TextIO


def _clock(s: float) -> str:
    s = int(s + 0.5)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


class Progress:
    def __init__(self, total: int, done: int = 0, enabled: bool | None = None,
                 stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.total, self.done, self.start_done = total, done, done
        self.tty = self.stream.isatty() if enabled is None else enabled
        self.t0 = time.monotonic()
        self.last_line = 0.0
        self.drawn = False

    def advance(self, what: str = "") -> None:
        self.done += 1
        now = time.monotonic()
        el = now - self.t0
        ran = self.done - self.start_done
        eta = el / ran * (self.total - self.done) if ran else 0.0
        if self.tty:
            width = 30
            fill = int(width * self.done / max(1, self.total))
            self.stream.write(f"\r[{'#' * fill}{'.' * (width - fill)}] {self.done}/{self.total} "
                              f"{_clock(el)} elapsed, eta {_clock(eta)}  \x1b[K")
            self.drawn = True
        elif now - self.last_line >= 1.0 or self.done == self.total:
            self.last_line = now
            self.stream.write(f"[{self.done}/{self.total}] {what} ({_clock(el)} elapsed, "
                              f"eta {_clock(eta)})\n")
        self.stream.flush()

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False
