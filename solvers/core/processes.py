"""Worker processes that die with their parent: the one home of that concept.

Used by the agreement run's local pool and by the certifier's proof process,
so that no worker outlives a killed ``flipgame verify`` or ``solve --certify``.
Standard library only (the certificate checker imports it and no solver).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1
"""``prctl`` option: the signal the kernel sends a process when its parent exits (Linux)."""


def die_with_parent(parent_pid: int, poll_seconds: float = 0.5) -> None:
    """Make this (worker) process die when process ``parent_pid`` is gone.

    On Linux ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` (via ctypes) has the kernel
    kill it when its parent exits, even by SIGKILL and even while a native
    solver holds the GIL; everywhere a daemon thread also polls
    ``os.getppid()`` every ``poll_seconds`` and ends the process with
    ``os._exit`` once the parent has changed (between native calls).  Exits
    at once if the parent is already gone.
    """
    if sys.platform.startswith("linux"):
        import ctypes  # standard library, but 5 ms of start-up that only a worker needs

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent_pid:  # the parent died before prctl took effect
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(poll_seconds)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="flipgame-parent-watch").start()
