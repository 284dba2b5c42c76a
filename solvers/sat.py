"""``sat``: CNF parity constraints + totalizer, minimised by incremental SAT (python-sat).

Encoding.  Variables: ``press_j`` (n), ``cell_i`` (n, the board, set by
assumptions), ``t`` (goal colour black; a unit clause when the goal fixes it)
and auxiliaries.  Cell ``i`` ends at colour ``t`` iff::

    XOR(press_j : press j flips i) ^ cell_i ^ t = 0

A XOR of ``m`` literals is cut into pieces of at most :data:`XOR_PIECE`
literals linked by auxiliary variables (``a = l1 ^ l2 ^ l3`` becomes the
4-literal XOR ``l1 ^ l2 ^ l3 ^ a = 0``); each piece of ``k`` literals is
written directly as the ``2**(k-1)`` clauses that forbid its wrong-parity
assignments (Tseitin-style cutting, as in CryptoMiniSat's XOR-to-CNF).
With the plus neighbourhood a cell's XOR has at most 7 literals (5 presses,
the cell, the colour): 3 pieces, 2 auxiliaries, 8 + 8 + 4 = 20 clauses; an
edge cell 16 clauses and 1 auxiliary, a corner 12 and 1.  For a rows x cols
board the parity part has ``2n + 1`` primary variables, at most ``2n``
auxiliaries and at most ``20 n`` clauses (4x4: 33 + 20 variables, 256
clauses; 3x5: 31 + 18, 236); the totalizer adds O(n log n) variables and
O(n^2) clauses.

Minimisation.  An incremental totalizer (``pysat.card.ITotalizer``, Martins
et al., CP 2014) over the press variables gives output literals ``o_k`` meaning
"at least k+1 presses".  Each board is solved under the assumptions that fix
its cells; then, while satisfiable, the solver is asked again under the extra
assumption ``not o_{w-1}`` (at most ``w - 1`` presses, ``w`` the weight of the
last model).  The last model is a minimum-weight solution; the first UNSAT
proves it.  The formula is built once per game: boards differ only in their
assumptions, and every clause the solver learns is implied by the formula
alone, so nothing carries from one board to the next.

Solver.  Default ``cadical195`` (CaDiCaL 1.9.5): the newest CaDiCaL in
python-sat with incremental assumptions; in our 4x4 measurements MiniSat 2.2
is about as fast, Glucose 4 about 1.5 times slower.  Any name in
:data:`SOLVERS` can be chosen.

Running time: NP-hard in general; about 0.3 ms per 4x4 board.
Source: python-sat documentation (``pysat.solvers``, ``pysat.card``);
Ignatiev, Morgado & Marques-Silva, "PySAT", SAT 2018.
"""

from __future__ import annotations

import itertools
import time

import numpy as np

from .board import Game
from .result import BatchSolution, Solution, Status, canonical_solution

NAME = "sat"
DEFAULT_SOLVER = "cadical195"
SOLVERS = ("cadical103", "cadical153", "cadical195", "cadical300", "ergo", "glucose3", "glucose4", "glucose42",
           "gluecard3", "gluecard4", "lingeling", "maplechrono", "maplecm", "maplesat", "mergesat3", "minicard",
           "minisat22", "minisatep")
"""python-sat solvers that take assumptions and report statistics (checked by the tests); not
Kissat (no assumptions), nor CryptoMiniSat / MiniSat-GH (not built into every wheel)."""
XOR_PIECE = 4


def xor_clauses(lits: list[int], rhs: int = 0) -> list[list[int]]:
    """CNF of ``XOR(lits) = rhs`` without auxiliaries: the 2**(k-1) clauses that forbid
    every assignment of the wrong parity.  ``lits``: non-zero DIMACS literals."""
    clauses = []
    for signs in itertools.product((0, 1), repeat=len(lits)):
        if sum(signs) % 2 != rhs:  # assignment with wrong parity: forbid it
            clauses.append([-lit if s else lit for lit, s in zip(lits, signs, strict=True)])
    return clauses


def xor_chain(lits: list[int], new_var, piece: int = XOR_PIECE) -> list[list[int]]:
    """CNF of ``XOR(lits) = 0``, cut into pieces of at most ``piece`` literals.

    ``new_var()`` returns a fresh variable for each link.  ``len(lits) - piece``
    over ``piece - 2`` links (rounded up); each piece costs ``2**(piece-1)`` clauses.
    """
    if piece < 3:
        raise ValueError("XOR pieces need at least 3 literals")
    clauses = []
    lits = list(lits)
    while len(lits) > piece:
        link = new_var()
        head, lits = lits[: piece - 1], lits[piece - 1:]
        clauses += xor_clauses([*head, link], 0)  # link = XOR(head)
        lits.insert(0, link)
    return clauses + xor_clauses(lits, 0)


class Model:
    """The CNF of one game with its totalizer, kept in one incremental SAT solver.

    Parameters
    ----------
    game : Game
    solver : str
        A python-sat solver name (default :data:`DEFAULT_SOLVER`).

    Raises
    ------
    ValueError
        On an unknown solver name (the message lists the valid ones).
    """

    def __init__(self, game: Game, *, solver: str = DEFAULT_SOLVER):
        from pysat.card import ITotalizer
        from pysat.solvers import Solver

        if solver not in SOLVERS:
            raise ValueError(f"unknown SAT solver {solver!r}; python-sat solvers with incremental assumptions "
                             f"and statistics: {', '.join(SOLVERS)}")
        self.game = game
        n = game.n
        self.press = list(range(1, n + 1))
        self.cell = list(range(n + 1, 2 * n + 1))
        self.colour = 2 * n + 1
        top = [self.colour]

        def new_var() -> int:
            top[0] += 1
            return top[0]

        clauses = []
        for i in range(n):
            flips_i = [self.press[j] for j in game.flippers[i]]
            clauses += xor_chain([*flips_i, self.cell[i], self.colour], new_var)
        if game.goal != "any":
            clauses.append([self.colour if game.goal == "black" else -self.colour])
        self.parity_vars, self.parity_clauses = top[0], len(clauses)
        self.totalizer = ITotalizer(lits=self.press, ubound=n, top_id=top[0])
        self.solver_name = solver
        self.solver = Solver(name=solver, bootstrap_with=clauses + self.totalizer.cnf.clauses)

    def close(self) -> None:
        self.solver.delete()
        self.totalizer.delete()

    def solve(self, board: int, canonical: bool = False) -> Solution:
        """Minimum presses for one board (bitmask); see :func:`solve`."""
        start = time.perf_counter()
        self.game.check_fits(board)
        s = self.solver
        before = s.accum_stats()
        fix = [c if board >> i & 1 else -c for i, c in enumerate(self.cell)]
        best = None
        assumptions = fix
        calls = 0

        def presses_of(model: list[int]) -> int:
            return sum(1 << j for j, v in enumerate(self.press) if model[v - 1] > 0)

        while True:
            calls += 1
            if not s.solve(assumptions=assumptions):
                break
            model = s.get_model()
            best = (presses_of(model), model[self.colour - 1] > 0)
            weight = best[0].bit_count()
            if weight == 0:
                break
            assumptions = fix + [-self.totalizer.rhs[weight - 1]]  # at most weight-1 presses
        after = s.accum_stats()
        stats = {k: after.get(k, 0) - before.get(k, 0) for k in ("conflicts", "decisions", "propagations")}
        stats["sat_calls"] = calls
        if best is None:
            return Solution(NAME, Status.INFEASIBLE, seconds=time.perf_counter() - start, stats=stats)
        presses, black = best
        if canonical:
            weight = presses.bit_count()
            bound = [-self.totalizer.rhs[weight]] if weight < len(self.press) else []  # at most weight

            def solve_fixed(fixed: dict[int, int]) -> int | None:
                lits = [self.press[i] if v else -self.press[i] for i, v in fixed.items()]
                return presses_of(s.get_model()) if s.solve(assumptions=fix + bound + lits) else None

            return canonical_solution(NAME, self.game, board, presses, solve_fixed, start, stats)
        return Solution(NAME, Status.OPTIMAL, presses.bit_count(), presses, self.game.full if black else 0,
                        time.perf_counter() - start, stats)

def solve(game: Game, board: int, *, solver: str = DEFAULT_SOLVER, canonical: bool = False) -> Solution:
    """Minimum presses for one board by incremental SAT with a totalizer.

    Parameters
    ----------
    game : Game
    board : int
        Bitmask of black cells.
    solver : str
        python-sat solver name, e.g. ``cadical195``, ``minisat22``, ``glucose4``.
    canonical : bool
        Return the lexicographically smallest minimum press set (at most one
        more SAT call per press, under assumptions fixing the cells before it).

    Returns
    -------
    Solution
        stats: ``conflicts``, ``decisions``, ``propagations``, ``sat_calls``.

    Raises
    ------
    ValueError
        Unknown solver name, or a board that does not fit.
    """
    start = time.perf_counter()
    model = Model(game, solver=solver)
    try:
        s = model.solve(board, canonical)
    finally:
        model.close()
    return Solution(NAME, s.status, s.moves, s.presses, s.target, time.perf_counter() - start, s.stats)


def solve_batch(game: Game, boards: np.ndarray, *, solver: str = DEFAULT_SOLVER,
                canonical: bool = False) -> BatchSolution:
    """:func:`solve` over many boards with one formula; only the assumptions change.

    Parameters
    ----------
    boards : array_like of uint64, shape (k,)

    Running time: one formula build, then a few SAT calls per board.
    """
    start = time.perf_counter()
    model = Model(game, solver=solver)
    try:
        boards = np.asarray(boards, dtype=np.uint64)
        solutions = [model.solve(int(b), canonical) for b in boards]
    finally:
        model.close()
    out = BatchSolution.from_solutions(NAME, boards, solutions, time.perf_counter() - start)
    return out.with_time(out.seconds, conflicts=sum(s.stats.get("conflicts", 0) for s in solutions))
