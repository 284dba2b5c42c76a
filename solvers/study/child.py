"""A Python function in a fresh process of its own, bounded and measured (the study's runner).

:func:`run_function` starts a fresh interpreter, hands it ``module:function`` and pickled
arguments on standard input, and reads the pickled value back from a file; the child runs in a
session of its own, ignores Ctrl-C (the parent kills its group and re-raises), dies with the
parent, and is killed with its whole group at the time limit.  ``os.wait4`` measures it: wall
time, CPU time of the process and the children it waited for, peak resident memory.  An
address-space limit (``RLIMIT_AS``) is set on it as it starts.  Standard library only.

Source: runsolver (Roussel 2011, "Controlling a solver execution with the runsolver tool",
JSAT 7); BenchExec (Beyer, Loewe, Wendler 2019, STTT 21).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import resource
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

from flipgame.core.processes import die_with_parent

TAIL_BYTES = 4096
"""Bytes kept of the end of the child's standard error."""
POLL_SECONDS = 0.005
"""How often the child's exit is polled at first (doubling up to :data:`POLL_MAX_SECONDS`)."""
POLL_MAX_SECONDS = 0.05
"""Longest pause between two polls: a killed run overshoots its limit by at most this much."""

_CHILD = "from flipgame.study.child import _function_child; _function_child()"


@dataclass(frozen=True)
class RunResult:
    """How the child ended and what it cost (``os.wait4``).

    Attributes
    ----------
    wall : float
        Seconds from start to exit (or kill), measured by the parent.
    cpu : float
        User plus system seconds of the child and of the children it waited for.
    peak_rss : int or None
        Peak resident set size in bytes (``ru_maxrss``).
    exit_status, signal : int or None
        The exit code, or the signal that ended it.
    timed_out : bool
        Killed at the time limit.
    stderr_tail : bytes
        The last :data:`TAIL_BYTES` of its standard error.
    """

    wall: float
    cpu: float
    peak_rss: int | None
    exit_status: int | None
    signal: int | None
    timed_out: bool
    stderr_tail: bytes

    @property
    def ended(self) -> str:
        """``exit status 1``, ``killed at the time limit``, ``killed by SIGKILL``, ..."""
        if self.timed_out:
            return "killed at the time limit"
        if self.signal is not None:
            return f"killed by {signal.Signals(self.signal).name}"
        return f"exit status {self.exit_status}"

    def tail(self, lines: int = 3) -> str:
        """The last ``lines`` lines of its standard error, ``|`` between them."""
        out = self.stderr_tail.decode("utf-8", "replace").strip().splitlines()[-lines:]
        return " | ".join(line.strip()[:200] for line in out) or "(no output)"


@dataclass(frozen=True)
class FunctionResult:
    """:func:`run_function`'s outcome: the run (measured), and the function's value or why there is none."""

    run: RunResult
    value: object = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def run_function(target: str, args: tuple, time_limit: float, *, memory_limit: int | None = None) -> FunctionResult:
    """``module:function(*args)`` in a fresh Python, killed with its group after ``time_limit`` seconds.

    Parameters
    ----------
    target : str
        ``module:function``, importable in a fresh interpreter.
    args : tuple
        Pickled to the child.
    time_limit : float
        Seconds of wall time from the start (imports included).
    memory_limit : int, optional
        Bytes of address space (``RLIMIT_AS``).

    Returns
    -------
    FunctionResult
        ``error`` names a time-out, an exception in the function (``TypeError: ...``) or a child
        that died (how, and the last lines of its standard error).

    Raises
    ------
    KeyboardInterrupt
        Re-raised after the child's group is killed and reaped.

    >>> run_function("operator:add", (2, 3), 60).value
    5
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-c", _CHILD, str(os.getpid()), target], stdin=subprocess.PIPE,
                                stdout=out, stderr=err, start_new_session=True)
        if memory_limit is not None and hasattr(resource, "prlimit"):
            with contextlib.suppress(ProcessLookupError, PermissionError, ValueError):
                resource.prlimit(proc.pid, resource.RLIMIT_AS, (memory_limit, memory_limit))
        status, usage, timed_out = _wait(proc, pickle.dumps(args), start + time_limit)
        wall = time.monotonic() - start
        err.seek(max(0, err.seek(0, os.SEEK_END) - TAIL_BYTES))
        signalled = os.WIFSIGNALED(status)
        run = RunResult(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024 or None,
                        None if signalled else os.WEXITSTATUS(status), os.WTERMSIG(status) if signalled else None,
                        timed_out, err.read())
        out.seek(0)
        data = out.read()
    if timed_out:
        return FunctionResult(run, error=f"not finished within {time_limit:g} s")
    if run.exit_status != 0 or not data:
        return FunctionResult(run, error=f"worker {run.ended}: {run.tail(1)}")
    kind, value = pickle.loads(data)
    return FunctionResult(run, value) if kind == "ok" else FunctionResult(run, error=value)


def _wait(proc: subprocess.Popen, payload: bytes, deadline: float) -> tuple[int, resource.struct_rusage, bool]:
    """Write ``payload`` to the child, wait for its exit or ``deadline``; ``(status, usage, timed out)``.
    The child's group is killed on every path out, so no grandchild outlives it."""
    reaped = False
    try:
        with contextlib.suppress(BrokenPipeError):
            proc.stdin.write(payload)
        with contextlib.suppress(BrokenPipeError):
            proc.stdin.close()
        pause, timed_out = POLL_SECONDS, False
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                _kill_group(proc.pid)
                _, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(min(pause, left))
            pause = min(pause * 2, POLL_MAX_SECONDS)
        reaped = True
        _kill_group(proc.pid)
        return status, usage, timed_out
    finally:
        proc.returncode = proc.returncode if proc.returncode is not None else -1
        if not reaped:
            _kill_group(proc.pid)
            with contextlib.suppress(ChildProcessError):
                os.wait4(proc.pid, 0)


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _function_child() -> None:
    """Entry point of :func:`run_function`'s child: arguments on stdin, ``(kind, value)`` pickled on stdout."""
    import importlib

    die_with_parent(int(sys.argv[1]))
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # stray prints from C code cannot corrupt the result stream
    module, _, name = sys.argv[2].partition(":")
    args = pickle.load(sys.stdin.buffer)
    try:
        result = pickle.dumps(("ok", getattr(importlib.import_module(module), name)(*args)))
    except Exception as e:  # noqa: BLE001 - reported to the parent, which decides
        result = pickle.dumps(("error", f"{type(e).__name__}: {e}"))
    out.write(result)
    out.close()
