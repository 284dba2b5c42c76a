"""Deliberately faulty backends, each with a bug a real solver could have.

Each is a registry :class:`~flipgame.Backend` built around a plain
``solve(game, board)``; the harness must catch every one of them.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from conftest import solve_gate

from flipgame import Backend, Game, Solution, Status
from flipgame.algebra.gf2 import eliminate
from flipgame.backends import sat


class FunctionBackend(Backend):
    """A backend around a plain ``solve(game, board, **options) -> Solution``: adding a
    backend is a subclass and a registry line, nothing else."""

    def __init__(self, name: str, solve, summary: str = "deliberately faulty"):
        self.name, self.summary, self._solve = name, summary, solve

    def solve(self, game, board, **options):
        return self._solve(game, board)


def _as_backend(name: str, solve) -> Backend:
    return FunctionBackend(name, solve)


def _relabel(name: str, s: Solution) -> Solution:
    return dataclasses.replace(s, backend=name, stats={})


def one_colour(game: Game, board: int) -> Solution:
    """Checks only the all-white target, even when the goal is either colour."""
    return _relabel("one_colour", solve_gate("gauss", game.with_goal("white"), board))


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
    elim = eliminate(game)
    for t in game.targets:
        if elim.consistent(board ^ t):
            x = elim.particular(board ^ t)
            return Solution("no_minimise", Status.OPTIMAL, x.bit_count(), x, t)
    return Solution("no_minimise", Status.INFEASIBLE)


_SAT_MODELS: dict[Game, sat.SatModel] = {}


def first_found(game: Game, board: int) -> Solution:
    """Returns the SAT solver's first model, without asking for fewer presses."""
    if game not in _SAT_MODELS:
        _SAT_MODELS[game] = sat.SatModel(game)
    model = _SAT_MODELS[game]
    model._deadline = float("inf")
    model._assume = [c if board >> i & 1 else -c for i, c in enumerate(model.cell)]
    values = model._call([])
    if values is None:
        return Solution("first_found", Status.INFEASIBLE)
    x = model._weight_of(values)
    return Solution("first_found", Status.OPTIMAL, x.bit_count(), x, game.apply(board, x))


def rejects_zero(game: Game, board: int) -> Solution:
    """Treats 'no presses' as no solution: an already-uniform board comes out Impossible."""
    s = solve_gate("gauss", game, board)
    if s.moves == 0:
        return Solution("rejects_zero", Status.INFEASIBLE)
    return _relabel("rejects_zero", s)


_SHARED_CACHE: dict[int, Solution] = {}


def shared_state(game: Game, board: int) -> Solution:
    """Caches answers in module state under a wrong key (the number of black cells),
    so one board's answer leaks into the next board with as many black cells."""
    key = board.bit_count()
    if key not in _SHARED_CACHE:
        _SHARED_CACHE[key] = solve_gate("gauss", game, board)
    s = _SHARED_CACHE[key]
    return dataclasses.replace(s, backend="shared_state", stats={})


FAULTY = {f.__name__: _as_backend(f.__name__, f)
          for f in (one_colour, row_wrap, no_minimise, first_found, rejects_zero, shared_state)}
