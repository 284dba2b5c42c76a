"""``pb``: the minimum as a pseudo-Boolean optimisation problem, solved in-process by Exact.

Encoding (the ``opb`` export's): per cell ``i``, ``sum(press_j : j flips i) + b_i
- 2 k_i - t = 0`` with an integer slack ``k_i`` and the goal colour ``t`` (a
variable for the goal ``any``, the constant 0/1 otherwise moved to the right-hand
side); minimise ``sum(press_j)``.  The board bits ``b_i`` are 0/1 variables set
by assumptions, so the model is built once per game and each board only changes
the assumptions (Exact's ``toOptimum`` leaves the solver's state as it was).

Running time: NP-hard in general; measured per board in ``docs/bench.md``.
Source: Exact (Jo Devriendt, https://gitlab.com/nonfiction-software/exact), a
cutting-planes PB solver descended from RoundingSat (Elffers & Nordström, 2018).
"""

from __future__ import annotations

from flipgame.backends.base import MEMORY_LIMIT, TIME_LIMIT, no_canonical
from flipgame.backends.models import Model, ModelBackend
from flipgame.backends.result import Status
from flipgame.core.limits import TIME_LIMIT_DEFAULT_SECONDS
from flipgame.model.system import PressSystem

BYTES_PER_CELL = 4_000
"""Rough model size per cell (not measured beyond 30x30; the memory budget refuses far larger boards)."""


class ExactModel(Model):
    """The PB model of one game in Exact; boards change only the assumptions on ``b_i``."""

    backend = "pb"

    def __init__(self, game: PressSystem, *, time_limit: float = TIME_LIMIT_DEFAULT_SECONDS):
        super().__init__(game)
        import exact

        s = self.solver = exact.Exact()
        self.time_limit = time_limit
        self.press = [f"x{j}" for j in range(game.m)]
        for v in self.press:
            s.addVariable(v)
        t = "t" if game.goal == "any" else None
        if t:
            s.addVariable(t)
        fixed = int(game.goal == "black")
        for i, flips in enumerate(game.flippers):
            s.addVariable(f"b{i}")
            s.addVariable(f"k{i}", 0, (len(flips) + 2) // 2)
            terms = [(1, self.press[j]) for j in flips] + [(1, f"b{i}"), (-2, f"k{i}")] + ([(-1, t)] if t else [])
            s.addConstraint(terms, True, fixed, True, fixed)
        s.setObjective([(1, v) for v in self.press])

    def _minimise(self, board: int):
        s = self.solver
        s.setAssumptions([(f"b{i}", board >> i & 1) for i in range(self.game.n)])
        try:
            status, value = s.toOptimum(self._board_seconds(self.time_limit))
        except RuntimeError as exc:  # Exact's own SIGINT/SIGTERM handler took a Ctrl-C: it is the caller's
            if "interrupted" in str(exc).lower():
                raise KeyboardInterrupt from None
            raise
        stats = {"exact": status}
        if status == "SAT":
            values = s.getLastSolutionFor(self.press)
            presses = sum(1 << j for j, v in enumerate(values) if v)
            if presses.bit_count() != value:
                raise RuntimeError(f"Exact's optimum {value} differs from its solution's weight")
            return Status.OPTIMAL, presses, stats
        if status in ("UNSAT", "INCONSISTENT"):
            return Status.INFEASIBLE, None, stats
        return Status.UNKNOWN, None, stats


class Pb(ModelBackend):
    """Exact over the PB model; see the module docstring.

    >>> from flipgame import solve
    >>> solve(["bwwb", "bbwb", "bwwb", "bwww"], "pb").moves
    4
    """

    name = "pb"
    summary = "pseudo-Boolean: parity as sums with an integer slack, Exact"
    max_cells = 40_000
    model = ExactModel
    by_default = False
    options = (TIME_LIMIT, MEMORY_LIMIT)
    needs = ("exact",)

    def check_options(self, options: dict) -> dict:
        return no_canonical(self.name, super().check_options(options))

    def estimate_bytes(self, game: PressSystem, options: dict) -> int:
        return BYTES_PER_CELL * max(game.n, game.m)
