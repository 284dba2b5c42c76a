"""Pieces of a proof checked in forked processes (:func:`flipgame.core.workers.fork_call`): start one, collect
its results, kill those left.

A forked checker shares the proof's arrays with this process (copy on write); its results come back as
plain values that make dratify's ``CheckResult`` again.
"""

from __future__ import annotations

from flipgame.core.workers import collect_fork, fork_call, kill_forks


def fork_check(work) -> tuple[int, int]:
    """Fork a child that runs ``work()`` (a list of ``(piece, CheckResult)``) and sends the results back.
    Returns (pid, read end)."""
    return fork_call(lambda: [(k, (r.ok, r.reason, r.steps, r.failed_step, r.reached_empty)) for k, r in work()])


def collect_check(pid: int, fd: int) -> list:
    """A forked child's results, as ``(piece, CheckResult)`` pairs (waits for it).  RuntimeError if it failed."""
    from dratify import CheckResult

    results = []
    for k, (ok, reason, steps, failed_step, reached_empty) in collect_fork(pid, fd, "proof check worker"):
        r = CheckResult()
        r.ok, r.reason, r.steps, r.failed_step, r.reached_empty = ok, reason, steps, failed_step, reached_empty
        results.append((k, r))
    return results


def kill_checks(children) -> None:
    """SIGKILL and reap forked checkers that may still run (after their results, or on an error)."""
    kill_forks(pid for pid, _ in children)
