"""``gauss`` on a press system over Z_k (any k >= 2): the diagonal form of :mod:`flipgame.algebra.zk`,
one particular solution per goal board, then the cheapest element of its coset.

Solvability is decided first (an Impossible board carries a certificate per
goal board, at any kernel size); a solvable board then needs the cheapest of
its ``kernel_size`` solutions, enumerated when ``kernel_size * buttons`` is at
most :data:`flipgame.algebra.zk.MAX_ENUMERATED` (else NullityTooLargeError).  Counters
(no modulus) are integer programs: declined (:func:`declines`).  Who takes a
refused system or board is added by :func:`flipgame.gate.general.refusal`.

Running time: the diagonal form once per system, O(n m min(n, m) log k);
per board O(n^2 + m^2) plus O(kernel_size * m) for the minimum.
"""

from __future__ import annotations

import time

import numpy as np

from flipgame.algebra import zk
from flipgame.backends.result import Status
from flipgame.backends.system_result import SystemBatch, SystemSolution
from flipgame.core.errors import NullityTooLargeError
from flipgame.model.system import PressSystem

NAME = "gauss"


def declines(system: PressSystem) -> str | None:
    """Why gauss declines ``system`` (counters), or None; no hint of who takes it."""
    if system.states is None:
        return "gauss: counters (no modulus) are integer programs, not a system mod k"
    return None


def _kernel(diag: zk.Diagonal, limit: int) -> np.ndarray:
    """:func:`flipgame.algebra.zk.kernel_elements`, its refusal without zk's hint (the gate adds a computed one)."""
    try:
        return zk.kernel_elements(diag, limit)
    except NullityTooLargeError:
        raise NullityTooLargeError(f"gauss: the solution coset has {diag.kernel_size:,} press vectors "
                                   f"({diag.m} buttons), over the {limit:,}-entry enumeration budget") from None


def solve(system: PressSystem, board, *, max_enumerated: int = zk.MAX_ENUMERATED) -> SystemSolution:
    """Minimum presses from ``board`` (n states) to a goal of ``system``; INFEASIBLE with certificates.

    Raises
    ------
    NullityTooLargeError
        A solvable board whose coset is over the enumeration budget.
    """
    start = time.perf_counter()
    k = system.states
    diag = zk.diagonal_of(system.matrix, k)
    stats = {"nullity": diag.nullity, "kernel_size": diag.kernel_size}
    best, certs, reachable = None, {}, 0
    kernel = None
    for t in system.targets(board):
        c = (np.array(t, dtype=np.int64) - np.array(board, dtype=np.int64)) % k
        x0, cert = diag.particular(c)
        if x0 is None:
            certs[t] = tuple(int(v) for v in cert)
            continue
        reachable += 1
        if kernel is None:
            kernel = _kernel(diag, max_enumerated)
        x = zk.min_cost(x0, kernel, k)
        if best is None or int(x.sum()) < sum(best[0]):
            best = (tuple(int(v) for v in x), t)
    stats["solutions"] = reachable * diag.kernel_size
    seconds = time.perf_counter() - start
    if best is None:
        return SystemSolution(NAME, Status.INFEASIBLE, seconds=seconds, stats=stats, certificates=certs)
    return SystemSolution(NAME, Status.OPTIMAL, sum(best[0]), best[0], system.apply(board, best[0]),
                          seconds, stats)


def solve_batch(system: PressSystem, boards: np.ndarray, *, max_enumerated: int = zk.MAX_ENUMERATED
                ) -> SystemBatch:
    """Vectorised :func:`solve` for boards as an int array shape (b, n); same answers.  The coset is
    enumerated once for every board (raises NullityTooLargeError if over budget)."""
    start = time.perf_counter()
    k = system.states
    boards = np.asarray(boards, dtype=np.int64)
    diag = zk.diagonal_of(system.matrix, k)
    kernel = _kernel(diag, max_enumerated)
    out = SystemBatch.empty(NAME, boards, system.m)
    best = np.full(len(boards), np.iinfo(np.int32).max, dtype=np.int64)
    for t in system.targets():
        tv = np.array(t, dtype=np.int64)
        ok, x0 = diag.particular_batch(tv[None, :] - boards)
        idx = np.flatnonzero(ok)
        x = zk.min_cost_batch(x0[idx], kernel, k)
        cost = x.sum(axis=1)
        better = cost < best[idx]
        sel = idx[better]
        best[sel] = cost[better]
        out.presses[sel] = x[better]
        out.target[sel] = tv
    solved = best != np.iinfo(np.int32).max
    out.status[:] = np.where(solved, Status.OPTIMAL, Status.INFEASIBLE)
    out.moves[solved] = best[solved]
    return out.with_time(time.perf_counter() - start)
