"""``mip``: the MIP with one parity row per cell, in SCIP through PySCIPOpt or HiGHS through highspy, directly.

The model is :mod:`flipgame.backends.scip`'s ``cells`` formulation: binary presses, the goal
colour ``t``, an integer slack per cell, and per cell ``sum(press_j) - 2 k_i - t = -b_i``;
minimise the presses.  It is built once per game in the solver's own API and
kept: between boards only the right-hand sides of the cells whose bit changed
are rewritten (SCIP: ``freeTransform`` then ``chgLhs``/``chgRhs``; HiGHS:
``changeRowBounds``).  SCIP gets ``ilp``'s parameters (one presolve round:
the default presolve proves a wrong optimum on one 3x5-torus board) and its
branching order (the goal colour, then the presses in cell order).  ``ilp``
runs the same SCIP model with the chased rows on plus grids; ``mip`` keeps one
row per cell everywhere, as a second formulation to compare.

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

import numpy as np

from flipgame.backends.base import MEMORY_LIMIT, TIME_LIMIT, Option
from flipgame.backends.ilp import BASE_BYTES, BYTES_PER_CELL, BYTES_PER_ENTRY
from flipgame.backends.models import Model, ModelBackend
from flipgame.backends.parameters import HIGHS_FUZZ, SCIP_FUZZ, highs_settings
from flipgame.backends.scip import MipModel, ScipModel
from flipgame.core import extras
from flipgame.core.errors import OptionError
from flipgame.core.limits import MODEL_MAX_CELLS, TIME_LIMIT_DEFAULT_SECONDS
from flipgame.core.native import quiet_stdout
from flipgame.model.system import PressSystem

SOLVERS = ("scip", "highs")
SOLVER_NAMES = {"scip": "SCIP", "highs": "HiGHS"}


class HighsModel(MipModel):
    """The MIP in HiGHS (highspy), re-used across boards."""

    def __init__(self, game: PressSystem, *, time_limit: float = TIME_LIMIT_DEFAULT_SECONDS, solver: str = "highs",
                 scip_params: str = "", highs_params: str = ""):
        super().__init__(game, time_limit)
        import highspy

        self._hs = highspy
        with quiet_stdout():  # the constructor prints HiGHS's banner on standard output
            h = self.mip = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("mip_rel_gap", 0.0)  # HiGHS stops at a 1e-4 gap by default: not a proven minimum
        for name, value in highs_settings(highs_params).items():
            if h.setOptionValue(name, value) == highspy.HighsStatus.kError:
                raise OptionError(f"mip option highs_params (--highs-params): HiGHS does not take {name}:{value}")
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
               choices=SOLVERS, flag="--direct-solver", fuzz=True),
        Option("scip_params", str, "", "SCIP parameters NAME:VALUE separated by spaces, set after flipgame's own "
               "(SCIP's parameter names; gaps and limits are refused)", fuzz=SCIP_FUZZ, fuzz_many=True),
        Option("highs_params", str, "", "HiGHS options NAME:VALUE separated by spaces, set after flipgame's own "
               "(HiGHS's option names; gaps and limits are refused)", fuzz=HIGHS_FUZZ, fuzz_many=True),
        MEMORY_LIMIT,
    )

    def check_options(self, options: dict) -> dict:
        """As every backend's, and the parameters of the solver not chosen refused (they would be ignored)."""
        checked = super().check_options(options)
        other = "highs" if checked["solver"] == "scip" else "scip"
        if checked[f"{other}_params"]:
            raise OptionError(f"mip option {other}_params (--{other}-params) sets {SOLVER_NAMES[other]} parameters, "
                              f"but the solver is {checked['solver']} (--direct-solver {other})")
        return checked

    def missing_library(self, options: dict) -> str | None:
        """pyscipopt for SCIP, highspy for HiGHS (the extra ``mip`` brings both)."""
        library = "pyscipopt" if options.get("solver", "scip") == "scip" else "highspy"
        return None if extras.installed(library) else library

    def model_class(self, options: dict) -> type[Model]:
        return ScipModel if options.get("solver", "scip") == "scip" else HighsModel

    def estimate_bytes(self, game: PressSystem, options: dict) -> int:
        """As ``ilp``'s (the same model): O(|offsets|), nothing built."""
        return BASE_BYTES + BYTES_PER_CELL * game.n + BYTES_PER_ENTRY * game.entries
