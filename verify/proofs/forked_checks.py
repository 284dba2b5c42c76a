"""Pieces of a proof checked in forked processes: start one, collect its results, kill those left.

A forked checker shares the proof's arrays with this process (copy on write), ignores Ctrl-C (the
parent handles it, and kills it) and dies with its parent; its results come back pickled through a
pipe, as plain values that make dratify's ``CheckResult`` again.
"""

from __future__ import annotations

import contextlib
import os
import signal

from flipgame.core.workers import die_with_parent


def fork_check(work) -> tuple[int, int]:
    """Fork a child that runs ``work()`` (a list of ``(piece, CheckResult)``) and writes it, pickled,
    to a pipe; the child ignores Ctrl-C and dies with this process.  Returns (pid, read end)."""
    import pickle

    parent = os.getpid()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 0
        try:
            os.close(read)
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C (and kills us)
            die_with_parent(parent)
            data = pickle.dumps([(k, (r.ok, r.reason, r.steps, r.failed_step, r.reached_empty)) for k, r in work()])
        except BaseException as e:  # noqa: BLE001  (reported to the parent, which raises it)
            data, code = pickle.dumps(f"{type(e).__name__}: {e}"), 1
        with os.fdopen(write, "wb") as fh:
            fh.write(data)
        os._exit(code)
    os.close(write)
    return pid, read


def collect_check(pid: int, fd: int) -> list:
    """A forked child's results, as ``(piece, CheckResult)`` pairs (waits for it)."""
    import pickle

    from dratify import CheckResult

    with os.fdopen(fd, "rb") as fh:
        data = fh.read()
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)
    out = pickle.loads(data) if data else "the checking process died"
    if isinstance(out, str):
        raise RuntimeError(f"proof check worker failed: {out}")
    results = []
    for k, (ok, reason, steps, failed_step, reached_empty) in out:
        r = CheckResult()
        r.ok, r.reason, r.steps, r.failed_step, r.reached_empty = ok, reason, steps, failed_step, reached_empty
        results.append((k, r))
    return results


def kill_checks(children) -> None:
    """SIGKILL and reap forked checkers that may still run (after their results, or on an error)."""
    for pid, _ in children:
        with contextlib.suppress(ProcessLookupError, ChildProcessError):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
