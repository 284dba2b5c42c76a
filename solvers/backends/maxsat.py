"""``maxsat``: the minimum as a MaxSAT problem, solved in-process by pysat's RC2.

Encoding (:func:`flipgame.encode.export.write_wcnf`, the same clauses as the ``wcnf``
export): every cell's parity as hard clauses (XOR cut into pieces with
auxiliary variables), one soft clause ``NOT press_j`` of weight 1 per press.
The optimum cost is the minimum number of presses; an UNSAT hard part is
Impossible.  RC2 is built afresh per board (its hard clauses hold the board).

Running time: NP-hard in general; measured per board in ``docs/bench.md``.  RC2 runs in
a thread with its SAT calls limited (``compute(expect_interrupt=True)``): at the time limit,
or on Ctrl-C, :meth:`RC2.interrupt` stops the call (UNKNOWN), and the command does not wait
for the thread (RC2's heuristics' own SAT calls are not interruptible).  The backend takes at
most :data:`MAXSAT_MAX_CELLS` cells, :data:`MAXSAT_MAX_BUTTONS` buttons and
:data:`MAXSAT_MAX_ENTRIES` press-matrix entries (its memory is not estimated, and building the
WCNF is not timed).
Source: Ignatiev, Morgado & Marques-Silva, "RC2: an Efficient MaxSAT Solver",
JSAT 11 (2019); winner of the MaxSAT Evaluations 2018 and 2019.
"""

from __future__ import annotations

import time

from flipgame.backends.base import TIME_LIMIT, Backend, Option, interruptible, no_canonical
from flipgame.backends.result import Solution, Status
from flipgame.core.limits import MAXSAT_MAX_BUTTONS, MAXSAT_MAX_CELLS, MAXSAT_MAX_ENTRIES, TIME_LIMIT_DEFAULT_SECONDS
from flipgame.encode.export import Instance, parity_clauses
from flipgame.model.system import PressSystem

SOLVERS = ("g3", "g4", "cd19", "mgh", "m22")
"""SAT oracles of RC2 offered (pysat names): Glucose 3/4, CaDiCaL 1.9.5, MapleLCMDistChronoBT (mgh), MiniSat."""


def rc2_minimise(game: PressSystem, board: int, solver: str = "g3",
                 time_limit: float = TIME_LIMIT_DEFAULT_SECONDS) -> tuple[Status, int | None, dict]:
    """``(status, presses, stats)`` of one board by RC2 over the WCNF, UNKNOWN past ``time_limit`` seconds
    (building included); ``stats["build_seconds"]``: building the WCNF.  Raises nothing on Impossible;
    KeyboardInterrupt on Ctrl-C, once RC2's call is told to stop."""
    from pysat.examples.rc2 import RC2
    from pysat.formula import WCNF, IDPool

    start = time.perf_counter()
    inst = Instance.of(game, board)
    pool = IDPool(start_from=inst.nvars + 1)
    w = WCNF()
    for c in parity_clauses(inst, pool):
        w.append(c)
    for j in range(1, inst.n + 1):
        w.append([-j], weight=1)
    built = time.perf_counter() - start
    rc2 = RC2(w, solver=solver)
    stats = {"solver": solver, "build_seconds": built}
    try:
        model = interruptible(lambda: rc2.compute(expect_interrupt=True), rc2.interrupt,
                              seconds=max(time_limit - built, 0.0))
    except TimeoutError:
        return Status.UNKNOWN, None, stats  # interrupted: the thread ends on its own once RC2 stops
    stats["cost"] = rc2.cost
    interrupted = rc2.interrupted
    rc2.delete()
    if interrupted:
        return Status.UNKNOWN, None, stats
    if model is None:
        return Status.INFEASIBLE, None, stats
    presses = sum(1 << (v - 1) for v in model if 0 < v <= inst.n)
    return Status.OPTIMAL, presses, stats


class MaxSat(Backend):
    """RC2 over the WCNF; see the module docstring.

    >>> from flipgame import solve
    >>> solve(["bwwb", "bbwb", "bwwb", "bwww"], "maxsat").moves
    4
    """

    name = "maxsat"
    summary = "MaxSAT: hard parity clauses, a soft clause per press, pysat's RC2"
    parallel = True
    max_cells = MAXSAT_MAX_CELLS
    by_default = False
    options = (Option("solver", str, "g3", "RC2's SAT oracle", choices=SOLVERS, flag="--rc2-solver", fuzz=True),
               TIME_LIMIT)

    def check_options(self, options: dict) -> dict:
        return no_canonical(self.name, super().check_options(options))

    def refusal(self, game: PressSystem, options: dict) -> str | None:
        """:meth:`Backend.refusal`, more than :data:`MAXSAT_MAX_BUTTONS` buttons (soft clauses), or more than
        :data:`MAXSAT_MAX_ENTRIES` press-matrix entries (the parity clauses' size).  O(buttons)."""
        why = super().refusal(game, options)
        if why is None and game.m > MAXSAT_MAX_BUTTONS:
            why = (f"{self.name} allows at most {MAXSAT_MAX_BUTTONS} buttons (soft clauses); {game.size} with "
                   f"{game.m} buttons")
        entries = sum(len(b) for b in game.buttons) if why is None else 0
        if entries > MAXSAT_MAX_ENTRIES:
            why = (f"{self.name} builds at most {MAXSAT_MAX_ENTRIES:,} press-matrix entries (cells its buttons "
                   f"change, summed: its parity clauses); this system ({game.size}) has {entries:,}")
        return why

    def solve(self, game: PressSystem, board: int, **options) -> Solution:
        options = self.check_options(options)  # defaults filled when called without the gate
        start = time.perf_counter()
        status, presses, stats = rc2_minimise(game, board, options["solver"], options["time_limit"])
        seconds = time.perf_counter() - start - stats["build_seconds"]  # as a model backend's: the solve alone
        if status is not Status.OPTIMAL:
            return Solution(self.name, status, seconds=seconds, stats=stats)
        return Solution(self.name, status, presses.bit_count(), presses, game.apply(board, presses), seconds, stats)
