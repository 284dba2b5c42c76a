"""Deliberately faulty backends, each with a bug a real solver could have.

Each is a registry :class:`~solvers.Backend` built around a plain
``solve(game, board)``; the harness must catch every one of them.
"""

from __future__ import annotations

import dataclasses
import types

import numpy as np

from solvers import Backend, BatchSolution, Game, Solution, Status, gauss, sat


def _as_backend(name: str, solve) -> Backend:
    def solve_batch(game, boards):
        return BatchSolution.from_solutions(name, boards, [solve(game, int(b)) for b in boards], 0.0)

    module = types.ModuleType(f"faulty_{name}")
    module.solve, module.solve_batch = solve, solve_batch
    return Backend(name, module, "deliberately faulty", parallel=False)


def _relabel(name: str, s: Solution) -> Solution:
    return dataclasses.replace(s, backend=name, stats={})


def one_colour(game: Game, board: int) -> Solution:
    """Checks only the all-white target, even when the goal is either colour."""
    return _relabel("one_colour", gauss.solve(dataclasses.replace(game, goal="white"), board))


def _brute_force_table(masks: list[int], n: int) -> dict[int, int]:
    """Minimum-weight press set for every reachable change, by trying all 2**n press sets."""
    x = np.arange(1 << n, dtype=np.uint64)
    change = np.zeros_like(x)
    for j, m in enumerate(masks):
        change ^= ((x >> np.uint64(j)) & np.uint64(1)) * np.uint64(m)
    order = np.argsort(np.bitwise_count(x), kind="stable")
    uniq, first = np.unique(change[order], return_index=True)
    return dict(zip(uniq.tolist(), x[order][first].tolist(), strict=True))


_ROW_WRAP_TABLES: dict[Game, dict[int, int]] = {}


def row_wrap(game: Game, board: int) -> Solution:
    """Left/right neighbours by index i-1, i+1: the last cell of a row flips the next row's first."""
    if game not in _ROW_WRAP_TABLES:
        n = game.n
        masks = [sum(1 << k for k in (j, j - 1, j + 1, j - game.cols, j + game.cols) if 0 <= k < n)
                 for j in range(n)]
        _ROW_WRAP_TABLES[game] = _brute_force_table(masks, n)
    table = _ROW_WRAP_TABLES[game]
    best = min(((table[board ^ t], t) for t in game.targets if board ^ t in table),
               key=lambda p: p[0].bit_count(), default=None)
    if best is None:
        return Solution("row_wrap", Status.INFEASIBLE)
    x, t = best
    return Solution("row_wrap", Status.OPTIMAL, x.bit_count(), x, t)


def no_minimise(game: Game, board: int) -> Solution:
    """Returns the particular solution (free variables 0) without searching the null space."""
    elim = gauss.eliminate(game)
    for t in game.targets:
        if elim.consistent(board ^ t):
            x = elim.particular(board ^ t)
            return Solution("no_minimise", Status.OPTIMAL, x.bit_count(), x, t)
    return Solution("no_minimise", Status.INFEASIBLE)


_SAT_MODELS: dict[Game, sat.Model] = {}


def first_found(game: Game, board: int) -> Solution:
    """Returns the SAT solver's first model, without asking for fewer presses."""
    if game not in _SAT_MODELS:
        _SAT_MODELS[game] = sat.Model(game)
    model = _SAT_MODELS[game]
    fix = [c if board >> i & 1 else -c for i, c in enumerate(model.cell)]
    if not model.solver.solve(assumptions=fix):
        return Solution("first_found", Status.INFEASIBLE)
    values = model.solver.get_model()
    x = sum(1 << j for j, v in enumerate(model.press) if values[v - 1] > 0)
    t = game.full if values[model.colour - 1] > 0 else 0
    return Solution("first_found", Status.OPTIMAL, x.bit_count(), x, t)


def rejects_zero(game: Game, board: int) -> Solution:
    """Treats 'no presses' as no solution: an already-uniform board comes out Impossible."""
    s = gauss.solve(game, board)
    if s.moves == 0:
        return Solution("rejects_zero", Status.INFEASIBLE)
    return _relabel("rejects_zero", s)


_SHARED_CACHE: dict[int, Solution] = {}


def shared_state(game: Game, board: int) -> Solution:
    """Caches answers in module state under a wrong key (the number of black cells),
    so one board's answer leaks into the next board with as many black cells."""
    key = board.bit_count()
    if key not in _SHARED_CACHE:
        _SHARED_CACHE[key] = gauss.solve(game, board)
    s = _SHARED_CACHE[key]
    return dataclasses.replace(s, backend="shared_state", stats={})


FAULTY = {f.__name__: _as_backend(f.__name__, f)
          for f in (one_colour, row_wrap, no_minimise, first_found, rejects_zero, shared_state)}
