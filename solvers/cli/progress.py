"""What a long run shows and how it ends: progress on stderr (tqdm bars on a terminal, plain lines
otherwise) and the two-step Ctrl-C of ``verify`` (the first writes the report, the second ends at once)."""

from __future__ import annotations

import sys
import threading
import time

from flipgame.core import extras
from flipgame.core.signals import signals_blocked


class ProgressLog:
    """Progress of a run on stderr: tqdm bars on a terminal, else a plain line every ``interval`` seconds.

    A plain line names the backend and where it runs, the boards done of the
    total, the rate and the expected time left; the rate counts only the boards
    solved in this run (not those read from the checkpoint).
    """

    def __init__(self, total: int, where: dict[str, str], interval: float, tty: bool):
        self.total, self.where, self.interval = total, where, interval
        self.tty = tty and extras.installed("tqdm")  # bars on a terminal; without tqdm, the plain lines
        self.bars: dict = {}
        self.lock = threading.Lock()
        self.name: str | None = None
        self.done = self.resumed = 0
        self.t0 = time.perf_counter()
        self.stop = threading.Event()
        self.thread = None
        self.phase: str | None = None
        self.phase_t0 = 0.0

    def set_phase(self, text: str) -> None:
        """Report ``text`` (e.g. the checks after the last backend) instead of a backend's count."""
        with self.lock:
            self.phase, self.phase_t0 = text, time.perf_counter()

    def __call__(self, name: str, done: int, resumed: bool = False) -> None:
        with self.lock:
            if name != self.name:
                self.name, self.done, self.resumed, self.t0 = name, 0, 0, time.perf_counter()
            self.done += done
            if resumed:
                self.resumed += done
        if self.tty:
            from tqdm import tqdm

            if name not in self.bars:
                self.bars[name] = tqdm(total=self.total, desc=f"{name:>6}", unit="board", file=sys.stderr,
                                       leave=False, mininterval=0.5)
            self.bars[name].update(done)

    def line(self) -> str | None:
        with self.lock:
            if self.phase is not None:
                return f"flipgame: progress: {self.phase} ({time.perf_counter() - self.phase_t0:.0f} s so far)"
            if self.name is None:
                return None
            name, done, resumed, elapsed = self.name, self.done, self.resumed, time.perf_counter() - self.t0
        rate = (done - resumed) / elapsed if elapsed > 0 else 0.0
        eta = f"ETA {_duration((self.total - done) / rate)}" if rate > 0 else "ETA unknown"
        from_ck = f", {resumed:,} from the checkpoint" if resumed else ""
        return (f"flipgame: progress: {name} ({self.where.get(name, 'in this process')}): {done:,} of "
                f"{self.total:,} boards ({100 * done / max(self.total, 1):.1f}%{from_ck}), "
                f"{rate:,.0f} boards/s, {eta}")

    def start(self) -> None:
        if self.tty:
            return

        def loop() -> None:  # started with Ctrl-C blocked: only the main thread takes it
            wait = min(5.0, self.interval)
            while not self.stop.wait(wait):
                text = self.line()
                if text:
                    print(text, file=sys.stderr, flush=True)
                wait = self.interval

        self.thread = threading.Thread(target=loop, daemon=True, name="flipgame-progress")
        with signals_blocked():
            self.thread.start()

    def close_bar(self, name: str) -> None:
        if name in self.bars:
            self.bars.pop(name).close()

    def close(self) -> None:
        self.stop.set()
        if self.thread is not None:
            self.thread.join(1.0)
        for bar in self.bars.values():
            bar.close()
        self.bars.clear()


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"
