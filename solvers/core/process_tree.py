"""A bounded run's process tree, read from ``/proc`` (Linux): its descendants, their start times and
their peak memory, and the kill of its group and of every descendant seen.

A descendant seen at a sample is killed with the group even when it left the group and its session
(``setsid``), unless it left the tree between two samples; a pid is taken as the same process only
while its start time is the one seen (a pid used again is not ours).  One that left the tree between
two samples (a double fork: its parent exited) is adopted by this process, a child subreaper
(``prctl(PR_SET_CHILD_SUBREAPER)``, Linux 3.4+), and killed and reaped when the run ends
(:meth:`ProcessFamily.kill_adopted`).  Where ``/proc`` is missing every read gives nothing (no
descendants, no peak, nothing adopted); where ``prctl`` is missing such an orphan goes to init and is
not killed (docs/solvers.md says so).

Standard library only, as :mod:`flipgame.core.processes`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading

from flipgame.core.limits import TREE_MAX_PROCESSES

PR_SET_CHILD_SUBREAPER = 36
"""``prctl`` option: orphaned descendants are re-parented to this process instead of init (Linux 3.4+)."""
_LIBC: list = []
_RUNNING: set[int] = set()
"""The leaders of the runs going on in this process (another thread's run is not an orphan of ours)."""
_LOCK = threading.Lock()


def libc():
    """The C library through ctypes (None off Linux or where it cannot be loaded); loaded once, in the parent
    (never between fork and exec)."""
    if not _LIBC:
        found = None
        if sys.platform.startswith("linux"):
            import ctypes  # standard library, but 5 ms of start-up that only a child needs

            with contextlib.suppress(OSError):
                found = ctypes.CDLL(None, use_errno=True)
        _LIBC.append(found)
    return _LIBC[0]


def become_subreaper() -> bool:
    """Make this process the child subreaper of its descendants (idempotent); False where it cannot."""
    c = libc()
    if c is None:
        return False
    with contextlib.suppress(OSError, AttributeError):
        return c.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    return False


def _start_time(pid: int) -> int | None:
    """Process ``pid``'s start time (clock ticks after boot, field 22 of ``/proc/PID/stat``), None if gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return int(f.read().rsplit(b")", 1)[1].split()[19])
    except (OSError, ValueError, IndexError):
        return None


class ProcessFamily:
    """A run's processes: its group, and every descendant seen at a sample (``/proc/PID/task/*/children``),
    so that one that left the group and its session (``setsid``) is killed with the group unless it left
    the tree between two samples."""

    def __init__(self, leader: int, children_before: set[int] | None = None):
        self.leader, self.seen = leader, {}  # pid -> start time (a pid used again is not ours)
        self.before = set(children_before or ())
        with _LOCK:
            _RUNNING.add(leader)

    def sample(self) -> int:
        """Note the descendants now; the largest :func:`_hiwater` of the leader and of them (at most
        :data:`TREE_MAX_PROCESSES` looked at): a wrapper script's solver, not only the shell."""
        todo, peak, looked = [self.leader], 0, 0
        while todo and looked < TREE_MAX_PROCESSES:
            pid = todo.pop()
            looked += 1
            peak = max(peak, _hiwater(pid))
            for child in children_of(pid):
                if child not in self.seen:
                    start = _start_time(child)
                    if start is None:
                        continue
                    self.seen[child] = start
                todo.append(child)
        return peak

    def kill_adopted(self) -> None:
        """SIGKILL and reap the processes this one adopted during the run (children now that were not before
        it, nor the leader of any run going on): a double-forked descendant the samples missed."""
        with _LOCK:
            _RUNNING.discard(self.leader)
            running = set(_RUNNING)
        for pid in set(children_of(os.getpid())) - self.before - running - {self.leader}:
            with contextlib.suppress(ProcessLookupError, PermissionError, ChildProcessError):
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)

    def kill(self) -> None:
        """SIGKILL the group, and every descendant seen that is still the process seen (its start time)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.leader, signal.SIGKILL)
        for pid, start in self.seen.items():
            if _start_time(pid) == start:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)


def children_of(pid: int) -> list[int]:
    """The child processes of ``pid`` (of each of its threads), [] once it is gone or where /proc has no
    ``children`` files (kernels without ``CONFIG_PROC_CHILDREN``)."""
    out = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError, ValueError), open(f"/proc/{pid}/task/{task}/children", "rb") as f:
                out += map(int, f.read().split())
    return out


def _hiwater(pid: int) -> int:
    """Peak resident bytes of ``pid``'s memory since its ``exec`` (``VmHWM``), 0 once it has exited."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def peak_resident_bytes(pid: int | str = "self") -> int:
    """The peak resident bytes of ``pid`` so far (``VmHWM`` of ``/proc/PID/status``), 0 where unknown.

    A program started by ``vfork`` (Python's ``subprocess`` does) shares this process's memory until its
    ``exec``, and Linux records that memory's peak, not its size now, in the program's ``ru_maxrss``."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            return next((int(line.split()[1]) * 1024 for line in f if line.startswith(b"VmHWM:")), 0)
    except (OSError, ValueError, IndexError):
        return 0


def resident_bytes(pid: int | str = "self") -> int:
    """Resident bytes of ``pid`` now (``/proc/PID/statm``), 0 where unknown."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0
