"""``cpsat``: OR-Tools CP-SAT minimisation.

Encoding.  One Boolean ``press_j`` per cell; one Boolean ``cell_i`` per board
bit, fixed to the board's colour; one Boolean ``t`` for the goal colour (free
for the goal "any", fixed for ``white``/``black``).  Cell ``i`` ends at colour
``cell_i ^ XOR(press_j : press j flips i)``, which must equal ``t``; as one
CP-SAT ``AddBoolXOr`` (the XOR of its literals is true) that is::

    XOR(press_j : j flips i) ^ cell_i ^ NOT t  =  1

and the objective is ``minimise sum(press_j)``.  n press variables, n + 1
fixed/target variables, n XOR constraints of at most 6 literals (plus
neighbourhood).  CP-SAT's presolve and its XOR reasoning prove infeasibility.

The model is built once per game; between boards only the domains of the
``cell_i`` variables change, so a batch does not rebuild it.  CP-SAT keeps no
state between ``Solve`` calls.  A time-out (status FEASIBLE or UNKNOWN) is
reported as ``UNKNOWN``: a number is only given when CP-SAT proves it optimal.

OR-Tools is imported only when a model is built, so other backends never
load it.

Running time: NP-hard in general; about 1.1 ms per 4x4 board with one worker.
Source: OR-Tools CP-SAT documentation, "Boolean constraints" (AddBoolXOr)
and "Solving a CP-SAT model" (solver parameters, statuses).
"""

from __future__ import annotations

import time

import numpy as np

from .board import Game
from .result import BatchSolution, Solution, Status, canonical_solution

NAME = "cpsat"
DEFAULT_TIME_LIMIT = 10.0
FIXED_SEARCH_MAX_CELLS = 64
"""Up to this many cells, search the presses in order without presolve (measured faster to 8x8)."""


class Model:
    """The CP-SAT model of one game, re-used across boards.

    Parameters
    ----------
    game : Game
    time_limit : float
        Per-board limit in seconds; when it expires the answer is UNKNOWN.
    workers : int
        CP-SAT search workers per solve (1 is fastest on small boards;
        parallelism across boards comes from worker processes instead).
    """

    def __init__(self, game: Game, *, time_limit: float = DEFAULT_TIME_LIMIT, workers: int = 1):
        if time_limit <= 0:
            raise ValueError(f"time_limit must be positive seconds, got {time_limit}")
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        from ortools.sat.python import cp_model

        self._cp = cp_model
        self.game = game
        m = self.model = cp_model.CpModel()
        n = game.n
        self.press = [m.new_bool_var(f"press_{j}") for j in range(n)]
        self.cell = [m.new_bool_var(f"cell_{i}") for i in range(n)]
        self.colour = m.new_bool_var("target_black")
        if game.goal != "any":
            m.add(self.colour == (game.goal == "black"))
        for i in range(n):
            flips_i = [self.press[j] for j in game.flippers[i]]
            m.add_bool_xor([*flips_i, self.cell[i], ~self.colour])
        m.minimize(sum(self.press))
        self._domains = [m.proto.variables[v.index].domain for v in self.cell]
        self._press_domains = [m.proto.variables[v.index].domain for v in self.press]
        self.solver = cp_model.CpSolver()
        params = self.solver.parameters
        params.num_workers = workers
        params.max_time_in_seconds = time_limit
        params.random_seed = 0
        params.catch_sigint_signal = False  # Ctrl-C stops the run, not just one board's search
        if n <= FIXED_SEARCH_MAX_CELLS:
            # Measured: branching on the presses in order, min value first, without
            # presolve, is 2x faster than the default on 4x4 (1.1 vs 2.1 ms per
            # board) and 1.5x on 8x8; the search stays complete.
            m.add_decision_strategy(self.press, cp_model.CHOOSE_FIRST, cp_model.SELECT_MIN_VALUE)
            params.search_branching = cp_model.FIXED_SEARCH
            params.cp_model_presolve = False

    def _fix_presses(self, fixed: dict[int, int]) -> None:
        for i, dom in enumerate(self._press_domains):
            dom[0], dom[1] = (fixed[i], fixed[i]) if i in fixed else (0, 1)

    def solve(self, board: int, canonical: bool = False) -> Solution:
        """Solve one board (bitmask); see :func:`solve`."""
        start = time.perf_counter()
        self.game.check_fits(board)
        for i, dom in enumerate(self._domains):
            bit = board >> i & 1
            dom[0] = bit
            dom[1] = bit
        code = self.solver.solve(self.model)
        if canonical and code == self._cp.OPTIMAL:
            return self._refine(board, start)
        cp = self._cp
        s = self.solver
        stats = {"conflicts": s.num_conflicts, "branches": s.num_branches, "wall_time": s.wall_time}
        seconds = time.perf_counter() - start
        if code == cp.OPTIMAL:
            presses = sum(1 << j for j, v in enumerate(self.press) if s.boolean_value(v))
            target = self.game.full if s.boolean_value(self.colour) else 0
            return Solution(NAME, Status.OPTIMAL, presses.bit_count(), presses, target, seconds, stats)
        if code == cp.INFEASIBLE:
            return Solution(NAME, Status.INFEASIBLE, seconds=seconds, stats=stats)
        if code in (cp.FEASIBLE, cp.UNKNOWN):
            return Solution(NAME, Status.UNKNOWN, seconds=seconds, stats=stats)
        raise RuntimeError(f"CP-SAT returned {s.status_name(code)}")


    def _refine(self, board: int, start: float) -> Solution:
        """Canonical witness: fix cells in reading order to 0 where a minimum allows it."""
        s, cp = self.solver, self._cp
        weight = round(s.objective_value)

        def current() -> int:
            return sum(1 << j for j, v in enumerate(self.press) if s.boolean_value(v))

        def solve_fixed(fixed: dict[int, int]) -> int | None:
            self._fix_presses(fixed)
            code = s.solve(self.model)
            if code == cp.OPTIMAL:
                return current() if round(s.objective_value) == weight else None
            if code == cp.INFEASIBLE:
                return None
            raise TimeoutError("time limit reached while choosing the canonical witness")

        try:
            return canonical_solution(NAME, self.game, board, current(), solve_fixed, start)
        finally:
            self._fix_presses({})

def solve(game: Game, board: int, *, time_limit: float = DEFAULT_TIME_LIMIT, workers: int = 1,
          canonical: bool = False) -> Solution:
    """Minimum presses for one board by CP-SAT.

    Parameters
    ----------
    game : Game
    board : int
        Bitmask of black cells.
    time_limit : float
        Seconds; a time-out gives ``Status.UNKNOWN``, never a number.
    workers : int
        CP-SAT search workers.
    canonical : bool
        Return the lexicographically smallest minimum press set (cells fixed to
        0 in reading order where a minimum remains; at most one solve per press).

    Returns
    -------
    Solution
        stats: ``conflicts``, ``branches``, ``wall_time`` (CP-SAT's seconds).

    Raises
    ------
    ValueError
        On a non-positive time limit or worker count, or a board that does not fit.
    """
    start = time.perf_counter()
    s = Model(game, time_limit=time_limit, workers=workers).solve(board, canonical)
    return Solution(NAME, s.status, s.moves, s.presses, s.target, time.perf_counter() - start, s.stats)


def solve_batch(game: Game, boards: np.ndarray, *, time_limit: float = DEFAULT_TIME_LIMIT,
                workers: int = 1, canonical: bool = False) -> BatchSolution:
    """:func:`solve` over many boards of one game with one model (only board bits change).

    Parameters
    ----------
    boards : array_like of uint64, shape (k,)

    Running time: k CP-SAT solves (about 2 ms each on 4x4), one model build.
    """
    start = time.perf_counter()
    model = Model(game, time_limit=time_limit, workers=workers)
    boards = np.asarray(boards, dtype=np.uint64)
    solutions = [model.solve(int(b), canonical) for b in boards]
    out = BatchSolution.from_solutions(NAME, boards, solutions, time.perf_counter() - start)
    conflicts = sum(s.stats.get("conflicts", 0) for s in solutions)
    return out.with_time(out.seconds, conflicts=conflicts)
