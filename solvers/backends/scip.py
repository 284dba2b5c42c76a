"""The MIP of a two-state press system as a persistent model, and SCIP's settings: what ``ilp`` and
``mip`` share.

Columns: binary presses ``0..m-1``, the goal colour ``t`` (fixed when the goal fixes it) and one
integer slack per row.  Rows, by formulation:

``cells``
    per cell ``sum(press_j : j flips i) - 2 k_i - t = -b_i`` (the parity as a slack; e.g. Wolsey,
    "Integer Programming", 1998, ch. 1);
``chase``
    on a plus grid without wrap (``auto`` up to :data:`CHASE_MAX_CELLS` cells), the chased rows of
    :mod:`flipgame.encode.chase`: per press ``j`` below the first row ``press_j + sum(its form's
    decisions) - 2 k_j = c_j(board)``, per last-row cell ``sum(its form's decisions) - 2 k = c(board)``,
    the decisions being the first row's presses and ``t``.

Minimise the presses.  The model is built once per game in SCIP (PySCIPOpt) and kept: between
boards only the right-hand sides of the rows that change are rewritten (``freeTransform``, then
``chgLhs``/``chgRhs``), where OR-Tools' ``pywraplp`` passes its parameters to SCIP again as text
on every solve and cannot switch off symmetry detection after the first.  A number is returned
only when SCIP proves it optimal.  PySCIPOpt is imported only in the model.

Running time: NP-hard in general; per 4x4 board against SCIP's per-call floor in docs/bench.md.
Sources: PySCIPOpt (Maher et al., ICMS 2016; ``Model.chgLhs``, ``freeTransform``,
``optimizeNogil``); SCIP's parameters (``misc/usesymmetry``, ``presolving/maxrounds``).
"""

from __future__ import annotations

import time

from flipgame.backends.models import Model
from flipgame.backends.parameters import scip_settings
from flipgame.backends.result import Status
from flipgame.core.errors import OptionError
from flipgame.core.limits import TIME_LIMIT_DEFAULT_SECONDS
from flipgame.encode.chase import chase_rows
from flipgame.model.system import PressSystem

SMALL_MODEL_MAX_CELLS = 64
"""Up to this many cells SCIP runs without primal heuristics, cutting planes, conflict analysis or
symmetry detection (:data:`SMALL_MODEL_SETTINGS`, :data:`DIRECT_SMALL_SETTINGS`)."""
# SCIP's primal heuristics that run by default (the others have frequency -1 in SCIP 10, which
# OR-Tools 9.15 bundles): through OR-Tools each line of the settings string is parsed again on every solve.
_HEURISTICS = ("adaptivediving", "alns", "clique", "completesol", "conflictdiving", "crossover",
               "distributiondiving", "farkasdiving", "feaspump", "fracdiving", "gins", "guideddiving",
               "indicator", "indicatordiving", "intshifting", "linesearchdiving", "locks", "lpface", "mpec",
               "multistart", "nlpdiving", "objpscostdiving", "ofins", "oneopt", "padm", "pscostdiving",
               "randrounding", "rens", "reoptsols", "rins", "rootsoldiving", "rounding", "shiftandpropagate",
               "shifting", "simplerounding", "subnlp", "trivial", "trivialnegation", "trysol", "undercover",
               "vbounds", "veclendiving", "zirounding")
SMALL_MODEL_SETTINGS = {**{f"heuristics/{h}/freq": -1 for h in _HEURISTICS},
                        "separating/maxrounds": 0, "separating/maxroundsroot": 0, "conflict/enable": False}
"""SCIP settings for small models.  Measured on 4x4 (shared 2-core machine, CPU time): a solvable
board took 16-18 ms, nearly all of it in root cutting-plane rounds that close the gap in one node;
without cuts, heuristics and conflict analysis it takes 7.5-8 ms over about 7 nodes (2.5-3 ms over
16 nodes with the branching order of the models).  An Impossible board (found by the xor constraint
handler after presolve) is unchanged.  Checked against gauss on all 65536 4x4 boards and all 32768
boards of the 3x5 torus."""
DIRECT_SMALL_SETTINGS = {"misc/usesymmetry": 0, "misc/calcintegral": False}
"""Further settings for small models in SCIP directly: no symmetry detection (it runs in every
presolve; about a fifth of a 4x4 board's time) and no primal-dual integral.  OR-Tools cannot pass
``misc/usesymmetry`` (SCIP refuses it once a model was solved, and OR-Tools sets it on every solve)."""

SCIP_SETTINGS = {
    # No probing rounds in presolve: probing finds nothing in these small models.
    "propagating/probing/maxprerounds": 0,
    # SCIP must not swallow Ctrl-C (it would stop one board's solve as a time-out and the run
    # would go on); Python raises KeyboardInterrupt instead.
    "misc/catchctrlc": False,
    # One presolve round only: with SCIP's default presolve (SCIP 10) it proves a wrong optimum,
    # 7 instead of 6, for board 22032 of the 3x5 torus (found by `flipgame verify --size 3x5
    # --wrap`; a regression test keeps it).  No aggregation also fixes it but is 10x slower.
    "presolving/maxrounds": 1,
    # No statistics clocks: a clock per plugin call was 7-8 % of a 4x4 profile.
    "timing/statistictiming": False,
}
"""SCIP parameters of every model of ``ilp`` and ``mip``."""

FORMULATIONS = ("auto", "chase", "cells")
"""Rows of the persistent model: ``auto`` is ``chase`` on a plus grid without wrap of at most
:data:`CHASE_MAX_CELLS` cells, else ``cells``."""
CHASE_MAX_CELLS = 400
"""Largest board ``auto`` gives the chased rows.  A chased row holds up to ``cols + 2`` terms where a
cell's holds 6, so the model grows as ``n * cols``: measured (random solvable boards, goal white),
the chased model solves 14x14 in a third of the time and 20x20 alike, but takes 2.4 s to build at
80x80 against 1.4 s, and at 200x200 most of the default time limit."""


def scip_parameters(cells: int) -> dict:
    """The SCIP parameters of a model of ``cells`` cells: :data:`SCIP_SETTINGS`, and
    :data:`SMALL_MODEL_SETTINGS` up to :data:`SMALL_MODEL_MAX_CELLS` cells."""
    return {**SCIP_SETTINGS, **(SMALL_MODEL_SETTINGS if cells <= SMALL_MODEL_MAX_CELLS else {})}


class MipModel(Model):
    """What the persistent MIP models share: the time limit, the deadline of the canonical refinement,
    and the columns (presses ``0..m-1``, then the goal colour, then one slack per row)."""

    backend = "mip"

    def __init__(self, game: PressSystem, time_limit: float = TIME_LIMIT_DEFAULT_SECONDS):
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

    def _set_board(self, board: int) -> None:
        raise NotImplementedError

    def _minimise(self, board: int):
        self._set_board(board)
        self._fix_presses({})
        limit = self._board_seconds(self.time_limit)
        self._deadline = time.perf_counter() + limit
        status, presses, stats = self._solve(limit)
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


def _set_scip(mip, text: str) -> None:
    """SCIP parameters of ``text`` set on ``mip``; OptionError on an unknown name or a bad value."""
    for name, value in scip_settings(text).items():
        try:
            mip.setParam(name, value)
        except (KeyError, LookupError, TypeError, ValueError) as exc:
            raise OptionError(f"mip option scip_params (--scip-params): SCIP does not take {name}:{value} "
                              f"({exc})") from None


class ScipModel(MipModel):
    """The MIP in SCIP (PySCIPOpt), re-used across boards.

    Parameters
    ----------
    game : PressSystem
        Two states, goal any, white or black.
    time_limit : float
        Seconds per board; a time-out answers UNKNOWN.
    formulation : {"auto", "chase", "cells"}
        The rows (module docstring); ``chase`` needs a plus grid without wrap (ValueError otherwise).
    scip_params : str
        SCIP parameters ``name:value ...`` set last (:func:`flipgame.backends.parameters.scip_settings`);
        ``highs_params`` is for the HiGHS model and not read here.
    """

    def __init__(self, game: PressSystem, *, time_limit: float = TIME_LIMIT_DEFAULT_SECONDS, solver: str = "scip",
                 formulation: str = "cells", scip_params: str = "", highs_params: str = ""):
        super().__init__(game, time_limit)
        import pyscipopt

        self._sum = pyscipopt.quicksum
        m = self.mip = pyscipopt.Model()
        m.hideOutput()
        small = game.n <= SMALL_MODEL_MAX_CELLS
        m.setParams({**scip_parameters(game.n), **(DIRECT_SMALL_SETTINGS if small else {})})
        _set_scip(m, scip_params)
        n = game.m
        self.press = [m.addVar(f"press_{j}", vtype="B") for j in range(n)]
        self.colour = m.addVar("target_black", vtype="B", lb=self.colour_bounds[0], ub=self.colour_bounds[1])
        if formulation == "auto":
            formulation = "chase" if game.chaseable and game.n <= CHASE_MAX_CELLS else "cells"
        self.formulation = formulation
        self._chased = chase_rows(game) if formulation == "chase" else None
        self.rows = self._chase_rows() if self._chased else self._cell_rows()
        m.setObjective(self._sum(self.press), "minimize")
        m.chgVarBranchPriority(self.colour, n + 1)  # the colour, then the presses in cell order
        for j, v in enumerate(self.press):
            m.chgVarBranchPriority(v, n - j)

    def _cell_rows(self) -> list:
        """One row per cell, for the all-white board (right-hand sides 0)."""
        m, rows = self.mip, []
        for i, flips in enumerate(self.game.flippers):
            k = m.addVar(f"slack_{i}", vtype="I", lb=0, ub=(len(flips) + 1) // 2)
            rows.append(m.addCons(self._sum(self.press[j] for j in flips) - 2 * k - self.colour == 0,
                                  name=f"parity_{i}"))
        return rows

    def _chase_rows(self) -> list:
        """One row per chased form, right-hand sides 0 until the first board sets them."""
        m, chased, rows = self.mip, self._chased, []
        base = [*self.press[:chased.cols], self.colour]
        for r, form in enumerate(chased.rows):
            terms = [base[i] for i in chased.decisions(form)]
            if chased.cols + r < self.game.m:
                terms.append(self.press[chased.cols + r])
            k = m.addVar(f"slack_{r}", vtype="I", lb=0, ub=len(terms) // 2)
            rows.append(m.addCons(self._sum(terms) - 2 * k == 0, name=f"chase_{r}"))
        self._constants = (0,) * len(rows)
        return rows

    def _stop(self) -> None:
        self.mip.interruptSolve()

    def close(self) -> None:
        self.mip = None

    def _set_board(self, board: int) -> None:
        m = self.mip
        m.freeTransform()
        if self._chased is None:
            for i in self._changed_cells(board):
                rhs = -float(board >> i & 1)
                m.chgLhs(self.rows[i], rhs)
                m.chgRhs(self.rows[i], rhs)
            return
        new = self._chased.constants(board)
        for row, c, old in zip(self.rows, new, self._constants, strict=True):
            if c != old:
                m.chgLhs(row, float(c))
                m.chgRhs(row, float(c))
        self._constants = new

    def _press_bounds(self, j: int, lo: float, hi: float) -> None:
        self.mip.freeTransform()
        self.mip.chgVarLb(self.press[j], lo)
        self.mip.chgVarUb(self.press[j], hi)

    def _solve(self, seconds: float):
        m = self.mip
        m.setParam("limits/time", max(0.001, seconds))
        m.optimizeNogil()
        status = m.getStatus()
        stats = {"nodes": m.getNNodes(), "scip_status": status, "formulation": self.formulation}
        if status == "optimal":
            sol = m.getBestSol()
            return "optimal", sum(1 << j for j, v in enumerate(self.press) if m.getSolVal(sol, v) > 0.5), stats
        return ("infeasible" if status == "infeasible" else "unknown"), None, stats
