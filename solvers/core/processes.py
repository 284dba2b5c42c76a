"""Child processes, bounded and measured: the one home of that concept.

:func:`run_bounded` runs a program as runsolver and BenchExec run a solver: in a
session of its own, under a wall-time limit, an address-space limit
(``RLIMIT_AS``, set before ``exec``) and a cap on the output kept, and measured
by ``os.wait4`` (wall time, CPU time of the program and the children it waited
for, peak resident memory).  Its whole process group is killed after every run,
at the limit, past the cap, on Ctrl-C, and also when it exits normally, so no
grandchild outlives it, nor a descendant seen at a sample that left the group
(``setsid``); it dies with its parent (``PR_SET_PDEATHSIG`` through util-linux
``setpriv``, where installed).  :mod:`flipgame.core.workers` runs Python
functions and worker pools on top of it.  The run's pipes are
:mod:`flipgame.core.pipes`, its process tree (descendants, peak memory, the
kill) :mod:`flipgame.core.process_tree`.

Standard library only: the certificate checker imports this module and no solver.
Source: runsolver (Roussel 2011, "Controlling a solver execution with the
runsolver tool", JSAT 7); BenchExec (Beyer, Loewe, Wendler 2019, STTT 21).
"""

from __future__ import annotations

import contextlib
import errno
import os
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass

from flipgame.core.limits import KILL_GRACE_SECONDS, OUTPUT_MAX_BYTES, TAIL_BYTES
from flipgame.core.pipes import Streams
from flipgame.core.process_tree import (
    ProcessFamily,
    become_subreaper,
    children_of,
    peak_resident_bytes,
    resident_bytes,
)
from flipgame.core.text import printable

POLL_SECONDS = 0.01
"""How often the leader's exit is polled where the kernel has no process file descriptors (before Linux 5.3)."""
SAMPLE_SECONDS = 0.1
"""How often a running program's peak memory (``VmHWM``) is sampled besides each read of its output."""


@dataclass(frozen=True)
class RunResult:
    """How one bounded run ended, and what it cost.

    Attributes
    ----------
    argv : tuple of str
        The command line run.
    wall : float
        Seconds from start to the leader's exit (or kill).
    cpu : float
        User plus system seconds of the program and of the children it waited for (``os.wait4``).
    peak_rss : int or None
        Peak resident set size in bytes (``ru_maxrss``) of the program or of a child it waited for.  Linux
        counts the forked copy of the parent before ``exec`` in ``ru_maxrss``; when that is all it shows
        (a program smaller than flipgame), the largest ``VmHWM`` of the program's process tree (a wrapper
        script's solver, not only the shell), sampled while it runs (every 5 ms at first), is taken instead;
        None when the program ended before a sample (a few ms).
    exit_status : int or None
        The exit code when it exited, None when a signal ended it.
    signal : int or None
        The signal that ended it (SIGKILL at the time limit or past the output cap), else None.
    timed_out, over_cap : bool
        Killed at the time limit; killed because its standard output passed the cap.
    stdout : bytes
        Standard output, at most the cap.
    stdout_tail, stderr_tail : bytes
        The last :data:`~flipgame.core.pipes.TAIL_BYTES` of each stream.
    termination : str or None
        BenchExec's termination reason (``cputime``, ``walltime``, ``memory``) for a run measured by it.
    measured_by : str
        ``rusage`` (this module: ``wait4`` and ``/proc``) or ``benchexec`` (:mod:`flipgame.core.cgroup_run`).
    """

    argv: tuple[str, ...]
    wall: float
    cpu: float
    peak_rss: int | None
    exit_status: int | None
    signal: int | None
    timed_out: bool
    over_cap: bool
    stdout: bytes
    stdout_tail: bytes
    stderr_tail: bytes
    termination: str | None = None
    measured_by: str = "rusage"

    @property
    def command(self) -> str:
        """The command line, quoted as a shell would take it."""
        return shlex.join(self.argv)

    @property
    def ended(self) -> str:
        """``exit status 3``, ``killed at the time limit``, ``killed by SIGSEGV``, ..."""
        if self.termination in LIMIT_WORDS:
            return f"killed at the {LIMIT_WORDS[self.termination]} limit"
        if self.timed_out:
            return "killed at the time limit"
        if self.over_cap:
            return f"killed: printed more than {OUTPUT_MAX_BYTES >> 20} MiB"
        if self.signal is not None:
            return f"killed by {signal.Signals(self.signal).name}" if self.signal in _SIGNALS else \
                f"killed by signal {self.signal}"
        return f"exit status {self.exit_status}"

    def tail(self, lines: int = 5) -> str:
        """The last ``lines`` lines of its standard output and standard error, one string (``|`` between
        lines), each cut at 200 characters; control characters are escaped (``\\x00``, ``\\x1b``), so a
        program's NUL bytes or terminal escapes never reach the terminal through flipgame's message."""
        out = []
        for stream in (self.stdout_tail, self.stderr_tail):
            out += stream.decode("utf-8", "replace").strip().splitlines()[-lines:]
        return " | ".join(printable(line.strip())[:200] for line in out) or "(no output)"

    def describe(self) -> str:
        """One line for a run that gave no answer: the command, how it ended, the tail of its output."""
        return f"`{self.command}` {self.ended}; output ends: {self.tail()}"

    def measures(self) -> dict:
        """``wall``, ``cpu`` (seconds), ``peak_rss`` (bytes), ``exit_status`` and ``signal``: a study's record."""
        return {"wall": self.wall, "cpu": self.cpu, "peak_rss": self.peak_rss, "exit_status": self.exit_status,
                "signal": self.signal, "termination": self.termination, "measured_by": self.measured_by}


_SIGNALS = {int(s) for s in signal.Signals}
LIMIT_WORDS = {"cputime": "CPU-time", "walltime": "wall-clock", "memory": "memory"}
"""BenchExec's termination reasons (:mod:`flipgame.core.cgroup_run`), as a run's end is written."""
_SETPRIV: list[str | None] = []


def launcher(argv: list[str]) -> list[str]:
    """``argv`` behind util-linux ``setpriv --pdeathsig KILL`` where it is installed (Linux): the program
    dies with flipgame even when flipgame is killed by SIGKILL.  An exec chain, not a ``preexec_fn``:
    Python then spawns by ``vfork``, where a preexec function forces a ``fork`` that copies the page
    tables of all of flipgame (several times slower a start once the solvers are imported).

    Raises FileNotFoundError or PermissionError as ``exec`` would (the shim would only exit 127)."""
    if shutil.which(argv[0]) is None:
        path = argv[0] if os.sep in argv[0] else None
        if path is not None and os.path.exists(path):
            raise PermissionError(errno.EACCES, "not executable", path)
        raise FileNotFoundError(errno.ENOENT, "no such program", argv[0])
    if not _SETPRIV:
        _SETPRIV.append(shutil.which("setpriv") if sys.platform.startswith("linux") else None)
    return [_SETPRIV[0], "--pdeathsig", "KILL", "--", *argv] if _SETPRIV[0] else list(argv)


def _adopting() -> set[int]:
    """This process as the child subreaper of its descendants (once), and its children now: a program's
    double-forked descendant comes back to it, and is killed when the run ends."""
    become_subreaper()
    return set(children_of(os.getpid()))


def _limit_memory(pid: int, memory_bytes: int | None) -> None:
    """The address-space limit (``RLIMIT_AS``) on the started program (``prlimit``; Linux).  Set just
    after its ``exec``: what it maps from then on counts against the limit."""
    if memory_bytes is not None and hasattr(resource, "prlimit"):
        with contextlib.suppress(ProcessLookupError, PermissionError, ValueError):
            resource.prlimit(pid, resource.RLIMIT_AS, (memory_bytes, memory_bytes))


def _exited(pid: int) -> bool:
    """True once process ``pid`` has ended (it stays a zombie, unreaped: ``WNOWAIT``)."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _watch(family: ProcessFamily, streams: Streams, deadline: float) -> tuple[bool, int]:
    """Read the run's output until the leader exits, the output passes the cap or the deadline passes;
    ``(timed out, the largest VmHWM sampled)``, sampled (with the family's descendants) at each wake-up,
    every 5 ms at first and every :data:`SAMPLE_SECONDS` from its first second on."""
    pid, peak, start = family.leader, 0, time.monotonic()
    while not streams.over_cap:
        now = time.monotonic()
        remaining = deadline - now
        if remaining <= 0:
            return True, peak
        every = min(SAMPLE_SECONDS, max(POLL_SECONDS / 2, (now - start) / 10))  # often while it is young
        streams.pump(min(remaining, every if streams.pidfd is not None else POLL_SECONDS))
        if streams.exited or (streams.pidfd is None and _exited(pid)):
            return False, peak
        peak = max(peak, family.sample())
    return False, peak


def run_bounded(argv: list[str], time_limit: float, *, memory_limit: int | None = None,
                output_cap: int | None = OUTPUT_MAX_BYTES, stdin=None, cwd: str | None = None,
                stderr_keep: int = TAIL_BYTES) -> RunResult:
    """Run ``argv`` bounded and measured; see the module docstring.

    Parameters
    ----------
    argv : list of str
        Program and arguments (no shell).
    time_limit : float
        Seconds of wall time; the group is killed (SIGKILL) then.
    memory_limit : int, optional
        Bytes of address space (``RLIMIT_AS``, set by ``prlimit`` as the program starts); an allocation
        past it fails in the program.
    output_cap : int or None
        Bytes of standard output kept (default :data:`~flipgame.core.limits.OUTPUT_MAX_BYTES`); past it the
        group is killed.
        None keeps everything (for flipgame's own children).
    stdin : bytes or binary file, optional
        Bytes written to its standard input (then closed), or an open file it reads as its standard input
        (a measured stream is read as a judge reads a file); default: ``/dev/null``.
    stderr_keep : int
        Bytes kept of the end of its standard error (default :data:`~flipgame.core.pipes.TAIL_BYTES`).

    Returns
    -------
    RunResult
        Exit codes are not errors (SAT solvers exit 10 and 20).

    Raises
    ------
    FileNotFoundError, PermissionError, OSError
        The program cannot be started (not found; no exec bit).
    KeyboardInterrupt
        Re-raised after the group is killed and reaped.

    Running time: the program's, plus two ``vfork``/``exec`` (the ``setpriv`` shim, then the program).

    >>> r = run_bounded(["sh", "-c", "echo hi; exit 3"], 5)
    >>> (r.stdout, r.exit_status, r.ended)
    (b'hi\\n', 3, 'exit status 3')
    """
    own = max(resident_bytes(), peak_resident_bytes())
    start = time.monotonic()
    deadline = start + max(time_limit, 0.0)
    given = stdin if hasattr(stdin, "fileno") else None
    feed = subprocess.DEVNULL if stdin is None else given if given is not None else subprocess.PIPE
    children_before = _adopting()
    proc = subprocess.Popen(launcher(argv), stdin=feed, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, cwd=cwd)
    _limit_memory(proc.pid, memory_limit)
    streams = Streams(proc, None if given is not None else stdin, output_cap, stderr_keep)
    family = ProcessFamily(proc.pid, children_before)
    timed_out = reaped = False
    try:
        timed_out, sampled = _watch(family, streams, deadline)
        wall = time.monotonic() - start
        family.sample()
        family.kill()  # the leader is a zombie (not reaped), so its group id is still its own
        family.kill_adopted()
        grace = time.monotonic() + KILL_GRACE_SECONDS
        while streams.open and not streams.over_cap and time.monotonic() < grace:
            streams.pump(grace - time.monotonic())
        _, status, usage = os.wait4(proc.pid, 0)
        reaped = True
    finally:
        if not reaped:  # Ctrl-C or another exception: no child survives
            family.kill()
            family.kill_adopted()
            with contextlib.suppress(ChildProcessError):
                os.wait4(proc.pid, 0)
        proc.returncode = proc.returncode if proc.returncode is not None else -1
        streams.close()
        for f in (proc.stdin, proc.stdout, proc.stderr):
            if f is not None:
                with contextlib.suppress(OSError):
                    f.close()
    signalled = os.WIFSIGNALED(status)
    proc.returncode = -os.WTERMSIG(status) if signalled else os.WEXITSTATUS(status)
    peak = usage.ru_maxrss * 1024
    if peak <= own:  # the fork's copy of this process, not the program's own peak
        peak = sampled or None
    return RunResult(tuple(argv), wall, usage.ru_utime + usage.ru_stime, peak,
                     None if signalled else os.WEXITSTATUS(status), os.WTERMSIG(status) if signalled else None,
                     timed_out, streams.over_cap, bytes(streams.out), bytes(streams.out_tail),
                     bytes(streams.err_tail))
