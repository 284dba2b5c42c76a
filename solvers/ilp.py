"""``ilp``: integer linear programming through OR-Tools (SCIP by default, HiGHS selectable).

Encoding.  Binary ``press_j`` (n), binary ``t`` (goal colour black; fixed when
the goal fixes it), and one integer slack ``k_i`` per cell.  Cell ``i`` ends at
colour ``t`` iff the number of presses flipping it plus its board bit has the
parity of ``t``::

    sum(press_j : press j flips i) + b_i = 2 k_i + t,   0 <= k_i <= (|N(i)| + 1) // 2

written as ``sum(press_j) - 2 k_i - t = -b_i``; minimise ``sum(press_j)``.
n + 1 binaries, n integers, n equality rows.  The model is built once per
game; between boards only the right-hand sides ``-b_i`` change.

A number is returned only when the MIP solver proves it OPTIMAL; a time-out
(FEASIBLE or NOT_SOLVED) gives ``UNKNOWN``.  OR-Tools is imported only here.

Running time: NP-hard in general; about 1.5 ms per 4x4 board with SCIP (7 ms when
solvable, 1 ms when not), about 50 ms with HiGHS.
Source: OR-Tools linear solver documentation (``pywraplp``: ``CreateSolver``,
``Constraint.SetBounds``, ``SetTimeLimit``, ``nodes``); the parity-as-slack
formulation is standard (e.g. Wolsey, "Integer Programming", 1998, ch. 1).
"""

from __future__ import annotations

import time

import numpy as np

from .board import Game
from .result import BatchSolution, Solution, Status, canonical_solution

NAME = "ilp"
SOLVERS = ("SCIP", "HIGHS")
DEFAULT_SOLVER = "SCIP"
DEFAULT_TIME_LIMIT = 10.0


class Model:
    """The MIP of one game, re-used across boards by changing right-hand sides.

    Parameters
    ----------
    game : Game
    solver : {"SCIP", "HIGHS"}
    time_limit : float
        Seconds per board; a time-out answers UNKNOWN.

    Raises
    ------
    ValueError
        On an unknown solver name or a non-positive time limit.
    RuntimeError
        If OR-Tools was built without the chosen solver.
    """

    def __init__(self, game: Game, *, solver: str = DEFAULT_SOLVER, time_limit: float = DEFAULT_TIME_LIMIT):
        if solver.upper() not in SOLVERS:
            raise ValueError(f"unknown MIP solver {solver!r}; valid: {', '.join(SOLVERS)}")
        if not time_limit > 0:
            raise ValueError(f"time_limit must be positive seconds, got {time_limit}")
        from ortools.linear_solver import pywraplp

        self._lp = pywraplp
        self.game = game
        s = self.mip = pywraplp.Solver.CreateSolver(solver.upper())
        if s is None:
            raise RuntimeError(f"OR-Tools has no {solver} solver in this build")
        s.SuppressOutput()
        if solver.upper() == "HIGHS":
            s.SetSolverSpecificParametersAsString("output_flag=false\n")
        else:
            # Measured on 4x4: no probing rounds in SCIP's presolve takes a board
            # from about 2.2 to 1.4 ms; probing finds nothing in these small models.
            # SCIP must not swallow Ctrl-C (it would stop one board's solve as a
            # time-out and the run would go on); Python raises KeyboardInterrupt instead.
            # One presolve round only: with SCIP's default presolve (OR-Tools 9.15) it
            # proves a wrong optimum, 7 instead of 6, for board 22032 of the 3x5 torus
            # (found by `flipgame verify --size 3x5 --wrap`; a regression test keeps
            # it).  No aggregation also fixes it but is 10x slower; one round costs
            # nothing measurable, and the full 4x4 and 3x5-torus checks agree with it.
            s.SetSolverSpecificParametersAsString(
                "propagating/probing/maxprerounds = 0\nmisc/catchctrlc = FALSE\npresolving/maxrounds = 1\n")
        s.SetTimeLimit(max(1, round(time_limit * 1000)))
        n = game.n
        self.press = [s.BoolVar(f"press_{j}") for j in range(n)]
        self.colour = s.BoolVar("target_black")
        if game.goal != "any":
            self.colour.SetBounds(*(2 * [float(game.goal == "black")]))
        self.rows = []
        for i in range(n):
            flips_i = game.flippers[i]
            k = s.IntVar(0, (len(flips_i) + 1) // 2, f"slack_{i}")
            row = s.Constraint(0, 0, f"parity_{i}")
            for j in flips_i:
                row.SetCoefficient(self.press[j], 1)
            row.SetCoefficient(k, -2)
            row.SetCoefficient(self.colour, -1)
            self.rows.append(row)
        objective = s.Objective()
        for v in self.press:
            objective.SetCoefficient(v, 1)
        objective.SetMinimization()

    def _fix_presses(self, fixed: dict[int, int]) -> None:
        for i, v in enumerate(self.press):
            v.SetBounds(*((fixed[i], fixed[i]) if i in fixed else (0, 1)))

    def _refine(self, board: int, start: float) -> Solution:
        """Canonical witness: fix cells in reading order to 0 where a minimum allows it."""
        lp, s = self._lp, self.mip
        weight = round(s.Objective().Value())

        def current() -> int:
            return sum(1 << j for j, v in enumerate(self.press) if v.solution_value() > 0.5)

        def solve_fixed(fixed: dict[int, int]) -> int | None:
            self._fix_presses(fixed)
            code = s.Solve()
            if code == lp.Solver.OPTIMAL:
                return current() if round(s.Objective().Value()) == weight else None
            if code == lp.Solver.INFEASIBLE:
                return None
            raise TimeoutError("no proof within the time limit while choosing the canonical witness")

        try:
            return canonical_solution(NAME, self.game, board, current(), solve_fixed, start)
        finally:
            self._fix_presses({})

    def solve(self, board: int, canonical: bool = False) -> Solution:
        """Minimum presses for one board (bitmask); see :func:`solve`."""
        start = time.perf_counter()
        self.game.check_fits(board)
        for i, row in enumerate(self.rows):
            rhs = -float(board >> i & 1)
            row.SetBounds(rhs, rhs)
        lp, s = self._lp, self.mip
        code = s.Solve()
        if canonical and code == lp.Solver.OPTIMAL:
            return self._refine(board, start)
        stats = {"nodes": s.nodes(), "wall_time": s.wall_time() / 1000}
        seconds = time.perf_counter() - start
        if code == lp.Solver.OPTIMAL:
            presses = sum(1 << j for j, v in enumerate(self.press) if v.solution_value() > 0.5)
            target = self.game.full if self.colour.solution_value() > 0.5 else 0
            return Solution(NAME, Status.OPTIMAL, presses.bit_count(), presses, target, seconds, stats)
        if code == lp.Solver.INFEASIBLE:
            return Solution(NAME, Status.INFEASIBLE, seconds=seconds, stats=stats)
        if code in (lp.Solver.ABNORMAL, lp.Solver.MODEL_INVALID, lp.Solver.UNBOUNDED):
            raise RuntimeError(f"MIP solver returned status {code} (abnormal, invalid or unbounded)")
        # FEASIBLE, NOT_SOLVED, and HiGHS's time-out code: no proof either way.
        return Solution(NAME, Status.UNKNOWN, seconds=seconds, stats=stats)


def solve(game: Game, board: int, *, solver: str = DEFAULT_SOLVER,
          time_limit: float = DEFAULT_TIME_LIMIT, canonical: bool = False) -> Solution:
    """Minimum presses for one board by MIP.

    Parameters
    ----------
    game : Game
    board : int
        Bitmask of black cells.
    solver : {"SCIP", "HIGHS"}
    time_limit : float
        Seconds; a time-out gives ``Status.UNKNOWN``, never a number.
    canonical : bool
        Return the lexicographically smallest minimum press set (cells fixed to
        0 in reading order where a minimum remains; at most one solve per press).

    Returns
    -------
    Solution
        stats: ``nodes`` (branch-and-bound nodes), ``wall_time`` (seconds).

    Raises
    ------
    ValueError, RuntimeError
        See :class:`Model`.
    """
    start = time.perf_counter()
    s = Model(game, solver=solver, time_limit=time_limit).solve(board, canonical)
    return Solution(NAME, s.status, s.moves, s.presses, s.target, time.perf_counter() - start, s.stats)


def solve_batch(game: Game, boards: np.ndarray, *, solver: str = DEFAULT_SOLVER,
                time_limit: float = DEFAULT_TIME_LIMIT, canonical: bool = False) -> BatchSolution:
    """:func:`solve` over many boards with one model; only right-hand sides change.

    Parameters
    ----------
    boards : array_like of uint64, shape (k,)
    """
    start = time.perf_counter()
    model = Model(game, solver=solver, time_limit=time_limit)
    boards = np.asarray(boards, dtype=np.uint64)
    solutions = [model.solve(int(b), canonical) for b in boards]
    out = BatchSolution.from_solutions(NAME, boards, solutions, time.perf_counter() - start)
    return out.with_time(out.seconds, nodes=sum(s.stats.get("nodes", 0) for s in solutions))
