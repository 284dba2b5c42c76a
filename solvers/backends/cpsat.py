"""``cpsat``: OR-Tools CP-SAT minimisation.

Encoding.  One Boolean ``press_j`` per cell and one Boolean ``t`` for the goal
colour (free for the goal "any", fixed for ``white``/``black``).  Cell ``i``
ends at colour ``t`` iff the presses flipping it and its board bit ``b_i`` have
the parity of ``t``.  Three formulations (option ``formulation``):

``chase`` (``auto`` on plus boards without wrap)
    The chased rows of :mod:`flipgame.encode.chase`: the first row's presses and
    ``t`` are the decisions, every other press is tied to its light-chasing form
    by one ``AddBoolXOr``, and each last-row cell gives one more.  A board
    changes only each row's constant, the sign of a literal fixed to 0.
``xor`` (``auto`` otherwise)
    One ``AddBoolXOr`` per cell: ``XOR(press_j : j flips i) ^ t = b_i``, written
    as the literals ``press_j..., t`` when ``b_i = 1`` and ``press_j..., NOT t``
    when ``b_i = 0`` (a BoolXor constraint asks for odd parity).
``linear``
    The MIP's parity row, ``sum(press_j : j flips i) - 2 k_i - t = -b_i`` with
    an integer ``k_i``, for CP-SAT's LP relaxation.  Measured slower: the
    POJ 1681 14x14 case (89 presses) is ``Unknown`` after 30 s.

The objective is ``minimise sum(press_j)``.  The model is built once per game;
between boards only the rows whose constant changed are rewritten in the
model's protobuf, so a board costs no variables.  A time-out (FEASIBLE or
UNKNOWN) is ``UNKNOWN``: a number is only given when CP-SAT proves it optimal.

Running time: NP-hard in general; per 4x4 board against the library's own
per-call floor in docs/bench.md.
Source: OR-Tools CP-SAT documentation, "Boolean constraints" (AddBoolXOr),
"Solving a CP-SAT model" (solver parameters, statuses, StopSearch).
"""

from __future__ import annotations

import time

from flipgame.backends.base import MEMORY_LIMIT, TIME_LIMIT, Option
from flipgame.backends.models import CountsModel, Model, ModelBackend
from flipgame.backends.parameters import CPSAT_FUZZ, set_cpsat
from flipgame.backends.result import Status
from flipgame.core.errors import RulesError
from flipgame.core.limits import MODEL_MAX_CELLS, TIME_LIMIT_DEFAULT_SECONDS
from flipgame.encode.chase import chase_rows
from flipgame.encode.congruence import CongruenceRows
from flipgame.model.system import PressSystem

FIXED_SEARCH_MAX_CELLS = 64
"""Up to this many cells, search the presses in order without presolve (measured faster to 8x8)."""
SMALL_MODEL_PARAMETERS = {"use_sat_inprocessing": False, "linearization_level": 0, "symmetry_level": 0,
                          "cp_model_probing_level": 0}
"""CP-SAT parameters for models of at most :data:`FIXED_SEARCH_MAX_CELLS` cells (no LP, no symmetry
detection, no probing, no inprocessing): the search stays complete, only per-solve overhead goes."""
BYTES_PER_CELL = 6_000
"""Peak memory of the model and one solve, per cell.  Measured peak RSS above the 4x4 run's (100 MB),
random solvable NxN boards, goal white, 5 s limit: 13 MB at 50x50, 44 MB at 100x100, 93 MB at
150x150, 161 MB at 200x200 (4.0-5.3 KB per cell with the 5 entries of ``plus``)."""
BYTES_PER_ENTRY = 150
"""Peak memory per non-zero of the press matrix (a literal of an XOR or linear row) per search
worker.  Measured peak RSS above an OR-Tools import, one build and a 3 s solve, k x k stencils:
40x40 with 3/7/11: 17/18/22 MB (estimates 27/35/49 MB with :data:`BASE_BYTES`); 60x60 with 15:
64 MB (estimate 138 MB): about 80 bytes per entry."""
BASE_BYTES = 16 << 20
"""Fixed part of the estimate."""


FORMULATIONS = ("auto", "chase", "xor", "linear")
"""The ``formulation`` option's values."""


class CpSatModel(Model):
    """The CP-SAT model of one game, built once: a board changes only the constants of its rows.

    Parameters
    ----------
    game : Game
    time_limit : float
        Seconds per board; when it expires the answer is UNKNOWN.
    workers : int
        CP-SAT search workers per solve (1 is fastest on small boards;
        parallelism across boards comes from worker processes instead).
    formulation : {"auto", "chase", "xor", "linear"}
    params : str
        CP-SAT parameters ``name:value ...`` set last (:func:`flipgame.backends.parameters.set_cpsat`).
    """

    backend = "cpsat"

    def __init__(self, game: PressSystem, *, time_limit: float = TIME_LIMIT_DEFAULT_SECONDS, workers: int = 1,
                 formulation: str = "auto", params: str = ""):
        super().__init__(game)
        from ortools.sat.python import cp_model

        self._cp = cp_model
        if formulation == "auto":
            formulation = "chase" if game.chaseable else "xor"
        if formulation == "chase" and not game.chaseable:
            raise RulesError("cpsat formulation chase needs the plus neighbourhood without wrap")
        self.formulation = formulation
        m = self.model = cp_model.CpModel()
        self.press = [m.new_bool_var(f"press_{j}") for j in range(game.m)]
        self.colour = m.new_bool_var("target_black")
        if game.goal != "any":
            m.add(self.colour == (game.goal == "black"))
        rows = self._chase_rows(m) if formulation == "chase" else self._cell_rows(m, formulation)
        small = game.m <= FIXED_SEARCH_MAX_CELLS
        if small:
            # Branching on the decisions in order, min value first, without presolve, is faster
            # than the default on small boards; the search stays complete.
            order = [*self.press[:game.cols], self.colour] if formulation == "chase" else self.press
            m.add_decision_strategy(order, cp_model.CHOOSE_FIRST, cp_model.SELECT_MIN_VALUE)
        # A small board is first decided by the same constraints without the objective (see
        # _minimise): the decision model is a copy taken before the objective is added.
        self._decide = m.clone() if small else None
        m.minimize(sum(self.press))
        models = [m] if self._decide is None else [m, self._decide]
        linear = formulation == "linear"
        self._rows = [[_row(x.proto.constraints[c], linear) for x in models] for c in rows]
        self._fixed = False  # presses fixed by _solve_fixed?
        self._press_domains = [m.proto.variables[v.index].domain for v in self.press]
        self.solver = cp_model.CpSolver()
        self._parameters(workers, time_limit, small)
        set_cpsat(self.solver.parameters, params)

    def _cell_rows(self, m, formulation: str) -> list[int]:
        """One row per cell (xor or linear), for the all-white board; the constraint indices."""
        rows = []
        for i in range(self.game.n):
            flips_i = [self.press[j] for j in self.game.flippers[i]]
            if formulation == "xor":  # b_i = 0: the literals press_j..., NOT t (a BoolXor asks for odd parity)
                rows.append(m.add_bool_xor([*flips_i, ~self.colour]).index)
            else:
                k = m.new_int_var(0, (len(flips_i) + 1) // 2, f"k_{i}")
                rows.append(m.add(sum(flips_i) - 2 * k - self.colour == 0).index)
        t = self.colour.index  # each XOR's last literal is t (b_i = 1) or NOT t, which the protobuf writes -t - 1
        self._signs = (-t - 1, t)
        return rows

    def _chase_rows(self, m) -> list[int]:
        """The chased rows (:mod:`flipgame.encode.chase`), each ending in a sign literal: NOT z for a
        constant 0, z for 1, where z is fixed to 0; the constraint indices."""
        chased = self._chased = chase_rows(self.game)
        base, cols = [*self.press[:chased.cols], self.colour], chased.cols
        zero = m.new_bool_var("zero")
        m.add(zero == 0)
        rows = []
        for r, form in enumerate(chased.rows):
            lits = [base[i] for i in chased.decisions(form)]
            if cols + r < self.game.m:
                lits.append(self.press[cols + r])
            rows.append(m.add_bool_xor([*lits, ~zero]).index)
        self._signs = (-zero.index - 1, zero.index)
        self._constants = (0,) * len(rows)
        return rows

    def _parameters(self, workers: int, time_limit: float, small: bool) -> None:
        params = self.solver.parameters
        params.num_workers = workers
        params.max_time_in_seconds = time_limit
        params.random_seed = 0
        params.catch_sigint_signal = False  # Ctrl-C is ours: it stops the run, not one board's search
        self.time_limit = time_limit
        if small:
            params.search_branching = self._cp.FIXED_SEARCH
            params.cp_model_presolve = False
            # Fixed per-solve work that finds nothing in a model this small.
            for name, value in SMALL_MODEL_PARAMETERS.items():
                setattr(params, name, value)

    def _stop(self) -> None:
        """Nothing: measured, ``stop_search`` from another thread makes OR-Tools abort the process at exit
        ("terminate called without an active exception"); the solver thread is a daemon and ends with it."""

    def _fix_presses(self, fixed: dict[int, int]) -> None:
        if not fixed and not self._fixed:
            return
        for i, dom in enumerate(self._press_domains):
            dom[0], dom[1] = (fixed[i], fixed[i]) if i in fixed else (0, 1)
        self._fixed = bool(fixed)

    def _presses(self) -> int:
        return sum(1 << j for j, v in enumerate(self.press) if self.solver.boolean_value(v))

    def _set_board(self, board: int) -> None:
        """Write ``board`` into the rows (of both models) whose constant differs from the last board's."""
        if self.formulation == "chase":
            new = self._chased.constants(board)
            signs = self._signs
            for i, (bit, old) in enumerate(zip(new, self._constants, strict=True)):
                if bit != old:
                    for row, last in self._rows[i]:
                        row[last] = signs[bit]
            self._constants = new
            return
        xor = self.formulation == "xor"
        for i in self._changed_cells(board):
            bit = board >> i & 1
            for row, last in self._rows[i]:
                if xor:
                    row[last] = self._signs[bit]
                else:
                    row[0] = row[1] = -bit

    def _minimise(self, board: int):
        """Decide, then minimise.  On a small board the decision model (no objective) answers
        first: most boards of a game of nullity k are Impossible (all but 2**-k of them),
        and CP-SAT proves that without the objective in less time than with it, while a solvable
        board pays one more call (4x4: docs/bench.md)."""
        self._set_board(board)
        self._fix_presses({})
        cp, s = self._cp, self.solver
        start, limit = time.perf_counter(), self._board_seconds(self.time_limit)
        self._deadline = start + limit  # the board's: the canonical refinement spends what is left
        stats = {"formulation": self.formulation}
        s.parameters.max_time_in_seconds = limit
        if self._decide is not None:
            code = s.solve(self._decide)
            stats.update(conflicts=s.num_conflicts, branches=s.num_branches, wall_time=s.wall_time)
            if code == cp.INFEASIBLE:
                return Status.INFEASIBLE, None, stats
            if code != cp.OPTIMAL:  # a model without objective reports a solution as OPTIMAL
                return Status.UNKNOWN, None, stats
            s.parameters.max_time_in_seconds = max(limit - (time.perf_counter() - start), 0.001)
        code = s.solve(self.model)
        for key, value in (("conflicts", s.num_conflicts), ("branches", s.num_branches),
                           ("wall_time", s.wall_time)):
            stats[key] = stats.get(key, 0) + value
        if code == cp.OPTIMAL:
            return Status.OPTIMAL, self._presses(), stats
        if code == cp.INFEASIBLE:
            return Status.INFEASIBLE, None, stats
        if code in (cp.FEASIBLE, cp.UNKNOWN):
            return Status.UNKNOWN, None, stats
        raise RuntimeError(f"CP-SAT returned {s.status_name(code)}")

    def _solve_fixed(self, fixed: dict[int, int], weight: int) -> int | None:
        """A press set of ``weight`` presses agreeing with ``fixed``, within what is left of the board's time
        limit (a --canonical answer took 3.08 s at a 2 s limit when each call had the whole limit)."""
        left = self._deadline - time.perf_counter()
        if left <= 0:
            raise TimeoutError("time limit reached while choosing the canonical witness")
        self.solver.parameters.max_time_in_seconds = left
        self._fix_presses(fixed)
        code = self.solver.solve(self.model)
        if code == self._cp.OPTIMAL:
            return self._presses() if round(self.solver.objective_value) == weight else None
        if code == self._cp.INFEASIBLE:
            return None
        raise TimeoutError("time limit reached while choosing the canonical witness")


def _row(constraint, linear: bool) -> tuple:
    """A row's field the boards rewrite: (its domain, 0) for a linear row, else (its literals, the index of the
    sign literal, the last)."""
    if linear:
        return constraint.linear.domain, 0
    literals = constraint.bool_xor.literals
    return literals, len(literals) - 1


class CountsCpSatModel(CountsModel):
    """The CP-SAT model of a press system beyond two states (:class:`~flipgame.encode.congruence.CongruenceRows`);
    only right-hand sides and, for counters, press bounds change between boards."""

    backend = "cpsat"

    def __init__(self, system: PressSystem, *, time_limit: float = 60.0, workers: int = 1, formulation: str = "auto",
                 params: str = ""):
        super().__init__(system)
        from ortools.sat.python import cp_model

        self._cp, self.rows = cp_model, CongruenceRows(system)
        m = self.model = cp_model.CpModel()
        self.x = [m.new_int_var(0, u, f"x{j}") for j, u in enumerate(self.rows.top)]
        g = m.new_int_var(0, system.states - 1, "goal") if self.rows.goal is None else 0
        rows = []
        for i, terms in enumerate(self.rows.terms):
            lhs = sum(c * self.x[j] for j, c in terms) - g
            if self.rows.slack is not None:
                lhs = lhs - system.states * m.new_int_var(*self.rows.slack[i], f"s{i}")
            if isinstance(lhs, int):  # a cell no button changes: the constant row "0 = rhs", one variable
                lhs = m.new_int_var(0, 0, f"none{i}")
            rows.append(m.add(lhs == 0).index)
        m.minimize(sum(self.x))
        self.domains = [m.proto.constraints[c].linear.domain for c in rows]
        self.press_domains = [m.proto.variables[v.index].domain for v in self.x]
        self.solver = cp_model.CpSolver()
        settings = self.solver.parameters
        settings.max_time_in_seconds, settings.num_workers = time_limit, workers
        settings.catch_sigint_signal = False  # Ctrl-C is ours: it stops the run, not one board's search
        if system.cells <= FIXED_SEARCH_MAX_CELLS and system.states is not None:
            # Not for counters: without the LP relaxation (linearization level 0) CP-SAT proved no optimum
            # in 10 s for one counter of 76,988 and buttons adding 7, 5, 3 and 1, which it proves in
            # 10 ms with it (docs/general-game.md).
            for name, value in SMALL_MODEL_PARAMETERS.items():
                setattr(settings, name, value)
        set_cpsat(settings, params)

    def _minimise(self, board):
        bounds = self.rows.bounds(board)
        if bounds is None:
            return Status.INFEASIBLE, None, {"reason": "a counter is above its target"}
        for dom, r in zip(self.domains, self.rows.rhs(board), strict=True):
            dom[0] = dom[1] = r
        if self.system.states is None:
            for dom, u in zip(self.press_domains, bounds, strict=True):
                dom[1] = u
        code = self.solver.solve(self.model)
        stats = {"branches": self.solver.num_branches, "conflicts": self.solver.num_conflicts}
        if code == self._cp.OPTIMAL:
            return Status.OPTIMAL, tuple(int(self.solver.value(v)) for v in self.x), stats
        if code == self._cp.INFEASIBLE:
            return Status.INFEASIBLE, None, stats
        return Status.UNKNOWN, None, stats


class CpSat(ModelBackend):
    """OR-Tools CP-SAT backend; see the module docstring.

    >>> from flipgame import solve
    >>> solve(["bwwb", "bbwb", "bwwb", "bwww"], "cpsat").moves
    4
    """

    name = "cpsat"
    summary = "OR-Tools CP-SAT: XOR or linear parity constraints, minimise presses"
    max_cells = MODEL_MAX_CELLS
    model = CpSatModel
    counts_model = CountsCpSatModel
    options = (
        TIME_LIMIT,
        Option("workers", int, 1, "CP-SAT search workers per board", minimum=1, maximum=64,
               flag="--cpsat-workers", fuzz=(1, 2)),
        Option("formulation", str, "auto", "auto: chase on plus boards without wrap, else xor; chase: the first "
               "row decides, every other press is an XOR of it by light chasing; xor: one XOR per cell; linear: "
               "rows with a slack (measured slower)", choices=FORMULATIONS, flag="--cpsat-formulation",
               fuzz=("auto", "xor", "linear")),
        Option("params", str, "", "CP-SAT parameters NAME:VALUE separated by spaces, set after flipgame's own "
               "(OR-Tools sat_parameters.proto; gaps, stops and limits are refused)", flag="--cpsat-params",
               fuzz=CPSAT_FUZZ, fuzz_many=True),
        MEMORY_LIMIT,
    )

    def estimate_bytes(self, game: PressSystem, options: dict) -> int:
        """:data:`BASE_BYTES` + :data:`BYTES_PER_CELL` per cell + :data:`BYTES_PER_ENTRY` per non-zero of the
        press matrix and search worker (each worker holds its own copy); O(|offsets|), nothing built."""
        workers = options.get("workers", 1)
        return BASE_BYTES + BYTES_PER_CELL * game.n + BYTES_PER_ENTRY * game.entries * workers
