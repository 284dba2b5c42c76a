"""``sat`` on a two-state press system: one native XOR clause per cell, then SAT-UNSAT descent.

Variables ``x_j`` (press button j) and, for goal ``any``, ``t`` (the goal
colour).  Cell i ends at its goal iff ``XOR(x_j : A[i, j] odd) = goal_i ^
board_i`` (with ``t`` in the XOR for goal ``any``).  CryptoMiniSat takes the
XORs natively (``pycryptosat``).  The first model gives a weight ``w``; the
clauses of "at most ``w - 1`` presses" (``pysat.card.CardEnc``, sequential
counter) are added until the formula is UNSAT, which proves the last model
minimal.  More than two states (or counters) are declined (:func:`declines`;
:func:`flipgame.gate.general.refusal` adds who takes them).

Source: Soos, Nohl & Castelluccia, "Extending SAT Solvers to Cryptographic
Problems", SAT 2009 (native XOR clauses); Sinz, "Towards an Optimal CNF
Encoding of Boolean Cardinality Constraints", CP 2005 (sequential counter).
"""

from __future__ import annotations

import time

import numpy as np

from flipgame.backends.result import Status
from flipgame.backends.system_result import SystemSolution
from flipgame.model.system import PressSystem

NAME = "sat"


def declines(system: PressSystem) -> str | None:
    """Why sat declines ``system`` (it takes two-state systems only), or None; no hint of who takes it."""
    if system.states == 2:
        return None
    kind = "counters" if system.states is None else f"{system.states} states"
    return f"sat: only two-state games have a sat model, not {kind}"


def solve(system: PressSystem, board, *, time_limit: float = 30.0) -> SystemSolution:
    """Minimum presses for one board of a two-state system (CryptoMiniSat XORs, cardinality descent)."""
    from pycryptosat import Solver
    from pysat.card import CardEnc, EncType

    start = time.perf_counter()
    odd = system.matrix % 2
    m = system.m
    xs = list(range(1, m + 1))
    t = m + 1 if system.goal == "any" else None
    goal = (0,) * system.cells if t is not None else system.targets()[0]
    solver = Solver(time_limit=time_limit)
    for i in range(system.cells):
        lits = [xs[j] for j in np.flatnonzero(odd[i])] + ([t] if t is not None else [])
        rhs = bool((goal[i] ^ int(board[i])) & 1)
        if lits:
            solver.add_xor_clause(lits, rhs)
        elif rhs:
            return _done(system, board, None, start)
    top, best = (t or m), None
    while True:
        sat, values = solver.solve()
        if sat is None:
            return SystemSolution(NAME, Status.UNKNOWN, seconds=time.perf_counter() - start)
        if not sat:
            return _done(system, board, best, start)
        best = tuple(int(bool(values[x])) for x in xs)
        if sum(best) == 0:
            return _done(system, board, best, start)
        card = CardEnc.atmost(xs, bound=sum(best) - 1, top_id=top, encoding=EncType.seqcounter)
        top = max(top, card.nv)
        solver.add_clauses(card.clauses)


def _done(system: PressSystem, board, best, start: float) -> SystemSolution:
    if best is None:
        return SystemSolution(NAME, Status.INFEASIBLE, seconds=time.perf_counter() - start)
    return SystemSolution(NAME, Status.OPTIMAL, sum(best), best, system.apply(board, best),
                          time.perf_counter() - start)
