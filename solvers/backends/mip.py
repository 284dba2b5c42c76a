"""``mip``: the ``ilp`` backend's MIP, in SCIP through PySCIPOpt or HiGHS through highspy, directly.

The model is :mod:`flipgame.backends.ilp`'s: binary presses, the goal colour ``t``, an
integer slack per cell, and per cell ``sum(press_j) - 2 k_i - t = -b_i``;
minimise the presses.  It is built once per game in the solver's own API and
kept: between boards only the right-hand sides of the cells whose bit changed
are rewritten (SCIP: ``freeTransform`` then ``chgLhs``/``chgRhs``; HiGHS:
``changeRowBounds``), where OR-Tools' ``pywraplp`` hands a whole model to the
solver on every solve.  SCIP gets ``ilp``'s parameters (one presolve round:
the default presolve proves a wrong optimum on one 3x5-torus board) and its
branching order (the goal colour, then the presses in cell order).

Both solvers release the GIL while they solve, so a board over 64 cells runs in
a solver thread that Ctrl-C and the time limit stop (``interruptSolve``,
``cancelSolve``).  A number is returned only when the solver proves it optimal.
PySCIPOpt and highspy are imported only here.

Running time: NP-hard in general; per board against ``ilp`` in docs/bench.md.
Sources: PySCIPOpt (Maher et al., "PySCIPOpt: Mathematical programming in
Python with the SCIP Optimization Suite", ICMS 2016; ``Model.chgLhs``,
``freeTransform``, ``optimizeNogil``); HiGHS (Huangfu & Hall, "Parallelizing
the dual revised simplex method", Math. Prog. Comp. 10, 2018; highspy's
``changeRowBounds``, ``run``, ``cancelSolve``).
"""

from __future__ import annotations

import time

import numpy as np

from flipgame.backends.base import MEMORY_LIMIT, TIME_LIMIT, Model, ModelBackend, Option
from flipgame.backends.ilp import BASE_BYTES, BYTES_PER_CELL, BYTES_PER_ENTRY, scip_parameters
from flipgame.backends.result import Status
from flipgame.core.limits import MODEL_MAX_CELLS
from flipgame.core.native import quiet_stdout
from flipgame.model.system import PressSystem

SOLVERS = ("scip", "highs")


class _Mip(Model):
    """What both solvers share: the time limit, the deadline of the canonical refinement, and
    the columns (presses ``0..m-1``, then the goal colour, then one slack per cell)."""

    backend = "mip"

    def __init__(self, game: PressSystem, time_limit: float = 10.0):
        super().__init__(game)
        self.time_limit = time_limit
        self._deadline = 0.0
        self._fixed = False
        self.colour_bounds = (0.0, 1.0) if game.goal == "any" else 2 * (float(game.goal == "black"),)

    def _fix_presses(self, fixed: dict[int, int]) -> None:
        if fixed or self._fixed:
            for j in range(self.game.m):
                self._press_bounds(j, *((fixed[j], fixed[j]) if j in fixed else (0, 1)))
        self._fixed = bool(fixed)

    def _press_bounds(self, j: int, lo: float, hi: float) -> None:
        raise NotImplementedError

    def _solve(self, seconds: float) -> tuple[str, int | None, dict]:
        """("optimal" | "infeasible" | "unknown", presses, stats) of one solve on the current rows."""
        raise NotImplementedError

    def _minimise(self, board: int):
        self._set_board(board)
        self._fix_presses({})
        self._deadline = time.perf_counter() + self.time_limit
        status, presses, stats = self._solve(self.time_limit)
        return {"optimal": Status.OPTIMAL, "infeasible": Status.INFEASIBLE}.get(status, Status.UNKNOWN), presses, stats

    def _solve_fixed(self, fixed: dict[int, int], weight: int) -> int | None:
        left = self._deadline - time.perf_counter()
        if left <= 0.001:
            raise TimeoutError("no proof within the time limit while choosing the canonical witness")
        self._fix_presses(fixed)
        status, presses, _ = self._solve(left)
        if status == "optimal":
            return presses if presses.bit_count() == weight else None
        if status == "infeasible":
            return None
        raise TimeoutError("no proof within the time limit while choosing the canonical witness")

    def _set_board(self, board: int) -> None:
        raise NotImplementedError


class ScipModel(_Mip):
    """The MIP in SCIP (PySCIPOpt), re-used across boards."""

    def __init__(self, game: PressSystem, *, time_limit: float = 10.0, solver: str = "scip"):
        super().__init__(game, time_limit)
        import pyscipopt

        m = self.mip = pyscipopt.Model()
        m.hideOutput()
        m.setParams(scip_parameters(game.n))
        n = game.m
        self.press = [m.addVar(f"press_{j}", vtype="B") for j in range(n)]
        colour = m.addVar("target_black", vtype="B", lb=self.colour_bounds[0], ub=self.colour_bounds[1])
        self.rows = []
        for i, flips in enumerate(game.flippers):
            k = m.addVar(f"slack_{i}", vtype="I", lb=0, ub=(len(flips) + 1) // 2)
            self.rows.append(m.addCons(pyscipopt.quicksum(self.press[j] for j in flips) - 2 * k - colour == 0,
                                       name=f"parity_{i}"))
        m.setObjective(pyscipopt.quicksum(self.press), "minimize")
        m.chgVarBranchPriority(colour, n + 1)  # as ilp: the colour, then the presses in cell order
        for j, v in enumerate(self.press):
            m.chgVarBranchPriority(v, n - j)

    def _stop(self) -> None:
        self.mip.interruptSolve()

    def close(self) -> None:
        self.mip = None

    def _set_board(self, board: int) -> None:
        self.mip.freeTransform()
        for i in self._changed_cells(board):
            rhs = -float(board >> i & 1)
            self.mip.chgLhs(self.rows[i], rhs)
            self.mip.chgRhs(self.rows[i], rhs)

    def _press_bounds(self, j: int, lo: float, hi: float) -> None:
        self.mip.freeTransform()
        self.mip.chgVarLb(self.press[j], lo)
        self.mip.chgVarUb(self.press[j], hi)

    def _solve(self, seconds: float):
        m = self.mip
        m.setParam("limits/time", max(0.001, seconds))
        m.optimizeNogil()
        status = m.getStatus()
        stats = {"nodes": m.getNNodes(), "scip_status": status}
        if status == "optimal":
            sol = m.getBestSol()
            return "optimal", sum(1 << j for j, v in enumerate(self.press) if m.getSolVal(sol, v) > 0.5), stats
        return ("infeasible" if status == "infeasible" else "unknown"), None, stats


class HighsModel(_Mip):
    """The MIP in HiGHS (highspy), re-used across boards."""

    def __init__(self, game: PressSystem, *, time_limit: float = 10.0, solver: str = "highs"):
        super().__init__(game, time_limit)
        import highspy

        self._hs = highspy
        with quiet_stdout():  # the constructor prints HiGHS's banner on standard output
            h = self.mip = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("mip_rel_gap", 0.0)  # HiGHS stops at a 1e-4 gap by default: not a proven minimum
        n = game.m
        cols = n + 1 + game.n
        slack = [(len(f) + 1) // 2 for f in game.flippers]
        h.addVars(cols, np.zeros(cols), np.array([1.0] * n + [self.colour_bounds[1]] + slack, dtype=float))
        h.changeColBounds(n, *self.colour_bounds)
        h.changeColsIntegrality(cols, np.arange(cols, dtype=np.int32),
                                np.full(cols, highspy.HighsVarType.kInteger))
        h.changeColsCost(n, np.arange(n, dtype=np.int32), np.ones(n))
        for i, flips in enumerate(game.flippers):
            idx = np.array([*flips, n, n + 1 + i], dtype=np.int32)
            h.addRow(0.0, 0.0, len(idx), idx, np.array([1.0] * len(flips) + [-1.0, -2.0]))

    def _stop(self) -> None:
        self.mip.cancelSolve()

    def close(self) -> None:
        self.mip = None

    def _set_board(self, board: int) -> None:
        for i in self._changed_cells(board):
            rhs = -float(board >> i & 1)
            self.mip.changeRowBounds(i, rhs, rhs)

    def _press_bounds(self, j: int, lo: float, hi: float) -> None:
        self.mip.changeColBounds(j, lo, hi)

    def _solve(self, seconds: float):
        h, status_of = self.mip, self._hs.HighsModelStatus
        h.setOptionValue("time_limit", max(0.001, seconds))
        if h.run() == self._hs.HighsStatus.kError:
            raise RuntimeError(f"HiGHS failed to solve (model status {h.getModelStatus().name})")
        status = h.getModelStatus()
        stats = {"nodes": int(h.getInfo().mip_node_count), "highs_status": status.name}
        if status == status_of.kOptimal:
            values = h.getSolution().col_value
            return "optimal", sum(1 << j for j in range(self.game.m) if values[j] > 0.5), stats
        return ("infeasible" if status == status_of.kInfeasible else "unknown"), None, stats


class Mip(ModelBackend):
    """The ilp MIP in SCIP (PySCIPOpt) or HiGHS (highspy) directly; see the module docstring.

    >>> from flipgame import solve
    >>> solve(["bwwb", "bbwb", "bwwb", "bwww"], "mip", solver="highs").moves
    4
    """

    name = "mip"
    summary = "the ilp MIP in SCIP (PySCIPOpt) or HiGHS (highspy) directly, a persistent model"
    max_cells = MODEL_MAX_CELLS
    model = ScipModel
    by_default = False
    options = (
        TIME_LIMIT,
        Option("solver", str, "scip", "solver of the mip backend: SCIP through PySCIPOpt or HiGHS through highspy",
               choices=SOLVERS, flag="--direct-solver"),
        MEMORY_LIMIT,
    )

    def model_class(self, options: dict) -> type[Model]:
        return ScipModel if options.get("solver", "scip") == "scip" else HighsModel

    def estimate_bytes(self, game: PressSystem, options: dict) -> int:
        """As ``ilp``'s (the same model): O(|offsets|), nothing built."""
        return BASE_BYTES + BYTES_PER_CELL * game.n + BYTES_PER_ENTRY * game.entries
