"""``cpsat`` and ``ilp`` (SCIP, HiGHS) on a press system: integer press counts, modular rows with a slack.

Variables: ``x_j`` presses of button j, ``0 <= x_j <= k - 1`` over Z_k, or
``0 <= x_j <= u_j`` for counters (``u_j``: the least ``(target_i - board_i) /
A[i, j]`` over the cells button j adds to).  One row per cell i::

    sum_j A[i, j] x_j + board_i - goal_i = k s_i     (Z_k; s_i an integer slack)
    sum_j A[i, j] x_j + board_i - goal_i = 0         (counters: exact)

With goal ``any``, ``goal_i`` is one integer variable ``g`` in 0..k-1 shared
by every cell.  Minimise ``sum_j x_j``.  A number is returned only when the
solver proves it optimal; a time-out is UNKNOWN.  OR-Tools is imported here only.

``sat`` takes two-state press systems only through the grid path; it
refuses the rest in one line (:func:`sat_refusal`).

Source: OR-Tools CP-SAT and ``pywraplp`` documentation; the slack
formulation of a congruence is standard (Wolsey, "Integer Programming", 1998).
"""

from __future__ import annotations

import time

import numpy as np

from .result import Status
from .system import PressSystem
from .system_result import SystemSolution

DEFAULT_TIME_LIMIT = 30.0
"""Seconds per board for cpsat and ilp on a press system."""
ILP_SOLVERS = ("SCIP", "HIGHS")


def bounds(system: PressSystem, board, target) -> list[int] | None:
    """Upper bound of each press count, or None when a counter is already above its target."""
    a = system.matrix
    if system.states is not None:
        return [system.states - 1] * system.m
    need = np.array(target, dtype=np.int64) - np.array(board, dtype=np.int64)
    if (need < 0).any():
        return None
    return [int(min(need[i] // a[i, j] for i in np.flatnonzero(a[:, j]))) for j in range(system.m)]


def _rows(system: PressSystem, board):
    """Per cell: (list of (button, coefficient), board value, slack bounds or None for counters)."""
    a, k = system.matrix, system.states
    for i in range(system.cells):
        terms = [(int(j), int(a[i, j])) for j in np.flatnonzero(a[i])]
        if k is None:
            yield terms, int(board[i]), None
        else:
            top = sum(c for _, c in terms) * (k - 1) + int(board[i])
            yield terms, int(board[i]), ((int(board[i]) - (k - 1)) // k, top // k)


def _goal_value(system: PressSystem):
    """The uniform goal value (int), the explicit target (tuple) or None for ``any``."""
    if system.goal == "any":
        return None
    (t,) = system.targets()
    return t


def _answer(name: str, system: PressSystem, board, counts, start: float, stats: dict) -> SystemSolution:
    counts = tuple(int(round(v)) for v in counts)
    return SystemSolution(name, Status.OPTIMAL, sum(counts), counts, system.apply(board, counts),
                          time.perf_counter() - start, stats)


def _empty(name: str, status: Status, start: float, stats: dict | None = None) -> SystemSolution:
    return SystemSolution(name, status, seconds=time.perf_counter() - start, stats=stats or {})


def solve_cpsat(system: PressSystem, board, *, time_limit: float = DEFAULT_TIME_LIMIT) -> SystemSolution:
    """CP-SAT: minimum presses for one board (a new model per board)."""
    from ortools.sat.python import cp_model

    start = time.perf_counter()
    target = _goal_value(system)
    ub = bounds(system, board, target)
    if ub is None:
        return _empty("cpsat", Status.INFEASIBLE, start)
    model = cp_model.CpModel()
    x = [model.new_int_var(0, u, f"x{j}") for j, u in enumerate(ub)]
    g = model.new_int_var(0, system.states - 1, "goal") if target is None else None
    for i, (terms, b, slack) in enumerate(_rows(system, board)):
        lhs = sum(c * x[j] for j, c in terms) + b - (g if g is not None else target[i])
        if slack is None:
            model.add(lhs == 0)
        else:
            s = model.new_int_var(slack[0], slack[1], f"s{i}")
            model.add(lhs == system.states * s)
    model.minimize(sum(x))
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = time_limit
    solver.parameters.num_workers = 1
    status = solver.solve(model)
    stats = {"branches": solver.num_branches, "conflicts": solver.num_conflicts}
    if status == cp_model.OPTIMAL:
        return _answer("cpsat", system, board, [solver.value(v) for v in x], start, stats)
    if status == cp_model.INFEASIBLE:
        return _empty("cpsat", Status.INFEASIBLE, start, stats)
    return _empty("cpsat", Status.UNKNOWN, start, stats)


def solve_ilp(system: PressSystem, board, *, solver: str = "SCIP",
              time_limit: float = DEFAULT_TIME_LIMIT) -> SystemSolution:
    """A MIP through ``pywraplp`` (SCIP or HiGHS): minimum presses for one board.

    Raises
    ------
    RuntimeError
        If OR-Tools lacks the solver.
    """
    from ortools.linear_solver import pywraplp

    start = time.perf_counter()
    name = "ilp" if solver == "SCIP" else f"ilp-{solver.lower()}"
    target = _goal_value(system)
    ub = bounds(system, board, target)
    if ub is None:
        return _empty(name, Status.INFEASIBLE, start)
    mip = pywraplp.Solver.CreateSolver(solver)
    if mip is None:
        raise RuntimeError(f"OR-Tools was built without {solver}")
    mip.SuppressOutput()
    if solver == "HIGHS":
        mip.SetSolverSpecificParametersAsString("output_flag=false\n")
    x = [mip.IntVar(0, u, f"x{j}") for j, u in enumerate(ub)]
    g = mip.IntVar(0, system.states - 1, "goal") if target is None else None
    for i, (terms, b, slack) in enumerate(_rows(system, board)):
        lhs = sum(c * x[j] for j, c in terms) + b - (g if g is not None else target[i])
        if slack is None:
            mip.Add(lhs == 0)
        else:
            s = mip.IntVar(slack[0], slack[1], f"s{i}")
            mip.Add(lhs == system.states * s)
    mip.Minimize(sum(x))
    mip.SetTimeLimit(int(time_limit * 1000))
    status = mip.Solve()
    if status == pywraplp.Solver.OPTIMAL:
        return _answer(name, system, board, [v.solution_value() for v in x], start, {})
    if status == pywraplp.Solver.INFEASIBLE:
        return _empty(name, Status.INFEASIBLE, start)
    return _empty(name, Status.UNKNOWN, start)


def solve_highs(system: PressSystem, board, *, time_limit: float = DEFAULT_TIME_LIMIT) -> SystemSolution:
    """:func:`solve_ilp` with HiGHS."""
    return solve_ilp(system, board, solver="HIGHS", time_limit=time_limit)


def sat_refusal(system: PressSystem) -> str | None:
    """sat takes two-state grid games (the grid path); every other press system is refused here."""
    if system.states == 2:
        return ("sat: a two-state press system outside the grid rules has no sat model yet; "
                "gauss, bfs, cpsat and ilp take it")
    kind = "counters" if system.states is None else f"{system.states} states"
    return f"sat: only two-state games have a sat model; for {kind} use gauss, cpsat, ilp or bfs"
