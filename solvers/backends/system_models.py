"""``cpsat`` and ``ilp`` (SCIP, HiGHS) on a press system: integer press counts, modular rows with a slack.

Variables: ``x_j`` presses of button j, ``0 <= x_j <= k - 1`` over Z_k, or
``0 <= x_j <= u_j`` for counters (``u_j``: the least ``(target_i - board_i) /
A[i, j]`` over the cells button j adds to).  One row per cell i::

    sum_j A[i, j] x_j + board_i - goal_i = k s_i     (Z_k; s_i an integer slack)
    sum_j A[i, j] x_j + board_i - goal_i = 0         (counters: exact)

With goal ``any``, ``goal_i`` is one integer variable ``g`` in 0..k-1 shared
by every cell.  Minimise ``sum_j x_j``.  A number is returned only when the
solver proves it optimal; a time-out is UNKNOWN.  OR-Tools is imported here only.

Source: OR-Tools CP-SAT and ``pywraplp`` documentation; the slack
formulation of a congruence is standard (Wolsey, "Integer Programming", 1998).
"""

from __future__ import annotations

import time
from functools import lru_cache

import numpy as np

from flipgame.backends.cpsat import SMALL_MODEL_PARAMETERS
from flipgame.backends.ilp import SMALL_MODEL_MAX_CELLS, new_solver
from flipgame.backends.result import Status
from flipgame.backends.system_result import SystemSolution
from flipgame.model.system import PressSystem

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


class _Model:
    """One model per system, re-used across boards: only the rows' right-hand sides (and, for
    counters, the press bounds) change between boards.

    Row i reads ``sum_j A[i, j] x_j - k s_i - g = goal_i - board_i`` over Z_k (``g`` only for
    goal ``any``; ``goal_i`` then 0), or ``sum_j A[i, j] x_j = target_i - board_i`` for counters.
    The slack ``s_i`` lies in ``[-1, (sum_j A[i, j] (k - 1) + k - 1) // k]`` for every board.
    """

    def __init__(self, system: PressSystem):
        self.system, self.target = system, _goal_value(system)
        a, k = system.matrix, system.states
        self.terms = [[(int(j), int(a[i, j])) for j in np.flatnonzero(a[i])] for i in range(system.cells)]
        self.top = [k - 1] * system.m if k else [1 << 30] * system.m
        self.slack = [(-1, (sum(c for _, c in t) * (k - 1) + k - 1) // k) for t in self.terms] if k else None

    def rhs(self, board) -> list[int]:
        goal = self.target if self.target is not None else (0,) * self.system.cells
        return [int(goal[i]) - int(board[i]) for i in range(self.system.cells)]


class _CpSatModel(_Model):
    def __init__(self, system: PressSystem, time_limit: float):
        from ortools.sat.python import cp_model

        super().__init__(system)
        self.cp_model, self.time_limit = cp_model, time_limit
        m = self.model = cp_model.CpModel()
        self.x = [m.new_int_var(0, u, f"x{j}") for j, u in enumerate(self.top)]
        g = m.new_int_var(0, system.states - 1, "goal") if self.target is None else 0
        self.rows = []
        for i, terms in enumerate(self.terms):
            lhs = sum(c * self.x[j] for j, c in terms) - g
            if self.slack is not None:
                lhs = lhs - system.states * m.new_int_var(*self.slack[i], f"s{i}")
            self.rows.append(m.add(lhs == 0).index)
        m.minimize(sum(self.x))
        self.domains = [m.proto.constraints[c].linear.domain for c in self.rows]
        if any(len(d) != 2 for d in self.domains):
            raise RuntimeError("cpsat: a row is not one linear equality; its right-hand side cannot change")
        self.press_domains = [m.proto.variables[v.index].domain for v in self.x]

    def solve(self, board) -> SystemSolution:
        start = time.perf_counter()
        ub = bounds(self.system, board, self.target)
        if ub is None:
            return _empty("cpsat", Status.INFEASIBLE, start)
        for dom, r in zip(self.domains, self.rhs(board), strict=True):
            dom[0] = dom[1] = r
        if self.system.states is None:
            for dom, u in zip(self.press_domains, ub, strict=True):
                dom[1] = u
        solver = self.cp_model.CpSolver()
        solver.parameters.max_time_in_seconds = self.time_limit
        solver.parameters.num_workers = 1
        if self.system.cells <= SMALL_MODEL_MAX_CELLS:
            for name, value in SMALL_MODEL_PARAMETERS.items():
                setattr(solver.parameters, name, value)
        status = solver.solve(self.model)
        stats = {"branches": solver.num_branches, "conflicts": solver.num_conflicts}
        if status == self.cp_model.OPTIMAL:
            return _answer("cpsat", self.system, board, [solver.value(v) for v in self.x], start, stats)
        if status == self.cp_model.INFEASIBLE:
            return _empty("cpsat", Status.INFEASIBLE, start, stats)
        return _empty("cpsat", Status.UNKNOWN, start, stats)


class _IlpModel(_Model):
    def __init__(self, system: PressSystem, solver: str, time_limit: float):
        from ortools.linear_solver import pywraplp

        super().__init__(system)
        self.pywraplp, self.name = pywraplp, "ilp" if solver == "SCIP" else f"ilp-{solver.lower()}"
        mip = self.mip = new_solver(solver, system.cells)  # the grid ilp's settings (see flipgame.backends.ilp)
        self.x = [mip.IntVar(0, u, f"x{j}") for j, u in enumerate(self.top)]
        g = mip.IntVar(0, system.states - 1, "goal") if self.target is None else 0
        self.rows = []
        for i, terms in enumerate(self.terms):
            lhs = sum(c * self.x[j] for j, c in terms) - g
            if self.slack is not None:
                lhs = lhs - system.states * mip.IntVar(*self.slack[i], f"s{i}")
            self.rows.append(mip.Add(lhs == 0))
        mip.Minimize(sum(self.x))
        mip.SetTimeLimit(int(time_limit * 1000))

    def solve(self, board) -> SystemSolution:
        start = time.perf_counter()
        ub = bounds(self.system, board, self.target)
        if ub is None:
            return _empty(self.name, Status.INFEASIBLE, start)
        for row, r in zip(self.rows, self.rhs(board), strict=True):
            row.SetBounds(r, r)
        if self.system.states is None:
            for v, u in zip(self.x, ub, strict=True):
                v.SetUb(u)
        status = self.mip.Solve()
        if status == self.pywraplp.Solver.OPTIMAL:
            return _answer(self.name, self.system, board, [v.solution_value() for v in self.x], start, {})
        if status == self.pywraplp.Solver.INFEASIBLE:
            return _empty(self.name, Status.INFEASIBLE, start)
        return _empty(self.name, Status.UNKNOWN, start)


@lru_cache(maxsize=4)
def _model(kind: str, system: PressSystem, time_limit: float):
    if kind == "cpsat":
        return _CpSatModel(system, time_limit)
    return _IlpModel(system, kind, time_limit)


def solve_cpsat(system: PressSystem, board, *, time_limit: float = DEFAULT_TIME_LIMIT) -> SystemSolution:
    """CP-SAT: minimum presses for one board, on the system's cached model."""
    return _model("cpsat", system, time_limit).solve(board)


def solve_ilp(system: PressSystem, board, *, solver: str = "SCIP",
              time_limit: float = DEFAULT_TIME_LIMIT) -> SystemSolution:
    """A MIP through ``pywraplp`` (SCIP or HiGHS), on the system's cached model.

    Raises
    ------
    RuntimeError
        If OR-Tools lacks the solver.
    """
    return _model(solver, system, time_limit).solve(board)


def solve_highs(system: PressSystem, board, *, time_limit: float = DEFAULT_TIME_LIMIT) -> SystemSolution:
    """:func:`solve_ilp` with HiGHS."""
    return solve_ilp(system, board, solver="HIGHS", time_limit=time_limit)
