"""The pipes of a bounded run (:func:`flipgame.core.processes.run_bounded`): read, and standard input
written, without blocking; standard output kept up to a cap, the last :data:`TAIL_BYTES` of each
output stream kept for the message about a program that gave no answer; the leader's exit noted
through a process file descriptor where the kernel has them (Linux 5.3+).

Standard library only, as :mod:`flipgame.core.processes`.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import subprocess

from flipgame.core.limits import TAIL_BYTES

_CHUNK = 1 << 16


class Streams:
    """The run's pipes, read (and standard input written) without blocking, standard output capped."""

    def __init__(self, proc: subprocess.Popen, stdin: bytes | None, cap: int | None, err_keep: int = TAIL_BYTES):
        self.sel = selectors.DefaultSelector()
        self.err_keep = err_keep
        self.out, self.out_tail, self.err_tail = bytearray(), bytearray(), bytearray()
        self.cap, self.over_cap = cap, False
        self.pending = memoryview(stdin or b"")
        self.pipes = 0
        for f, ev, what in ((proc.stdout, selectors.EVENT_READ, "out"), (proc.stderr, selectors.EVENT_READ, "err"),
                            (proc.stdin, selectors.EVENT_WRITE, "in")):
            if f is not None:
                os.set_blocking(f.fileno(), False)
                self.sel.register(f, ev, what)
                self.pipes += 1
        self.pidfd = None  # readable once the leader exits (Linux 5.3+), so no polling is needed
        with contextlib.suppress(AttributeError, OSError):
            self.pidfd = os.pidfd_open(proc.pid)
            self.sel.register(self.pidfd, selectors.EVENT_READ, "exit")
        self.exited = False

    @property
    def open(self) -> bool:
        """True while a pipe is open."""
        return self.pipes > 0

    def pump(self, timeout: float) -> None:
        """Move what is ready within ``timeout`` seconds (or note the leader's exit)."""
        for key, _ in self.sel.select(max(timeout, 0.0)):
            f = key.fileobj
            if key.data == "exit":
                self.exited = True
                self.sel.unregister(f)
                continue
            if key.data == "in":
                self._write(f)
                continue
            try:
                data = os.read(f.fileno(), _CHUNK)
            except BlockingIOError:
                continue
            if not data:
                self._drop(f)
            elif key.data == "out":
                self._keep(data)
            else:
                self.err_tail = (self.err_tail + data)[-self.err_keep:]

    def _drop(self, f) -> None:
        self.sel.unregister(f)
        self.pipes -= 1

    def _write(self, f) -> None:
        try:
            n = os.write(f.fileno(), self.pending[:_CHUNK]) if self.pending else 0
        except (BrokenPipeError, BlockingIOError) as exc:
            n = 0 if isinstance(exc, BlockingIOError) else len(self.pending)
        self.pending = self.pending[n:]
        if not self.pending:
            self._drop(f)
            f.close()

    def _keep(self, data: bytes) -> None:
        self.out_tail = (self.out_tail + data)[-TAIL_BYTES:]
        if self.cap is not None and len(self.out) + len(data) > self.cap:
            self.out += data[:self.cap - len(self.out)]
            self.over_cap = True
        else:
            self.out += data

    def close(self) -> None:
        """Stop watching every pipe, and close the selector and the process file descriptor."""
        for key in list(self.sel.get_map().values()):
            self.sel.unregister(key.fileobj)
        self.sel.close()
        if self.pidfd is not None:
            os.close(self.pidfd)
