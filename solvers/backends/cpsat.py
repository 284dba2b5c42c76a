"""``cpsat``: OR-Tools CP-SAT minimisation.

Encoding.  One Boolean ``press_j`` per cell and one Boolean ``t`` for the goal
colour (free for the goal "any", fixed for ``white``/``black``).  Cell ``i``
ends at colour ``t`` iff the presses flipping it and its board bit ``b_i`` have
the parity of ``t``.  Two formulations (option ``formulation``):

``xor``
    One ``AddBoolXOr`` per cell: ``XOR(press_j : j flips i) ^ t = b_i``, written
    as the literals ``press_j..., t`` when ``b_i = 1`` and ``press_j..., NOT t``
    when ``b_i = 0`` (a BoolXor constraint asks for odd parity).
``linear``
    The MIP's parity row, ``sum(press_j : j flips i) - 2 k_i - t = -b_i`` with
    an integer ``k_i``, for CP-SAT's LP relaxation.  Measured slower: the
    POJ 1681 14x14 case (89 presses) takes 3.4 s with ``xor`` and is
    ``Unknown`` after 30 s with ``linear``; neither proves the 18x18 case of the
    backend-scaling issue (176) in 20 s, with any of linearization level 2,
    2 workers or extra cuts.

``xor`` is the default.  The objective is ``minimise sum(press_j)``.  The model is
built once per game; between boards only the sign of ``t`` in each XOR (or
each row's right-hand side) changes in the model's protobuf, so the board costs
no variables.  Measured on 4x4 (CPU per Impossible board): 0.9 ms with the
board as 16 fixed variables, 0.55-0.7 ms without.  A time-out (FEASIBLE or UNKNOWN) is ``UNKNOWN``: a number
is only given when CP-SAT proves it optimal.

Running time: NP-hard in general; about 0.5 ms per 4x4 board with one worker (CPU time:
0.37 ms Impossible, 0.75-0.95 ms solvable).
Source: OR-Tools CP-SAT documentation, "Boolean constraints" (AddBoolXOr),
"Solving a CP-SAT model" (solver parameters, statuses, StopSearch).
"""

from __future__ import annotations

import time

from flipgame.backends.base import MEMORY_LIMIT, TIME_LIMIT, CountsModel, Model, ModelBackend, Option
from flipgame.backends.result import Status
from flipgame.core.errors import RulesError
from flipgame.core.limits import MODEL_MAX_CELLS
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


def chase_forms(game: PressSystem, board: int) -> tuple[list[int], list[int]]:
    """Light chasing over affine forms: ``(press forms, last-row forms)``.

    A form is an int: bit ``c < cols`` = first-row press ``c``; bit ``cols`` = the goal colour
    ``t``; bit ``cols + 1`` = the constant 1.  Press ``(r+1, c)`` must flip cell ``(r, c)`` to the
    goal: its form is the XOR of the forms of the other presses flipping that cell, the cell's
    board bit and the colour.  The last row's cells give the conditions (forms that must be 0).
    Built from the press masks' geometry alone (no elimination).  O(n) big-int XORs of cols + 2 bits.
    """
    rows, cols = game.rows, game.cols
    colour = {"any": 1 << cols, "white": 0, "black": 1 << (cols + 1)}[game.goal]
    one = 1 << (cols + 1)
    form = [1 << c for c in range(cols)] + [0] * (game.n - cols)

    def cell(r: int, c: int) -> int:
        acc = (one if board >> (r * cols + c) & 1 else 0) ^ colour
        for rr, cc in ((r, c), (r - 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= rr < rows and 0 <= cc < cols:
                acc ^= form[rr * cols + cc]
        return acc

    for r in range(rows - 1):
        for c in range(cols):
            form[(r + 1) * cols + c] = cell(r, c)
    return form, [cell(rows - 1, c) for c in range(cols)]


def build_chase(cp_model, game: PressSystem, board: int):
    """The chase model of one board: ``(model, press literals)``; minimise presses.

    First-row presses and the colour are the decisions; press ``j`` below the first row is a
    Boolean tied to its form by one ``BoolXor``; each last-row condition is one ``BoolXor``.
    """
    cols = game.cols
    m = cp_model.CpModel()
    first = [m.new_bool_var(f"press_{c}") for c in range(cols)]
    colour = m.new_bool_var("target_black")
    if game.goal != "any":
        m.add(colour == (game.goal == "black"))
    base = [*first, colour]

    def xor(form: int, extra: list) -> None:  # XOR(form's variables, extra) = form's constant
        lits = [base[i] for i in range(cols + 1) if form >> i & 1] + extra
        odd = bool(form >> (cols + 1) & 1)
        if not lits:
            if odd:
                m.add_bool_or([])  # 1 = 0: no press set
            return
        m.add_bool_xor(lits if odd else [*lits[:-1], ~lits[-1]])

    forms, last = chase_forms(game, board)
    press = list(first)
    for j in range(cols, game.n):
        p = m.new_bool_var(f"press_{j}")
        xor(forms[j], [p])
        press.append(p)
    for f in last:
        xor(f, [])
    m.minimize(sum(press))
    return m, press


class CpSatModel(Model):
    """The CP-SAT model of one game.

    Parameters
    ----------
    game : Game
    time_limit : float
        Seconds per board; when it expires the answer is UNKNOWN.
    workers : int
        CP-SAT search workers per solve (1 is fastest on small boards;
        parallelism across boards comes from worker processes instead).
    formulation : {"xor", "linear"}
    """

    backend = "cpsat"

    def __init__(self, game: PressSystem, *, time_limit: float = 10.0, workers: int = 1, formulation: str = "auto"):
        super().__init__(game)
        from ortools.sat.python import cp_model

        self._cp = cp_model
        if formulation == "auto":
            formulation = "chase" if game.chaseable and game.n > FIXED_SEARCH_MAX_CELLS else "xor"
        if formulation == "chase" and not game.chaseable:
            raise RulesError("cpsat formulation chase needs the plus neighbourhood without wrap")
        self.formulation = formulation
        self._chase = None  # (model, presses) of the last board, for the chase formulation
        formulation = "xor" if formulation == "chase" else formulation  # the base model is built either way
        m = self.model = cp_model.CpModel()
        n = game.m
        self.press = [m.new_bool_var(f"press_{j}") for j in range(n)]
        self.colour = m.new_bool_var("target_black")
        if game.goal != "any":
            m.add(self.colour == (game.goal == "black"))
        rows = []
        for i in range(game.n):
            flips_i = [self.press[j] for j in game.flippers[i]]
            if formulation == "xor":  # the board of all-white cells until _set_board
                rows.append(m.add_bool_xor([*flips_i, ~self.colour]).index)
            else:
                k = m.new_int_var(0, (len(flips_i) + 1) // 2, f"k_{i}")
                rows.append(m.add(sum(flips_i) - 2 * k - self.colour == 0).index)
        small = n <= FIXED_SEARCH_MAX_CELLS
        if small:
            # Branching on the presses in order, min value first, without presolve,
            # is faster than the default on small boards; the search stays complete.
            m.add_decision_strategy(self.press, cp_model.CHOOSE_FIRST, cp_model.SELECT_MIN_VALUE)
        # A small board is first decided by the same constraints without the objective (see
        # _minimise): the decision model is a copy taken before the objective is added.
        self._decide = m.clone() if small else None
        m.minimize(sum(self.press))
        t = self.colour.index
        models = [m] if self._decide is None else [m, self._decide]
        if formulation == "xor":
            # Each row's last literal is t (b_i = 1) or NOT t, which the protobuf writes -t - 1.
            self._rows = [[x.proto.constraints[c].bool_xor.literals for x in models] for c in rows]
            self._signs = (-t - 1, t)
        else:
            self._rows = [[x.proto.constraints[c].linear.domain for x in models] for c in rows]
        self._fixed = False  # presses fixed by _solve_fixed?
        self._press_domains = [m.proto.variables[v.index].domain for v in self.press]
        self.solver = cp_model.CpSolver()
        params = self.solver.parameters
        params.num_workers = workers
        params.max_time_in_seconds = time_limit
        params.random_seed = 0
        params.catch_sigint_signal = False  # Ctrl-C is ours: it stops the run, not one board's search
        self.time_limit = time_limit
        if small:
            params.search_branching = cp_model.FIXED_SEARCH
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
        press = self.press if self._chase is None else self._chase[1]
        return sum(1 << j for j, v in enumerate(press) if self.solver.boolean_value(v))

    def _set_board(self, board: int) -> None:
        """Write ``board``'s bits into the rows (of both models) whose bit differs from the last board's."""
        xor = self.formulation == "xor"
        for i in self._changed_cells(board):
            bit = board >> i & 1
            for row in self._rows[i]:
                if xor:
                    row[len(row) - 1] = self._signs[bit]
                else:
                    row[0] = row[1] = -bit

    def _minimise(self, board: int):
        """Decide, then minimise.  On a small board the decision model (no objective) answers
        first: most boards of a game of nullity k are Impossible (all but 2**-k of them),
        and CP-SAT proves that in 0.37 ms without the objective against 0.52-0.66 ms with it
        (4x4, CPU time, 3000 Impossible boards, same 31 conflicts); a solvable board pays
        about 0.2 ms more (0.5-0.8 ms -> 0.74-0.97 ms)."""
        if self.formulation == "chase":
            self._deadline = time.perf_counter() + self.time_limit
            return self._minimise_chase(board)
        self._set_board(board)
        self._fix_presses({})
        cp, s = self._cp, self.solver
        start = time.perf_counter()
        self._deadline = start + self.time_limit  # the board's: the canonical refinement spends what is left
        stats = {"formulation": self.formulation}
        if self._decide is not None:
            s.parameters.max_time_in_seconds = self.time_limit
            code = s.solve(self._decide)
            stats.update(conflicts=s.num_conflicts, branches=s.num_branches, wall_time=s.wall_time)
            if code == cp.INFEASIBLE:
                return Status.INFEASIBLE, None, stats
            if code != cp.OPTIMAL:  # a model without objective reports a solution as OPTIMAL
                return Status.UNKNOWN, None, stats
            s.parameters.max_time_in_seconds = max(self.time_limit - (time.perf_counter() - start), 0.001)
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

    def _minimise_chase(self, board: int):
        """One board by the chase formulation, built for this board (O(n) XOR constraints).  Measured
        (shared 2-core machine, 1 worker): the 18x18 unique-solution board 0.17 s, random 20x20
        0.2 s (goal white, 192), random 30x30 Impossible in 0.5-0.7 s; with the ``xor``
        formulation all three are Unknown after 10 s."""
        cp, s = self._cp, self.solver
        self._chase = build_chase(cp, self.game, board)
        s.parameters.max_time_in_seconds = self.time_limit
        code = s.solve(self._chase[0])
        stats = {"formulation": "chase", "conflicts": s.num_conflicts, "branches": s.num_branches,
                 "wall_time": s.wall_time}
        if code == cp.OPTIMAL:
            return Status.OPTIMAL, self._presses(), stats
        if code == cp.INFEASIBLE:
            return Status.INFEASIBLE, None, stats
        return Status.UNKNOWN, None, stats

    def _solve_fixed(self, fixed: dict[int, int], weight: int) -> int | None:
        """A press set of ``weight`` presses agreeing with ``fixed``, within what is left of the board's time
        limit (a --canonical answer took 3.08 s at a 2 s limit when each call had the whole limit)."""
        left = self._deadline - time.perf_counter()
        if left <= 0:
            raise TimeoutError("time limit reached while choosing the canonical witness")
        self.solver.parameters.max_time_in_seconds = left
        if self._chase is not None:
            m, press = self._chase
            m = m.clone()
            for i, v in fixed.items():
                m.add(m.get_bool_var_from_proto_index(press[i].index) == v)
            m.add(sum(m.get_bool_var_from_proto_index(p.index) for p in press) == weight)
            m.clear_objective()
            code = self.solver.solve(m)
            if code == self._cp.OPTIMAL:
                return self._presses()
            if code == self._cp.INFEASIBLE:
                return None
            raise TimeoutError("time limit reached while choosing the canonical witness")
        self._fix_presses(fixed)
        code = self.solver.solve(self.model)
        if code == self._cp.OPTIMAL:
            return self._presses() if round(self.solver.objective_value) == weight else None
        if code == self._cp.INFEASIBLE:
            return None
        raise TimeoutError("time limit reached while choosing the canonical witness")


class CountsCpSatModel(CountsModel):
    """The CP-SAT model of a press system beyond two states (:class:`~flipgame.encode.congruence.CongruenceRows`);
    only right-hand sides and, for counters, press bounds change between boards."""

    backend = "cpsat"

    def __init__(self, system: PressSystem, *, time_limit: float = 60.0, workers: int = 1, formulation: str = "auto"):
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
        params = self.solver.parameters
        params.max_time_in_seconds, params.num_workers = time_limit, workers
        params.catch_sigint_signal = False  # Ctrl-C is ours: it stops the run, not one board's search
        if system.cells <= FIXED_SEARCH_MAX_CELLS and system.states is not None:
            # Not for counters: without the LP relaxation (linearization level 0) CP-SAT proved no optimum
            # in 10 s for one counter of 76,988 and buttons adding 7, 5, 3 and 1, which it proves in
            # 10 ms with it (docs/general-game.md).
            for name, value in SMALL_MODEL_PARAMETERS.items():
                setattr(params, name, value)

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
               flag="--cpsat-workers"),
        Option("formulation", str, "auto", "auto: chase on plus boards without wrap above 64 cells, else xor; "
               "chase: the first row decides, every other press is an XOR of it by light chasing; xor: one XOR "
               "per cell; linear: rows with a slack (measured slower)", choices=FORMULATIONS,
               flag="--cpsat-formulation"),
        MEMORY_LIMIT,
    )

    def estimate_bytes(self, game: PressSystem, options: dict) -> int:
        """:data:`BASE_BYTES` + :data:`BYTES_PER_CELL` per cell + :data:`BYTES_PER_ENTRY` per non-zero of the
        press matrix and search worker (each worker holds its own copy); O(|offsets|), nothing built."""
        workers = options.get("workers", 1)
        return BASE_BYTES + BYTES_PER_CELL * game.n + BYTES_PER_ENTRY * game.entries * workers
