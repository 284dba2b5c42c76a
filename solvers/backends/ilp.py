"""``ilp``: integer linear programming, SCIP by default (through PySCIPOpt), HiGHS selectable (through OR-Tools).

Encoding.  Binary ``press_j`` (n), binary ``t`` (goal colour black; fixed when
the goal fixes it), and one integer slack per row.  Cell ``i`` ends at
colour ``t`` iff the number of presses flipping it plus its board bit has the
parity of ``t``::

    sum(press_j : press j flips i) + b_i = 2 k_i + t,   0 <= k_i <= (|N(i)| + 1) // 2

written as ``sum(press_j) - 2 k_i - t = -b_i``; minimise ``sum(press_j)``.
With SCIP on a plus grid without wrap, the rows are the chased ones instead
(:mod:`flipgame.backends.scip`): each press below the first row and each
last-row cell is one such parity row over the first row's presses and ``t``.
The model is built once per game; between boards only the right-hand sides
change.  SCIP runs the persistent model of :mod:`flipgame.backends.scip`
(PySCIPOpt); HiGHS, and every system beyond two states, go through OR-Tools'
``pywraplp``.

A number is returned only when the MIP solver proves it OPTIMAL; a time-out
(FEASIBLE or NOT_SOLVED) gives ``UNKNOWN``.  The solver libraries are imported
only in the models.

Running time: NP-hard in general; per 4x4 board against SCIP's per-call floor in docs/bench.md.
Source: OR-Tools linear solver documentation (``pywraplp``: ``CreateSolver``,
``Constraint.SetBounds``, ``SetTimeLimit``, ``InterruptSolve``); the
parity-as-slack formulation is standard (e.g. Wolsey, "Integer Programming",
1998, ch. 1).
"""

from __future__ import annotations

import time

from flipgame.backends.base import MEMORY_LIMIT, TIME_LIMIT, Option
from flipgame.backends.models import CountsModel, Model, ModelBackend
from flipgame.backends.result import Status
from flipgame.backends.scip import ScipModel, scip_parameters
from flipgame.core import extras
from flipgame.core.errors import RefusedError
from flipgame.core.limits import COUNTER_TARGET_MAX, MODEL_MAX_CELLS, TIME_LIMIT_DEFAULT_SECONDS
from flipgame.encode.congruence import CongruenceRows
from flipgame.model.system import PressSystem

SOLVERS = ("SCIP", "HIGHS")
BYTES_PER_CELL = 12_000
"""Peak memory of the SCIP model and one solve per cell (its row, slack and press variable), above
:data:`BASE_BYTES`.  Measured peak RSS above the 4x4 run's (63 MB), random solvable NxN boards,
goal white, 5 s limit: 67 MB at 50x50, 153 MB at 100x100, 314 MB at 150x150, 523 MB at 200x200
(12-13 KB per cell with the 5 entries of ``plus``, plus about 35 MB)."""
BYTES_PER_ENTRY = 340
"""Peak memory per non-zero of the press matrix (:attr:`~flipgame.model.system.PressSystem.entries`): a 15x15
stencil has up to 225 a row.  Measured peak RSS above an OR-Tools import, one build and a 5 s solve,
k x k stencils (idle 2-core machine): 40x40 with 3/11: 64/130 MB, 60x60 with 15: 308-310 MB (300 bytes
an entry gave estimates of 86/130/308 MB: no margin; with 340, 87/136/332 MB); with a 3 s solve the
peaks were 65/107/227 MB, and 200x200 with 15 reached 2.29 GB (estimate 3.3 GiB, refused at
``--memory-limit 1`` before building).  The search grows with the time given."""
BASE_BYTES = 64 << 20
"""Fixed part of the estimate: SCIP's plugins and buffers."""

def scip_settings_text(cells: int) -> str:
    """:func:`scip_parameters` in SCIP's settings-file syntax (what OR-Tools passes on)."""
    def value(v):
        return ("TRUE" if v else "FALSE") if isinstance(v, bool) else v
    return "".join(f"{k} = {value(v)}\n" for k, v in scip_parameters(cells).items())


def exact_parameters():
    """OR-Tools solve parameters asking for a proven optimum: a relative MIP gap of 0.  pywraplp's default
    gap is 1e-4 (``MPSolverParameters``), so above 10,000 presses a solution one press over the minimum was
    reported OPTIMAL (a counter system: 14,171 for 14,170; docs/general-game.md)."""
    from ortools.linear_solver import pywraplp

    params = pywraplp.MPSolverParameters()
    params.SetDoubleParam(pywraplp.MPSolverParameters.RELATIVE_MIP_GAP, 0.0)
    return params


def new_solver(solver: str, cells: int):
    """An OR-Tools ``pywraplp`` MIP solver with its output off and, for SCIP,
    :func:`scip_parameters` set.  OR-Tools is imported here.

    Raises
    ------
    RuntimeError
        OR-Tools was built without ``solver``, or SCIP rejects the parameters.
    """
    from ortools.linear_solver import pywraplp

    s = pywraplp.Solver.CreateSolver(solver)
    if s is None:
        raise RuntimeError(f"OR-Tools has no {solver} solver in this build")
    s.SuppressOutput()
    if solver == "HIGHS":
        s.SetSolverSpecificParametersAsString("output_flag=false\n")
    elif not s.SetSolverSpecificParametersAsString(scip_settings_text(cells)):
        raise RuntimeError("SCIP rejected the ilp parameter settings")
    return s


class IlpModel(Model):
    """The MIP of one game, re-used across boards by changing right-hand sides.

    Parameters
    ----------
    game : Game
    solver : {"SCIP", "HIGHS"}
    time_limit : float
        Seconds per board; a time-out answers UNKNOWN.

    Raises
    ------
    RuntimeError
        If OR-Tools was built without the chosen solver.
    """

    backend = "ilp"

    def __init__(self, game: PressSystem, *, solver: str = "SCIP", time_limit: float = TIME_LIMIT_DEFAULT_SECONDS):
        super().__init__(game)
        from ortools.linear_solver import pywraplp

        self._lp = pywraplp
        s = self.mip = new_solver(solver, game.n)
        self._params = exact_parameters()
        self._limit_ms = max(1, round(time_limit * 1000))
        self._deadline = 0.0
        s.SetTimeLimit(self._limit_ms)
        n = game.m
        self.press = [s.BoolVar(f"press_{j}") for j in range(n)]
        self.colour = s.BoolVar("target_black")
        if game.goal != "any":
            self.colour.SetBounds(*(2 * [float(game.goal == "black")]))
        self.rows = []
        for i in range(game.n):
            flips_i = game.flippers[i]
            k = s.IntVar(0, (len(flips_i) + 1) // 2, f"slack_{i}")
            row = s.Constraint(0, 0, f"parity_{i}")
            for j in flips_i:
                row.SetCoefficient(self.press[j], 1)
            row.SetCoefficient(k, -2)
            row.SetCoefficient(self.colour, -1)
            self.rows.append(row)
        # Branch on the goal colour first, then on the presses in cell order: once the colour
        # and the first row are fixed, the parity rows fix every other press (light chasing),
        # so a branch closes after a few nodes.
        self.colour.SetBranchingPriority(n + 1)
        for j, v in enumerate(self.press):
            v.SetBranchingPriority(n - j)
        self._fixed = False  # presses fixed by _solve_fixed?
        objective = s.Objective()
        for v in self.press:
            objective.SetCoefficient(v, 1)
        objective.SetMinimization()

    def _stop(self) -> None:
        self.mip.InterruptSolve()

    def _fix_presses(self, fixed: dict[int, int]) -> None:
        if not fixed and not self._fixed:
            return
        for i, v in enumerate(self.press):
            v.SetBounds(*((fixed[i], fixed[i]) if i in fixed else (0, 1)))
        self._fixed = bool(fixed)

    def _presses(self) -> int:
        return sum(1 << j for j, v in enumerate(self.press) if v.solution_value() > 0.5)

    def _minimise(self, board: int):
        for i in self._changed_cells(board):
            rhs = -float(board >> i & 1)
            self.rows[i].SetBounds(rhs, rhs)
        self._fix_presses({})
        lp, s = self._lp, self.mip
        limit = self._board_seconds(self._limit_ms / 1000)
        s.SetTimeLimit(max(1, round(limit * 1000)))
        self._deadline = time.perf_counter() + limit  # the board's, for the canonical refinement
        code = s.Solve(self._params)
        stats = {"nodes": s.nodes(), "wall_time": s.wall_time() / 1000}
        if code == lp.Solver.OPTIMAL:
            return Status.OPTIMAL, self._presses(), stats
        if code == lp.Solver.INFEASIBLE:
            return Status.INFEASIBLE, None, stats
        if code in (lp.Solver.ABNORMAL, lp.Solver.MODEL_INVALID, lp.Solver.UNBOUNDED):
            raise RuntimeError(f"MIP solver returned status {code} (abnormal, invalid or unbounded)")
        # FEASIBLE, NOT_SOLVED, and HiGHS's time-out code: no proof either way.
        return Status.UNKNOWN, None, stats

    def _solve_fixed(self, fixed: dict[int, int], weight: int) -> int | None:
        left = self._deadline - time.perf_counter()
        if left <= 0.001:
            raise TimeoutError("no proof within the time limit while choosing the canonical witness")
        self.mip.SetTimeLimit(max(1, round(left * 1000)))
        self._fix_presses(fixed)
        code = self.mip.Solve(self._params)
        if code == self._lp.Solver.OPTIMAL:
            return self._presses() if round(self.mip.Objective().Value()) == weight else None
        if code == self._lp.Solver.INFEASIBLE:
            return None
        raise TimeoutError("no proof within the time limit while choosing the canonical witness")


class IlpScipModel(ScipModel):
    """ilp's two-state model in SCIP: :class:`~flipgame.backends.scip.ScipModel` with the chased rows on a plus
    grid without wrap, one row per cell otherwise."""

    backend = "ilp"

    def __init__(self, game: PressSystem, *, time_limit: float = TIME_LIMIT_DEFAULT_SECONDS, solver: str = "SCIP"):
        super().__init__(game, time_limit=time_limit, formulation="auto")


class CountsIlpModel(CountsModel):
    """The MIP of a press system beyond two states (:class:`~flipgame.encode.congruence.CongruenceRows`),
    with the grid model's solver settings (:func:`new_solver`); only right-hand sides and, for
    counters, press bounds change between boards."""

    backend = "ilp"

    def __init__(self, system: PressSystem, *, solver: str = "SCIP", time_limit: float = 60.0):
        super().__init__(system)
        from ortools.linear_solver import pywraplp

        self._lp, self.rows = pywraplp, CongruenceRows(system)
        mip = self.mip = new_solver(solver, system.cells)
        self._params = exact_parameters()
        self.x = [mip.IntVar(0, u, f"x{j}") for j, u in enumerate(self.rows.top)]
        g = mip.IntVar(0, system.states - 1, "goal") if self.rows.goal is None else 0
        self.constraints = []
        for i, terms in enumerate(self.rows.terms):
            lhs = sum(c * self.x[j] for j, c in terms) - g
            if self.rows.slack is not None:
                lhs = lhs - system.states * mip.IntVar(*self.rows.slack[i], f"s{i}")
            self.constraints.append(mip.Add(lhs == 0))
        mip.Minimize(sum(self.x))
        mip.SetTimeLimit(max(1, round(time_limit * 1000)))

    def _stop(self) -> None:
        self.mip.InterruptSolve()

    def _minimise(self, board):
        bounds = self.rows.bounds(board)
        if bounds is None:
            return Status.INFEASIBLE, None, {"reason": "a counter is above its target"}
        for row, r in zip(self.constraints, self.rows.rhs(board), strict=True):
            row.SetBounds(r, r)
        if self.system.states is None:
            for v, u in zip(self.x, bounds, strict=True):
                v.SetUb(u)
        code = self.mip.Solve(self._params)
        stats = {"nodes": self.mip.nodes()}
        if code == self._lp.Solver.OPTIMAL:
            return Status.OPTIMAL, tuple(int(round(v.solution_value())) for v in self.x), stats
        if code == self._lp.Solver.INFEASIBLE:
            return Status.INFEASIBLE, None, stats
        return Status.UNKNOWN, None, stats


def _target_refusal(game: PressSystem) -> str | None:
    """Why ilp declines a counter system whose goal is over :data:`COUNTER_TARGET_MAX`, or None.  O(n)."""
    if game.states is not None:
        return None
    top = max(max(t) for t in game.targets)
    if top <= COUNTER_TARGET_MAX:
        return None
    return (f"ilp takes counter targets up to {COUNTER_TARGET_MAX:,} (a MIP's rows hold within 1e-6 of their "
            f"right-hand side, relative to it: past that, within a press or more); this goal has {top:,}")


class Ilp(ModelBackend):
    """OR-Tools MIP backend; see the module docstring.

    >>> from flipgame import solve
    >>> solve(["bwwb", "bbwb", "bwwb", "bwww"], "ilp").moves
    4
    """

    name = "ilp"
    summary = "MIP (SCIP, or HiGHS through OR-Tools): parity as sum = 2k + t, minimise presses"
    max_cells = MODEL_MAX_CELLS
    model = IlpModel
    counts_model = CountsIlpModel
    options = (
        TIME_LIMIT,
        Option("solver", str, "SCIP", "MIP solver for ilp", choices=SOLVERS, flag="--mip-solver", fuzz=True),
        MEMORY_LIMIT,
    )

    def model_class(self, options: dict) -> type[Model]:
        """SCIP's persistent model through PySCIPOpt (:class:`IlpScipModel`, with the extra ``mip``), else
        OR-Tools' own (:class:`IlpModel`: HiGHS, or the SCIP built into OR-Tools, in the core install)."""
        scip = options.get("solver", "SCIP") == "SCIP"
        return IlpScipModel if scip and extras.installed("pyscipopt") else IlpModel

    def refusal(self, game: PressSystem, options: dict) -> str | None:
        return super().refusal(game, options) or _target_refusal(game)

    def refusal_error(self, game: PressSystem, options: dict) -> type[Exception]:
        if super().refusal(game, options) is None and _target_refusal(game):
            return RefusedError
        return super().refusal_error(game, options)

    def estimate_bytes(self, game: PressSystem, options: dict) -> int:
        """:data:`BASE_BYTES` + :data:`BYTES_PER_CELL` per cell + :data:`BYTES_PER_ENTRY` per non-zero of the
        press matrix (cells x neighbourhood, clipped at the edges); O(|offsets|), nothing built."""
        return BASE_BYTES + BYTES_PER_CELL * game.n + BYTES_PER_ENTRY * game.entries
